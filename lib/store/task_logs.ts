/**
 * The logs a task's folder may hold. Their names are part of the folder's layout, kept here
 * with the folder itself so the worker that writes them and `observal delegate logs` that
 * reads them agree.
 * @module
 */

/** One log of a task. */
export interface TaskLogName {
  /**
   * What wrote it: the worker, a local task's harness child (its stdout, its stderr), or the
   * observal-agents servers that child delegated through (`agents`).
   */
  name: "worker" | "stdout" | "stderr" | "agents";
  /** Its file in the task folder. */
  file: string;
}

/** Every log a task may have, in the order people read them. */
export const TASK_LOGS: readonly TaskLogName[] = [
  { name: "worker", file: "worker.log" },
  { name: "stdout", file: "stdout.log" },
  { name: "stderr", file: "stderr.log" },
  { name: "agents", file: "agents.log" },
];
