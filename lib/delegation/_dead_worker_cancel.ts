/**
 * When a remote task's worker dies, the agent is still working on the task and nobody will
 * follow it any more. Whoever settles such a task (status, wait, reconcile, a sweep) asks
 * the agent to cancel it, once: only the process whose write settled the task does, and
 * the command that settled it waits for the answer, at most {@linkcode DEAD_WORKER_CANCEL_MS}.
 * @module
 */
import type { Task } from "../a2a/tasks/mod.ts";
import type { Context } from "../core/mod.ts";
import { nodeFs, startTimer } from "../core/system/mod.ts";
import type { RegistryClient } from "../registry/mod.ts";
import type { TaskStore } from "../store/mod.ts";
import { workerLog } from "../runner/mod.ts";

/** Longest the agent is given to take the cancel of a dead worker's task. */
export const DEAD_WORKER_CANCEL_MS = 5000;

/** What telling the agent needs. */
export interface DeadWorkerCancelDeps {
  ctx: Context;
  store: TaskStore;
  registry: () => RegistryClient;
}

/**
 * Whether `task`, just settled because its worker died, is one the remote agent may still
 * be working on: a remote task that has a remote id.
 */
export function needsRemoteCancel(task: Task): boolean {
  const meta = task.metadata.observal;
  return meta.kind === "a2a" && typeof meta.remoteTaskId === "string" && meta.remoteTaskId !== "";
}

/**
 * Sends one best-effort CancelTask for a dead worker's remote task to its approved,
 * pinned endpoint (never to an agent that lost its approval), bounded by `timeoutMs`.
 * What happened is written to the task's worker log; it never throws.
 */
export async function cancelDeadWorkersRemote(
  deps: DeadWorkerCancelDeps,
  task: Task,
  timeoutMs = DEAD_WORKER_CANCEL_MS,
): Promise<void> {
  const log = workerLog(deps.store.taskDir(task.id));
  const say = (text: string) => {
    try {
      nodeFs().appendFileSync(log, text, { mode: 0o600 });
    } catch { /* a log that cannot be written loses the line, not the cancel */ }
  };
  const ctx = { ...deps.ctx, io: { ...deps.ctx.io, stderr: { write: say } } };
  say(
    `the worker of task ${task.id} stopped: asking the remote agent to cancel ` +
      `${task.metadata.observal.remoteTaskId}\n`,
  );
  let stop = () => {};
  const late = new Promise<"late">((resolve) =>
    stop = startTimer(timeoutMs, () => resolve("late"))
  );
  try {
    const told = (async () => {
      // The A2A client loads only now: most settles have no remote agent to tell.
      const { abandonRemote } = await import("../runner/remote/mod.ts");
      await abandonRemote({ ...deps, ctx }, task);
      return "told" as const;
    })().catch((err) => {
      say(`the remote agent was not told to cancel: ${(err as Error)?.message ?? err}\n`);
      return "failed" as const;
    });
    if (await Promise.race([told, late]) === "late") {
      say(`the remote agent did not answer the cancel within ${timeoutMs / 1000} s\n`);
    }
  } finally {
    stop();
  }
}
