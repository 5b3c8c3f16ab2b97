/**
 * Whether a task's worker lives, and settling the task of one that died or never started:
 * the work behind the service's `get`, `workerGone`, `sweep` and `drain`.
 * @module
 */
import { isFinal, type Task } from "../a2a/tasks/mod.ts";
import { isoSeconds } from "../core/mod.ts";
import { pidNamespace } from "../process/mod.ts";
import {
  agentMessage,
  namingLog,
  readPid,
  readPidNamespace,
  reapTask,
  sandboxedWorkerGone,
  sweepWorkspaces,
  workerAlive,
  workerLog,
} from "../runner/mod.ts";
import { cancelDeadWorkersRemote, needsRemoteCancel } from "./_dead_worker_cancel.ts";
import type { ServiceState } from "./_state.ts";

/** How long a task may wait for its worker to write its pid. */
export const WORKER_START_MS = 60_000;

/** The task as stored, after settling it if its worker died or never started. */
export function getTask(s: ServiceState, id: string): Task {
  const { store, ctx } = s.deps;
  id = store.resolveId(id);
  const task = store.require(id);
  const message = s.self.workerGone(task);
  if (message === undefined) return task;
  // Whatever the worker managed to say before it went is in its log.
  const log = workerLog(store.taskDir(id));
  // The worker may have finished between the read above and the probe: settle only a
  // task that is still not final.
  const { task: settled, changed } = store.update(
    id,
    (t) =>
      isFinal(t.status.state) ? undefined : {
        ...t,
        status: {
          state: "TASK_STATE_FAILED",
          timestamp: isoSeconds(ctx.clock.now()),
          message: agentMessage(namingLog(message, log), t.id, t.contextId),
        },
        metadata: { ...t.metadata, observal: { ...t.metadata.observal, logPath: log } },
      },
  );
  // The agent may still be working on it: this process settled it, so it alone says so.
  if (changed && needsRemoteCancel(settled)) tellRemote(s, settled);
  // A local task's child and workspace outlived the worker: stop it if provably ours.
  if (settled.metadata.observal.workspaceRoot) {
    try {
      reapTask(store, settled, ctx.home);
    } catch { /* the next sweep retries */ }
  }
  return store.require(id);
}

/** Waits for the cancels sent to remote agents for tasks whose workers died. */
export async function drain(s: ServiceState): Promise<void> {
  while (s.telling.size > 0) await Promise.all([...s.telling]);
}

function tellRemote(s: ServiceState, task: Task): void {
  const { ctx, store, registry } = s.deps;
  const telling = cancelDeadWorkersRemote({ ctx, store, registry }, task)
    .finally(() => s.telling.delete(telling));
  s.telling.add(telling);
}

/**
 * Why a task that is not final has no worker any more (it died, or never started within
 * the grace period), or undefined while its worker lives, or for a final task.
 */
export function workerGone(s: ServiceState, task: Task): string | undefined {
  if (isFinal(task.status.state)) return undefined;
  if (s.runningHere.has(task.id)) return undefined;
  const pid = workerPid(s, task.id);
  if (pid !== undefined) {
    const dir = s.deps.store.taskDir(task.id);
    const ns = readPidNamespace(dir);
    if (ns !== undefined && ns !== pidNamespace()) {
      return sandboxedWorkerGone(s.deps.store, task);
    }
    return workerAlive(pid, task.id, dir)
      ? undefined
      : "The delegation worker stopped unexpectedly.";
  }
  const started = Date.parse(task.status.timestamp ?? task.metadata.observal.createdAt);
  const grace = s.deps.workerStartMs ?? WORKER_START_MS;
  if (s.deps.ctx.clock.now().getTime() - started <= grace) return undefined;
  return `The delegation worker did not start within ${Math.round(grace / 1000)} seconds.`;
}

/** Removes workspaces of settled tasks and stops children of dead workers. Never throws. */
export function sweep(s: ServiceState): void {
  try {
    sweepWorkspaces(s.deps.ctx, s.deps.store, (t) => s.self.get(t.id));
  } catch { /* cleanup must never fail a command */ }
}

/**
 * The pid of the task's worker, undefined while one is being started. Tasks stored by an
 * older version recorded it only in the task folder's `worker.pid`.
 */
export function workerPid(s: ServiceState, id: string): number | undefined {
  const { store } = s.deps;
  const recorded = store.workerPid(id);
  if (recorded === null) return readPid(store.taskDir(id));
  if (recorded > 0) return recorded;
  const launched = s.launched.get(id);
  return launched !== undefined && launched > 0 ? launched : undefined;
}
