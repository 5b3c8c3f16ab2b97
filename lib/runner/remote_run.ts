/**
 * Runs a remote A2A task inside its worker: check approval again, pass the endpoint
 * through the SSRF gate, send the brief (or the reply) to the pinned endpoint, then follow
 * the task over a stream when the card offers one, else by polling, until it is final or
 * its deadline passes. Input-required ends the worker; `reply` starts a new one. A caller
 * that runs the task itself while it waits hands it over when it stops waiting: the
 * worker it starts then follows the remote task without sending anything.
 * @module
 */
import {
  CHANGES_MEDIA_TYPE,
  DIRECT_RESULT_ARTIFACT,
  isFinal,
  type Message,
  type Part,
  remoteLimits,
  RemoteRefusalError,
  type RemoteSnapshot,
  REPO_STATE_EXTENSION,
  repoStateMessage,
  type Task,
} from "../a2a/mod.ts";
import { type AnsweredStatus, followRemoteTask, type FollowTiming } from "../a2a/client/mod.ts";
import { type Context, errorMessage, isoSeconds, ObservalError } from "../core/mod.ts";
import { join, nodeProcess, readText, startTimer, writeText } from "../core/system/mod.ts";
import type { Requester, Resolve } from "../net/mod.ts";
import type { EntryDocument, RegistryClient } from "../registry/mod.ts";
import type { TaskStore } from "../store/mod.ts";
import { approvedEndpoint, clientFor } from "./remote_endpoint.ts";
import { cancelWith, LOCAL_CANCEL_MS } from "./remote_cancel.ts";
import { agentMessage, markChanged, settle } from "./task_ops.ts";
import { workerLog } from "./worker_process.ts";
import { dropRepoState, loadRepoState } from "./sent_repo_state.ts";

/** The artifact a served observal Agent returns its edits in. */
const PATCH_ARTIFACT = "changes.patch";

/** How often a running worker looks for a cancel request. */
const CANCEL_CHECK_MS = 200;
/** Longest a remote task may run. */
export const REMOTE_TIMEOUT_MS = 30 * 60 * 1000;
/**
 * How often a stream of small updates is written to the store: every change of state is
 * written at once, the rest at most this often, so a flood of events costs no flood of
 * writes.
 */
const SAVE_EVERY_MS = 250;
/** A test-only variable: when set, a run logs its process's peak resident memory at the end. */
const PEAK_RSS_VARIABLE = "OBSERVAL_TEST_PEAK_RSS";

/** What a remote run needs; the network seams default to the real ones. */
export interface RemoteRunDeps {
  ctx: Context;
  store: TaskStore;
  registry: () => RegistryClient;
  /**
   * Resolves endpoint host names. @default the pairs in `OBSERVAL_A2A_RESOLVE`, then the
   * system resolver
   */
  resolve?: Resolve;
  /** Performs each HTTP request to the agent. @default hostRequest */
  request?: Requester;
  /** Pauses and patience while following; tests shorten them. */
  timing?: FollowTiming;
}

/** Options for one {@linkcode runRemote}. */
export interface RemoteRunOptions {
  /**
   * The target's entry, as the caller read it a moment ago while starting the task; else
   * it is read from the registry.
   */
  entry?: EntryDocument;
  /**
   * Aborts when the caller running the task itself stops waiting. The run then returns
   * the task still working, as soon as the remote task's id is saved, for a worker to
   * follow. A send still in flight is given `handoverMs` to be answered; then it is
   * dropped and the worker sends the brief again, with the same message id.
   */
  handover?: AbortSignal;
  /** How long a handover waits for a send in flight. @default 0 */
  handoverMs?: number;
}

/** What this run has learned, for folding snapshots into the stored task. */
interface Turn {
  /** How many of the follow's messages have been looked at. */
  seen: number;
  /** Ids of the messages the task's history holds. */
  known: Set<string>;
  /** The agent's last message of this turn, if it said anything. */
  last?: Message;
}

/** Folds a remote snapshot into our task; returns the stored task. */
function merge(deps: RemoteRunDeps, id: string, snap: RemoteSnapshot, turn: Turn): Task {
  // New to the task: an agent's history also repeats what earlier turns said.
  const said = snap.messages.slice(turn.seen).filter((m) => !turn.known.has(m.messageId));
  turn.seen = snap.messages.length;
  for (const m of said) if (m.messageId !== "") turn.known.add(m.messageId);
  turn.last = said.at(-1) ?? turn.last;
  const patchPath = snap.state === "TASK_STATE_COMPLETED"
    ? keepPatch(deps.store.taskDir(id), snap.artifacts)
    : undefined;
  const { task, changed } = deps.store.update(id, (t) => {
    const meta = { ...t.metadata.observal };
    if (patchPath) meta.patchPath = patchPath;
    if (snap.taskId) meta.remoteTaskId = snap.taskId;
    if (snap.contextId) meta.remoteContextId = snap.contextId;
    if (snap.timestamp) meta.remoteStatusTimestamp = snap.timestamp;
    delete meta.retrying; // it answered
    // The agent's own words stay its status line; the worker's log is where ours are.
    if (snap.state === "TASK_STATE_FAILED") meta.logPath = workerLog(deps.store.taskDir(t.id));
    const ours = (m: Message): Message => ({ ...m, taskId: t.id, contextId: t.contextId });
    const history = withoutRepeats([...(t.history ?? []), ...said.map(ours)]);
    // Settling or stopping without a word: what the agent last said is its answer.
    const spoken = snap.message ?? (isFinal(snap.state) ? turn.last : undefined);
    const message = spoken ? ours(spoken) : isFinal(snap.state) ? undefined : t.status.message;
    let artifacts = snap.artifacts && snap.artifacts.length > 0 ? snap.artifacts : t.artifacts;
    if (snap.state === "TASK_STATE_COMPLETED" && !artifacts?.length && turn.last) {
      artifacts = [{
        artifactId: DIRECT_RESULT_ARTIFACT,
        name: DIRECT_RESULT_ARTIFACT,
        parts: turn.last.parts,
      }];
    }
    return {
      ...t,
      history,
      status: { state: snap.state, timestamp: isoSeconds(deps.ctx.clock.now()), message },
      artifacts,
      metadata: { ...t.metadata, observal: meta },
    };
  });
  return changed ? markChanged(deps.store, task) : task;
}

/**
 * Writes a whole `changes.patch` artifact (as a served observal Agent returns one) to the
 * task folder, where a local run keeps its patch; returns its path.
 */
function keepPatch(dir: string, artifacts: RemoteSnapshot["artifacts"]): string | undefined {
  const artifact = artifacts?.find((a) => a.name === PATCH_ARTIFACT);
  const part = artifact?.parts.length === 1 ? artifact.parts[0] : undefined;
  if (
    !part || typeof part.text !== "string" || part.mediaType !== CHANGES_MEDIA_TYPE ||
    artifact?.metadata?.truncated === true || part.text === ""
  ) return undefined;
  const path = join(dir, PATCH_ARTIFACT);
  writeText(path, part.text);
  return path;
}

/** The history with later copies of a message (same non-empty id) left out. */
function withoutRepeats(history: Message[]): Message[] {
  const seen = new Set<string>();
  return history.filter((m) => {
    if (m.messageId === "") return true;
    if (seen.has(m.messageId)) return false;
    seen.add(m.messageId);
    return true;
  });
}

/** `message. remediation`, as a status line. */
function failureText(err: unknown): string {
  if (err instanceof ObservalError) {
    return [err.message, err.remediation].filter(Boolean).join(". ") + ".";
  }
  return `The remote run failed: ${errorMessage(err)}.`;
}

/**
 * A worker's run of one remote task. Leaves the task final or settled, unless
 * `options.handover` took it from this run first.
 */
export async function runRemote(
  deps: RemoteRunDeps,
  initial: Task,
  options: RemoteRunOptions = {},
): Promise<Task> {
  try {
    const task = await run(deps, initial, options);
    // A state sent with the brief is not needed once the task has ended.
    if (isFinal(task.status.state)) dropRepoState(deps.store.taskDir(task.id));
    return task;
  } finally {
    if (deps.ctx.env[PEAK_RSS_VARIABLE]) deps.ctx.io.stderr.write(`peak_rss_kb ${peakRssKb()}\n`);
  }
}

/**
 * This process's peak resident memory in KiB. On Linux from /proc (VmHWM), which counts
 * from the process's own start: getrusage's maxrss carries a parent's peak over exec, so a
 * command spawned by a large process would report that process's memory. Elsewhere, and
 * where /proc may not be read (a fenced worker), getrusage.
 */
function peakRssKb(): number {
  try {
    const hwm = /^VmHWM:\s*(\d+) kB$/m.exec(readText("/proc/self/status"))?.[1];
    if (hwm) return Number(hwm);
  } catch { /* no /proc here, or not allowed */ }
  return nodeProcess().resourceUsage().maxRSS;
}

async function run(deps: RemoteRunDeps, initial: Task, options: RemoteRunOptions): Promise<Task> {
  const { store, ctx } = deps;
  const id = initial.id;
  // A reply is A2A parts (text, data); a store written by an older version may hold text.
  const reply: string | Part[] | undefined = store.takeReply(id);
  const endpoint = await approvedEndpoint(deps, initial, options.entry);
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
  const client = clientFor(deps, endpoint);
  if (store.cancelRequested(id)) return await cancelWith(deps, client, initial);

  const meta = initial.metadata.observal;
  // Sent already, by the caller this worker takes over from: follow it, send nothing.
  const takeOver = reply === undefined && meta.remoteTaskId !== undefined;
  let parts = reply === undefined
    ? initial.history?.[0]?.parts ?? [{ text: "" }]
    : typeof reply === "string"
    ? [{ text: reply }]
    : reply;
  // The brief goes with the caller's repository state when one was captured at the start.
  const state = reply === undefined && !takeOver ? loadRepoState(store.taskDir(id)) : undefined;
  const withState = state ? repoStateMessage(state) : undefined;
  if (withState) parts = [...parts, ...withState.parts];
  // Sent again after a handover, or a reply: the id the history gave it, so the agent can
  // tell a resend from a new message.
  const messageId = reply === undefined
    ? initial.history?.[0]?.messageId
    : initial.history?.findLast((m) => m.role === "ROLE_USER")?.messageId;
  // The question this reply answers (reply() records it in the history).
  const answered: AnsweredStatus | undefined = reply === undefined ? undefined : {
    messageId: initial.history?.findLast((m) => m.role === "ROLE_AGENT")?.messageId,
    timestamp: typeof meta.remoteStatusTimestamp === "string"
      ? meta.remoteStatusTimestamp
      : undefined,
  };
  // Handed over before anything was sent: the worker sends it.
  if (options.handover?.aborted && reply === undefined && !takeOver) return store.require(id);
  let task = takeOver ? initial : store.update(id, (t) => ({
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
  const fullMs = (meta.timeoutSeconds ?? REMOTE_TIMEOUT_MS / 1000) * 1000;
  let limitMs = fullMs;
  // The first turn began when the task was started, whoever sends or follows it now
  // (counted from the end of the second createdAt names, so never cut short).
  if (reply === undefined) {
    limitMs -= Math.max(0, ctx.clock.now().getTime() - Date.parse(meta.createdAt) - 999);
  }

  const turn: Turn = {
    seen: 0,
    known: new Set((initial.history ?? []).map((m) => m.messageId).filter((m) => m !== "")),
  };
  let pending: RemoteSnapshot | undefined;
  let savedAt = 0;
  const save = () => {
    if (pending === undefined) return;
    task = merge(deps, id, pending, turn);
    pending = undefined;
    savedAt = ctx.clock.now().getTime();
  };
  const canceled = new Error("Canceled by the caller");
  const handedOver = new Error("Handed over to a worker");
  const stop = new AbortController();
  // A handover waits a little for the remote task's id, so the worker can follow what was
  // sent; past that, the send is dropped and the worker sends it again.
  let handoverDue = false;
  let dropSend = () => {};
  const sentId = () => pending?.taskId ?? task.metadata.observal.remoteTaskId;
  const handOver = () => {
    if (sentId() !== undefined) return stop.abort(handedOver);
    handoverDue = true;
    dropSend = startTimer(options.handoverMs ?? 0, () => stop.abort(handedOver));
  };
  if (options.handover?.aborted) handOver();
  else options.handover?.addEventListener("abort", handOver, { once: true });
  let unwatch = () => {};
  const watch = () => {
    unwatch = startTimer(CANCEL_CHECK_MS, () => {
      if (store.cancelRequested(id)) stop.abort(canceled);
      else watch();
    });
  };
  watch();
  try {
    await followRemoteTask({
      client,
      input: takeOver ? undefined : {
        parts,
        taskId: meta.remoteTaskId,
        contextId: meta.remoteContextId,
        messageId,
        ...withState ? { metadata: withState.metadata, extensions: [REPO_STATE_EXTENSION] } : {},
      },
      follow: takeOver ? meta.remoteTaskId : undefined,
      timeoutMs: limitMs,
      fullTimeoutMs: fullMs,
      clock: ctx.clock,
      signal: stop.signal,
      answered,
      limits: remoteLimits(ctx.env),
      timing: deps.timing,
      onSnapshot: (snap) => {
        const stateChanged = snap.state !== (pending ?? task.status).state;
        pending = snap;
        const due = ctx.clock.now().getTime() - savedAt >= SAVE_EVERY_MS;
        if (stateChanged || isFinal(snap.state) || due) save();
        if (handoverDue && sentId() !== undefined) {
          save();
          stop.abort(handedOver);
        }
      },
      onRetry: (err, ms, until) => {
        ctx.io.stderr.write(`retrying in ${ms} ms after a transient failure: ${err.message}\n`);
        save();
        task = markRetrying(deps, id, err.message, until);
      },
    });
    save();
    return task;
  } catch (err) {
    save();
    if (err === handedOver) return task;
    if (err === canceled) return await cancelWith(deps, client, store.require(id));
    const remoteId = store.require(id).metadata.observal.remoteTaskId;
    // Stopped for a reason of ours while the agent may still be at work: tell it to stop.
    if (err instanceof RemoteRefusalError && remoteId) {
      await client.cancel(remoteId, AbortSignal.timeout(LOCAL_CANCEL_MS)).catch((e) =>
        ctx.io.stderr.write(`the remote agent did not take the cancel: ${errorMessage(e)}\n`)
      );
    }
    ctx.io.stderr.write(`${errorMessage(err)}\n`);
    return settle(store, id, "TASK_STATE_FAILED", failureText(err), ctx, {
      log: workerLog(store.taskDir(id)),
    });
  } finally {
    unwatch();
    dropSend();
    options.handover?.removeEventListener("abort", handOver);
  }
}

/** Records that the agent is not answering and is retried until `until`. */
function markRetrying(deps: RemoteRunDeps, id: string, reason: string, until: Date): Task {
  const { task, changed } = deps.store.update(id, (t) =>
    isFinal(t.status.state) ? undefined : {
      ...t,
      metadata: {
        ...t.metadata,
        observal: {
          ...t.metadata.observal,
          retrying: { reason, until: isoSeconds(until) },
        },
      },
    });
  return changed ? markChanged(deps.store, task) : task;
}
