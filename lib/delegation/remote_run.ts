/**
 * Runs a remote A2A task inside the worker: check approval again, send the brief (or the
 * reply) to the pinned endpoint, then follow the task over a stream when the card offers
 * one, else by polling, until it is final. Input-required ends the worker; `reply`
 * starts a new one.
 * @module
 */
import {
  type AgentCard,
  type CardInterface,
  createRemoteClient,
  isFinal,
  isInterrupted,
  parseAgentCard,
  partsText,
  type RemoteClient,
  type RemoteSnapshot,
  type Task,
} from "../a2a/mod.ts";
import { type Context, isoSeconds, ObservalError } from "../core/mod.ts";
import type { RegistryClient } from "../registry/mod.ts";
import type { TaskStore } from "../store/mod.ts";
import { agentMessage, markChanged, settle } from "./task_ops.ts";

/** Longest pause between GetTask calls when the agent does not stream. */
export const POLL_MS = 2000;
/** The first pause; each next one doubles up to POLL_MS, so quick answers come quickly. */
const FIRST_POLL_MS = 50;
/** How often a running worker looks for a cancel request. */
const CANCEL_CHECK_MS = 200;
/** Longest a remote task may run. */
export const REMOTE_TIMEOUT_MS = 30 * 60 * 1000;

export interface RemoteRunDeps {
  ctx: Context;
  store: TaskStore;
  registry: () => RegistryClient;
}

/** The pinned endpoint and card, if the entry is still approved and delegable. */
async function approvedEndpoint(
  deps: RemoteRunDeps,
  task: Task,
): Promise<{ iface: CardInterface; card: AgentCard } | { refused: string }> {
  let entry: Record<string, unknown>;
  try {
    entry = await deps.registry().entry(task.metadata.observal.target);
  } catch (err) {
    if (err instanceof ObservalError && err.code === "NOT_FOUND") {
      return { refused: "it was removed from the registry" };
    }
    throw err;
  }
  if (entry["obs:lifecycle"] !== "approved" || entry["obs:delegable"] === false) {
    return { refused: "it is no longer approved" };
  }
  const iface = entry["obs:a2aInterface"] as CardInterface | undefined;
  if (!iface?.url) return { refused: "its approved card has no callable endpoint" };
  return { iface, card: parseAgentCard(entry["obs:agentCard"]) };
}

/**
 * Folds a remote snapshot into our task; returns the stored task. `stale` is the id of the
 * question a reply answered: a non-blocking send may still report that question before the
 * agent has read the reply, and that must not end the worker.
 */
function merge(deps: RemoteRunDeps, id: string, snap: RemoteSnapshot, stale?: string): Task {
  const { task, changed } = deps.store.update(id, (t) => {
    const meta = { ...t.metadata.observal };
    if (snap.taskId) meta.remoteTaskId = snap.taskId;
    if (snap.contextId) meta.remoteContextId = snap.contextId;
    if (stale && isInterrupted(snap.state) && snap.message?.messageId === stale) {
      return { ...t, metadata: { ...t.metadata, observal: meta } };
    }
    const message = snap.message
      ? { ...snap.message, taskId: t.id, contextId: t.contextId }
      : undefined;
    return {
      ...t,
      status: { state: snap.state, timestamp: isoSeconds(deps.ctx.clock.now()), message },
      artifacts: snap.artifacts && snap.artifacts.length > 0 ? snap.artifacts : t.artifacts,
      metadata: { ...t.metadata, observal: meta },
    };
  });
  return changed ? markChanged(deps.store, task) : task;
}

/** Resolves after `ms`, or as soon as a cancel is requested; true when it was. */
async function sleepUnlessCanceled(deps: RemoteRunDeps, id: string, ms: number): Promise<boolean> {
  const end = deps.ctx.clock.now().getTime() + ms;
  for (;;) {
    if (deps.store.cancelRequested(id)) return true;
    const left = end - deps.ctx.clock.now().getTime();
    if (left <= 0) return false;
    await deps.ctx.clock.sleep(Math.min(CANCEL_CHECK_MS, left));
  }
}

/** Tells the remote agent to cancel and settles the task as canceled either way. */
async function cancelWith(deps: RemoteRunDeps, client: RemoteClient, task: Task): Promise<Task> {
  const remoteId = task.metadata.observal.remoteTaskId;
  let text = "Canceled by the caller.";
  if (remoteId) {
    try {
      await client.cancel(remoteId, AbortSignal.timeout(10_000));
    } catch (err) {
      text = `Canceled by the caller, but the remote agent did not confirm: ${errorText(err)}`;
    }
  }
  deps.store.clearCancel(task.id);
  return settle(deps.store, task.id, "TASK_STATE_CANCELED", text, deps.ctx);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Cancels a remote task that waits for input (no worker runs for it). */
export async function cancelRemote(deps: RemoteRunDeps, task: Task): Promise<Task> {
  let endpoint;
  try {
    endpoint = await approvedEndpoint(deps, task);
  } catch (err) {
    endpoint = { refused: errorText(err) };
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
  const client = createRemoteClient({
    iface: endpoint.iface,
    card: endpoint.card,
    env: deps.ctx.env,
    fetch: deps.ctx.fetch,
  });
  return await cancelWith(deps, client, task);
}

/** The worker's run of one remote task. Always leaves the task final or settled. */
export async function runRemote(deps: RemoteRunDeps, initial: Task): Promise<Task> {
  const { store, ctx } = deps;
  const id = initial.id;
  const reply = store.takeReply(id);
  const endpoint = await approvedEndpoint(deps, initial);
  if ("refused" in endpoint) {
    return settle(
      store,
      id,
      "TASK_STATE_REJECTED",
      `${
        initial.metadata.observal.targetName ?? "The agent"
      } can no longer take this task: ${endpoint.refused}.`,
      ctx,
    );
  }
  const client = createRemoteClient({
    iface: endpoint.iface,
    card: endpoint.card,
    env: ctx.env,
    fetch: ctx.fetch,
  });
  if (store.cancelRequested(id)) return await cancelWith(deps, client, initial);

  const meta = initial.metadata.observal;
  const text = reply ?? partsText(initial.history?.[0]?.parts ?? []);
  // The question this reply answers (reply() records it in the history).
  const stale = reply === undefined
    ? undefined
    : initial.history?.findLast((m) => m.role === "ROLE_AGENT")?.messageId;
  const input = { text, taskId: meta.remoteTaskId, contextId: meta.remoteContextId };
  let task = store.update(id, (t) => ({
    ...t,
    status: {
      state: "TASK_STATE_WORKING",
      timestamp: isoSeconds(ctx.clock.now()),
      message: agentMessage(`Sent to ${meta.targetName ?? "the remote agent"}.`, t.id, t.contextId),
    },
    metadata: {
      ...t.metadata,
      observal: { ...t.metadata.observal, remoteUrl: endpoint.iface.url },
    },
  })).task;
  const limitMs = (meta.timeoutSeconds ?? REMOTE_TIMEOUT_MS / 1000) * 1000;
  const deadline = ctx.clock.now().getTime() + limitMs;

  if (client.streaming) {
    const followed = await follow(deps, client, id, input, stale);
    if (followed.task) task = followed.task;
    if (followed.canceled) return await cancelWith(deps, client, store.require(id));
    if (isFinal(task.status.state)) return task;
    if (!task.metadata.observal.remoteTaskId) {
      return settle(
        store,
        id,
        "TASK_STATE_FAILED",
        followed.error ?? "The stream ended early.",
        ctx,
      );
    }
    // The stream broke or closed before the task was final: poll from here.
  } else {
    task = merge(deps, id, await client.send(input), stale);
  }

  let pause = FIRST_POLL_MS;
  while (!isFinal(task.status.state)) {
    const remoteId = task.metadata.observal.remoteTaskId;
    if (!remoteId) {
      return settle(
        store,
        id,
        "TASK_STATE_FAILED",
        "The remote agent returned no task to follow.",
        ctx,
      );
    }
    if (await sleepUnlessCanceled(deps, id, pause)) return await cancelWith(deps, client, task);
    pause = Math.min(pause * 2, POLL_MS);
    if (ctx.clock.now().getTime() > deadline) {
      return settle(
        store,
        id,
        "TASK_STATE_FAILED",
        `Timed out after ${limitMs / 1000} seconds.`,
        ctx,
      );
    }
    task = merge(deps, id, await client.get(remoteId), stale);
  }
  return task;
}

/**
 * Follows the task over the agent's stream, saving every update. A cancel request aborts
 * the stream. Returns what happened instead of throwing, so the caller can fall back.
 */
async function follow(
  deps: RemoteRunDeps,
  client: RemoteClient,
  id: string,
  input: { text: string; taskId?: string; contextId?: string },
  stale: string | undefined,
): Promise<{ task?: Task; canceled?: boolean; error?: string }> {
  const abort = new AbortController();
  let canceled = false;
  const watcher = setInterval(() => {
    if (deps.store.cancelRequested(id)) {
      canceled = true;
      abort.abort();
    }
  }, CANCEL_CHECK_MS);
  let task: Task | undefined;
  try {
    for await (const snap of client.stream(input, abort.signal)) {
      task = merge(deps, id, snap, stale);
      if (isFinal(task.status.state)) break;
    }
    return { task, canceled };
  } catch (err) {
    return { task, canceled, error: canceled ? undefined : errorText(err) };
  } finally {
    clearInterval(watcher);
  }
}
