/**
 * The tools' input shapes. Each one is advertised as JSON Schema, validates the arguments
 * and types the handler. Whole numbers outside their range are clamped rather than refused:
 * a model that asks for a 60-second wait should get the longest wait there is, not an
 * error it has to recover from.
 */
import { z } from "zod";

/** Default wait for `delegate`, in seconds. */
export const DEFAULT_TOOL_WAIT_SECONDS = 45;
/**
 * Longest wait one tool call may take, in seconds: below common MCP client tool timeouts
 * (about 60 s), so a call returns before the client gives up; `get_task` follows the rest.
 */
export const MAX_TOOL_WAIT_SECONDS = 50;

/** A whole number clamped into `[min, max]`, advertised with its range and default. */
function clampedInt(min: number, max: number, fallback: number, description: string) {
  return z.number().int()
    .transform((n) => Math.min(max, Math.max(min, n)))
    .default(fallback)
    .meta({
      minimum: min,
      maximum: max,
      description: `${description} (${min}-${max}, default ${fallback}; values outside ` +
        "the range are clamped)",
    });
}

const waitSeconds = (fallback: number) =>
  clampedInt(
    0,
    MAX_TOOL_WAIT_SECONDS,
    fallback,
    "Seconds to wait for a result before returning; the task keeps running either way",
  );

const taskId = z.string().min(1).describe("The task_id from an earlier delegate result");

/** `find_agents` arguments. */
export const findAgentsInput = {
  task: z.string().min(1).max(2000).describe(
    "What you want done, in a sentence or two; it is matched against approved agents",
  ),
  limit: clampedInt(1, 10, 5, "How many agents to list at most"),
};

/** `delegate` arguments. */
export const delegateInput = {
  agent: z.string().min(1).optional().describe(
    "Identifier from find_agents (urn:air:...); required unless task_id is given",
  ),
  message: z.string().describe(
    "The complete brief: goal, context, files, constraints and what to return. The agent " +
      "does not see this conversation. When task_id is given, your answer to its question " +
      "(may be empty when `data` carries the answer).",
  ),
  task_id: z.string().min(1).optional().describe(
    "Only to answer a task that asked for input: its task_id",
  ),
  data: z.record(z.string(), z.unknown()).optional().describe(
    "Only with task_id: a structured answer (a JSON object), sent as a data part after the " +
      "message. Use it when the question carries data, such as a tool approval.",
  ),
  wait_seconds: waitSeconds(DEFAULT_TOOL_WAIT_SECONDS),
};

/** `get_task` arguments. */
export const getTaskInput = {
  task_id: taskId,
  wait_seconds: waitSeconds(0),
};

/** `cancel_task` arguments. */
export const cancelTaskInput = {
  task_id: taskId,
};
