/** What `delegate diff` and `delegate apply` share: a task's patch, or why there is none. */
import { stateLabel, type Task } from "../../a2a/tasks/mod.ts";
import { ObservalError } from "../../core/mod.ts";
import { pathExists } from "../../core/system/mod.ts";
import type { TaskStore } from "../../store/mod.ts";
import { TASK_EXIT } from "./task_exit.ts";

/** A task and the patch file it returned. */
export interface TaskPatch {
  task: Task;
  patchPath: string;
}

/** Said once for both commands' help. */
export const TASK_ID_NOTE =
  "TASK-ID is the task's id or its first characters (at least 4, enough to name one task).";

/**
 * The task `input` names (a whole id or a unique prefix) and its patch file.
 *
 * @throws {ObservalError} NOT_FOUND for an unknown task; FAILED_PRECONDITION with exit code
 * {@linkcode TASK_EXIT.noPatch} when the task has no patch to show or apply
 */
export function taskPatch(store: TaskStore, input: string): TaskPatch {
  const task = store.require(store.resolveId(input));
  const meta = task.metadata.observal;
  const state = task.status.state;
  if (!meta.patchPath) {
    const why = state === "TASK_STATE_COMPLETED"
      ? "it completed without changing any file"
      : `it is ${stateLabel(state)}, and only a completed task returns changes`;
    throw new ObservalError("FAILED_PRECONDITION", `Task ${task.id} has no patch: ${why}`, {
      resource: task.id,
      exitCode: TASK_EXIT.noPatch,
      remediation: state === "TASK_STATE_COMPLETED"
        ? `See what it said with \`observal delegate status ${task.id}\``
        : `Follow it with \`observal delegate status ${task.id} --wait 60\``,
    });
  }
  if (!pathExists(meta.patchPath)) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `Task ${task.id}'s patch file is gone: ${meta.patchPath}`,
      {
        resource: meta.patchPath,
        exitCode: TASK_EXIT.noPatch,
        remediation: "Its text is still in the task: `observal delegate status " +
          `${task.id} --json\` (artifact "changes.patch")`,
      },
    );
  }
  return { task, patchPath: meta.patchPath };
}
