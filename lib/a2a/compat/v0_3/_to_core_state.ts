import { type TaskState, TaskStateSchema } from "../../task.ts";

/** v0.3 kebab-case state names (and the British spelling some agents send) → v1.0. */
const V03_STATES: Readonly<Record<string, TaskState>> = {
  "submitted": "TASK_STATE_SUBMITTED",
  "working": "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
  "completed": "TASK_STATE_COMPLETED",
  "failed": "TASK_STATE_FAILED",
  "canceled": "TASK_STATE_CANCELED",
  "cancelled": "TASK_STATE_CANCELED",
  "rejected": "TASK_STATE_REJECTED",
};

/**
 * A v1.0 or v0.3 task state as a v1.0 `TASK_STATE_*` name. Empty or missing means the
 * task was only just submitted. Anything unrecognised (including v0.3 `unknown` and v1.0
 * `TASK_STATE_UNSPECIFIED`) gives `undefined`: the caller must refuse it by name rather
 * than guess, so a caller never waits on a state it cannot interpret.
 */
export function toCoreState(value: unknown): TaskState | undefined {
  if (value === undefined || value === null) return "TASK_STATE_SUBMITTED";
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return "TASK_STATE_SUBMITTED";
  const upper = trimmed.toUpperCase();
  if (upper.startsWith("TASK_STATE_")) {
    const parsed = TaskStateSchema.safeParse(upper);
    return parsed.success ? parsed.data : undefined;
  }
  return V03_STATES[trimmed.toLowerCase()];
}
