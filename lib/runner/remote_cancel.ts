/**
 * Cancelling a remote task where no run follows it: one waiting for input, one whose
 * worker is gone, or one nobody will follow any more. A run that follows its task cancels
 * through {@linkcode cancelWith} too.
 * @module
 */
import type { Task } from "../a2a/mod.ts";
import { errorMessage } from "../core/mod.ts";
import type { RemoteClient } from "../a2a/client/mod.ts";
import { approvedEndpoint, clientFor } from "./remote_endpoint.ts";
import { settle } from "./task_ops.ts";
import type { RemoteRunDeps } from "./remote_run.ts";

/** How long the agent is given to take a cancel sent for a local reason. */
export const LOCAL_CANCEL_MS = 5000;
/** How long the agent is given to take a cancel the caller asked for. */
const CALLER_CANCEL_MS = 10_000;

/** Tells the remote agent to cancel and settles the task as canceled either way. */
export async function cancelWith(
  deps: RemoteRunDeps,
  client: RemoteClient,
  task: Task,
): Promise<Task> {
  const remoteId = task.metadata.observal.remoteTaskId;
  let text = "Canceled by the caller.";
  if (remoteId) {
    try {
      await client.cancel(remoteId, AbortSignal.timeout(CALLER_CANCEL_MS));
    } catch (err) {
      text = `Canceled by the caller, but the remote agent did not confirm: ${errorMessage(err)}`;
    }
  }
  deps.store.clearCancel(task.id);
  return settle(deps.store, task.id, "TASK_STATE_CANCELED", text, deps.ctx);
}

/** Cancels a remote task that waits for input (no worker runs for it). */
export async function cancelRemote(deps: RemoteRunDeps, task: Task): Promise<Task> {
  let endpoint;
  try {
    endpoint = await approvedEndpoint(deps, task);
  } catch (err) {
    endpoint = { refused: errorMessage(err) };
  }
  if ("refused" in endpoint) {
    // Credentials never go to an agent that lost approval, so it is not told.
    return settle(
      deps.store,
      task.id,
      "TASK_STATE_CANCELED",
      `Canceled by the caller, but the remote agent was not told: ${endpoint.refused}.`,
      deps.ctx,
    );
  }
  let client: RemoteClient;
  try {
    client = clientFor(deps, endpoint);
  } catch (err) {
    return settle(
      deps.store,
      task.id,
      "TASK_STATE_CANCELED",
      `Canceled by the caller, but the remote agent was not told: ${errorMessage(err)}.`,
      deps.ctx,
    );
  }
  return await cancelWith(deps, client, task);
}

/**
 * Asks the agent to stop a task nobody will follow any more (its worker could not be
 * started), as far as it can be asked: a failure is only logged.
 */
export async function abandonRemote(deps: RemoteRunDeps, task: Task): Promise<void> {
  const remoteId = task.metadata.observal.remoteTaskId;
  if (!remoteId) return;
  try {
    const endpoint = await approvedEndpoint(deps, task);
    if ("refused" in endpoint) return; // credentials never go to an agent that lost approval
    await clientFor(deps, endpoint).cancel(remoteId, AbortSignal.timeout(LOCAL_CANCEL_MS));
  } catch (err) {
    deps.ctx.io.stderr.write(`the remote agent did not take the cancel: ${errorMessage(err)}\n`);
  }
}
