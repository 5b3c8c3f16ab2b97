/**
 * Exit codes for a delegated task's outcome and for a wait that ended (`observal help
 * exit-codes` lists them). A module of its own so the help topic loads no task store.
 * @module
 */
import { isTerminal, type Task } from "../../a2a/tasks/mod.ts";
import { CATEGORIES } from "../../core/mod.ts";

/** The exit codes of `delegate run`, `status`, `reply`, `cancel`, `diff` and `apply`. */
export const TASK_EXIT = {
  completed: 0,
  unsuccessful: 3,
  pending: 10,
  /**
   * Another reply or a cancel got there first; nothing was sent (the delegation service's
   * `REPLY_REFUSED_EXIT`, read from core so printing a task does not load the service).
   */
  replyRefused: CATEGORIES.superseded.exit,
  /**
   * `cancel` found the task already completed, failed or rejected: nothing was canceled.
   * (A task that was already canceled exits 0: what was asked for holds.)
   */
  nothingToCancel: 12,
  /** `diff` or `apply`: the task has no patch (not completed, or it changed nothing). */
  noPatch: 13,
  /** `apply`: the patch does not apply (or a three-way merge lacks its base); nothing changed. */
  patchRefused: 14,
  /** `apply`: this task's patch was applied already; nothing changed. */
  alreadyApplied: 15,
  /** `apply --3way`: applied, but some files merged with conflicts (markers left in them). */
  conflicts: 16,
  /** Ctrl-C before any task was started. */
  interrupted: 130,
} as const;

/**
 * The exit code for a task as it now stands: 0 completed, 3 failed, rejected or canceled,
 * 10 still running or waiting for input.
 */
export function taskExitCode(task: Task): number {
  const s = task.status.state;
  if (s === "TASK_STATE_COMPLETED") return TASK_EXIT.completed;
  if (isTerminal(s)) return TASK_EXIT.unsuccessful;
  return TASK_EXIT.pending;
}
