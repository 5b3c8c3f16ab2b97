/**
 * Cancelling a task: through its worker while one runs, and by telling the remote agent
 * here when no worker will.
 * @module
 */
import { isInterrupted, isTerminal, type Task } from "../a2a/tasks/mod.ts";
import { settle, workerAlive } from "../runner/mod.ts";
import { workerPid } from "./_liveness.ts";
import type { WaitOptions } from "./_options.ts";
import type { ServiceState } from "./_state.ts";

/** How long a cancel waits for a running task's worker to stop it. */
const CANCEL_WAIT_SECONDS = 15;

/** The service's `cancel`. */
export async function cancelTask(
  s: ServiceState,
  id: string,
  options: WaitOptions,
): Promise<Task> {
  const { store, ctx } = s.deps;
  id = store.resolveId(id);
  const task = s.self.get(id);
  if (isTerminal(task.status.state)) return task;
  const claimed = store.requestCancel(id);
  const state = claimed.status.state;
  if (isTerminal(state)) return claimed;
  const deps = { ctx, store, registry: s.deps.registry };
  // The A2A client loads only when a remote agent must be told.
  const cancelRemote = async (task: Task) =>
    await (await import("../runner/remote/mod.ts")).cancelRemote(deps, task);
  if (isInterrupted(state)) return await cancelRemote(claimed);
  const pid = workerPid(s, id);
  if (pid !== undefined && !workerAlive(pid, id, store.taskDir(id))) {
    // Nobody else will act on the request. A remote agent may still be working on it.
    return claimed.metadata.observal.remoteTaskId
      ? await cancelRemote(claimed)
      : settle(store, id, "TASK_STATE_CANCELED", "Canceled by the caller.", ctx);
  }
  // Running, or starting: the worker checks for the request before anything else.
  const after = await s.self.wait(id, CANCEL_WAIT_SECONDS, options);
  // The worker stopped for input before it saw the request: nothing runs now, so the
  // agent is told here (the request still holds, so no reply got in meanwhile).
  return isInterrupted(after.status.state) ? await cancelRemote(after) : after;
}
