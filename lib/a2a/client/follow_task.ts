/**
 * Following one turn of a remote task to its end: send the message over a stream when the
 * card offers one (falling back to polling only when the stream breaks or closes early),
 * else send it and poll; all within one deadline.
 * @module
 */
import { type Clock, ObservalError } from "../../core/mod.ts";
import { joinMessages, type RemoteSnapshot } from "../normalize.ts";
import { checkCollected, DEFAULT_REMOTE_LIMITS, type RemoteLimits } from "../remote_limits.ts";
import { isFinal, isInterrupted } from "../task.ts";
import type { RemoteClient, RemoteMessageInput } from "./remote_client.ts";
import { RemoteRefusalError, TransientRemoteError } from "./remote_errors.ts";

/** Pauses and patience while following a task; each has a default for real agents. */
export interface FollowTiming {
  /**
   * The pause before the second GetTask call (the first goes out at once); each next one
   * doubles. @default 50
   */
  firstPollMs?: number;
  /** The longest pause between GetTask calls. @default 2000 */
  maxPollMs?: number;
  /**
   * How long a stream may stay silent before the task is checked with GetTask on the
   * side (the stream itself stays open). @default 30_000
   */
  streamCheckMs?: number;
  /** How long transient failures while polling are retried before giving up. @default 120_000 */
  retryForMs?: number;
  /** The first pause before such a retry; each next one doubles, up to 8 s. @default 250 */
  firstRetryMs?: number;
}

/** The interrupted status a reply answers, so seeing it again is not taken as news. */
export interface AnsweredStatus {
  /** The id of the question's message, when it had one. */
  messageId?: string;
  /** The status timestamp the agent gave the question, when it gave one. */
  timestamp?: string;
}

/** Options for {@linkcode followRemoteTask}. */
export interface FollowOptions {
  client: RemoteClient;
  /**
   * What to send: the brief, or the reply with the remote ids. Left out when another
   * process sent it and this one takes over: then `follow` is the remote task to follow.
   */
  input?: RemoteMessageInput;
  /** The remote task to follow, by polling, without sending anything. */
  follow?: string;
  /** How long the whole turn may take, streams included. */
  timeoutMs: number;
  /** The limit the message names, when part of it passed before: @default timeoutMs */
  fullTimeoutMs?: number;
  clock: Clock;
  /** Stops following (a cancel request); the promise then rejects with its reason. */
  signal?: AbortSignal;
  /** Receives every new view of the task, in order, so it can be saved. */
  onSnapshot(snapshot: RemoteSnapshot): void;
  /** Set when `input` answers a question. */
  answered?: AnsweredStatus;
  /** Checked again on every combined view. @default {@linkcode DEFAULT_REMOTE_LIMITS} */
  limits?: RemoteLimits;
  timing?: FollowTiming;
  /**
   * Told about each transient failure that will be retried: the pause before the next
   * try, and when the retries end (the retry window or the deadline, whichever is first).
   */
  onRetry?(error: ObservalError, delayMs: number, until: Date): void;
}

/**
 * Sends `input` and follows the task until it is final (terminal, or waiting for input or
 * auth) within `timeoutMs`.
 *
 * With a streaming card the message goes over a stream, and every event is a new view. A
 * silent stream is kept open however long it stays silent: some agents abort their work
 * when the connection closes. Instead, after `streamCheckMs` of silence the task is
 * checked with GetTask on the side, and a final answer there ends the turn. Only a
 * stream that breaks, or closes before the task is final, gives way to polling. Without
 * streaming the message is sent and the task polled: once at once, then with pauses from
 * `firstPollMs` doubling up to `maxPollMs`. While polling, transient failures (unreachable, timeouts, HTTP 5xx and 429)
 * are retried with doubling pauses for up to `retryForMs`.
 *
 * Views are combined as they come: the newest state and status win, artifacts are kept
 * until a view carries others, and the agent's messages accumulate without repeats.
 *
 * @param options The client, the message, the deadline and where views go.
 * @returns The final view.
 * @throws {RemoteRefusalError} `deadline` when `timeoutMs` passes; `limit`, `identity` or
 *   `state` when the agent sends what cannot be accepted.
 * @throws {ObservalError} when sending fails, or polling keeps failing.
 * @throws The reason of `signal` when it aborts.
 *
 * @example
 * ```ts ignore
 * const last = await followRemoteTask({
 *   client, input: { text: "Summarise the release" }, timeoutMs: 1_800_000,
 *   clock: systemClock, onSnapshot: (snap) => save(snap),
 * });
 * ```
 */
export async function followRemoteTask(options: FollowOptions): Promise<RemoteSnapshot> {
  const { client, clock } = options;
  const limits = options.limits ?? DEFAULT_REMOTE_LIMITS;
  const timing = {
    firstPollMs: 50,
    maxPollMs: 2000,
    streamCheckMs: 30_000,
    retryForMs: 120_000,
    firstRetryMs: 250,
    ...options.timing,
  };
  const stop = new AbortController();
  const outer = options.signal;
  const onOuter = () => stop.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener("abort", onOuter, { once: true });
  const finished = new AbortController();
  const end = clock.now().getTime() + options.timeoutMs;
  clock.sleep(options.timeoutMs, AbortSignal.any([finished.signal, stop.signal])).then(
    () => stop.abort(deadlinePassed(options.fullTimeoutMs ?? options.timeoutMs)),
    () => {/* finished or stopped first */},
  );

  let current: RemoteSnapshot | undefined;
  const see = (incoming: RemoteSnapshot): RemoteSnapshot => {
    const next = combine(current, fresh(incoming, options.answered));
    checkCollected(next, limits);
    current = next;
    options.onSnapshot(next);
    return next;
  };
  const done = (snapshot: RemoteSnapshot | undefined) =>
    snapshot !== undefined && isFinal(snapshot.state);

  try {
    let streamError: unknown;
    if (options.input === undefined) {
      if (options.follow === undefined) throw noTask();
    } else if (client.streaming) {
      streamError = await followStream(
        options,
        options.input,
        timing.streamCheckMs,
        stop.signal,
        see,
        () => current,
      );
    } else {
      see(await client.send(options.input, stop.signal));
    }
    // The first check goes out at once: a quick agent has often finished by the time its
    // answer to the send arrives, and a pause would only be added to the caller's wait.
    let pause = 0;
    while (!done(current)) {
      const taskId = current?.taskId ?? options.follow;
      if (!taskId) throw streamError ?? noTask();
      if (pause > 0) await clock.sleep(pause, stop.signal);
      pause = pause === 0 ? timing.firstPollMs : Math.min(pause * 2, timing.maxPollMs);
      see(
        await retrying(() => client.get(taskId, stop.signal), options, timing, stop.signal, end),
      );
    }
    return current!;
  } catch (err) {
    // Whatever failed because of the deadline or a cancel, report that instead.
    if (stop.signal.aborted) throw stop.signal.reason;
    throw err;
  } finally {
    finished.abort();
    outer?.removeEventListener("abort", onOuter);
  }
}

/**
 * Follows the stream until the task is final (returns undefined), or until the stream
 * breaks or ends first (returns the failure, if any, for the caller to poll instead).
 */
async function followStream(
  options: FollowOptions,
  input: RemoteMessageInput,
  checkMs: number,
  stopped: AbortSignal,
  see: (snapshot: RemoteSnapshot) => RemoteSnapshot,
  current: () => RemoteSnapshot | undefined,
): Promise<unknown> {
  const { client, clock } = options;
  const streamStop = new AbortController();
  const onStop = () => streamStop.abort(stopped.reason);
  stopped.addEventListener("abort", onStop, { once: true });
  const events = client.stream(input, streamStop.signal);
  let next = events.next();
  try {
    for (;;) {
      const quiet = new AbortController();
      const silence = clock.sleep(checkMs, AbortSignal.any([quiet.signal, stopped])).then(
        () => "silent" as const,
        () => "stopped" as const,
      );
      const step = await Promise.race([
        next.then((result) => ({ result }), (error: unknown) => ({ error })),
        silence,
      ]);
      quiet.abort();
      if (step === "stopped") throw stopped.reason;
      if (step === "silent") {
        // Silence alone never closes the stream: look at the task beside it.
        const taskId = current()?.taskId;
        if (taskId === undefined) continue;
        try {
          const side = see(await client.get(taskId, stopped));
          if (isFinal(side.state)) return undefined;
        } catch (err) {
          if (err instanceof RemoteRefusalError || stopped.aborted) throw err;
          // A failed look beside a live stream changes nothing; the stream goes on.
        }
        continue;
      }
      if ("error" in step) {
        if (step.error instanceof RemoteRefusalError || stopped.aborted) throw step.error;
        return step.error;
      }
      if (step.result.done) return undefined;
      if (isFinal(see(step.result.value).state)) return undefined;
      next = events.next();
    }
  } finally {
    stopped.removeEventListener("abort", onStop);
    // Closes the connection; a pending read then fails, and is not waited for.
    streamStop.abort(new Error("Stopped following the stream"));
    next.catch(() => {});
    events.return(undefined).catch(() => {});
  }
}

/**
 * Runs one GetTask, retrying transient failures with doubling pauses until `retryForMs`
 * has passed since the first of them.
 */
async function retrying<T>(
  call: () => Promise<T>,
  options: FollowOptions,
  timing: Required<FollowTiming>,
  signal: AbortSignal,
  deadline: number,
): Promise<T> {
  let firstFailure: number | undefined;
  let pause = timing.firstRetryMs;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof TransientRemoteError) || signal.aborted) throw err;
      const now = options.clock.now().getTime();
      firstFailure ??= now;
      if (now - firstFailure + pause > timing.retryForMs) throw err;
      const until = Math.min(firstFailure + timing.retryForMs, deadline);
      options.onRetry?.(err, pause, new Date(until));
      await options.clock.sleep(pause, signal);
      pause = Math.min(pause * 2, 8000);
    }
  }
}

/**
 * A view that shows the very question a reply answers is not news: the agent has not read
 * the reply yet. It is reported as still working.
 */
function fresh(snapshot: RemoteSnapshot, answered: AnsweredStatus | undefined): RemoteSnapshot {
  if (answered === undefined || !isInterrupted(snapshot.state)) return snapshot;
  const id = snapshot.message?.messageId;
  const same = id
    ? id === answered.messageId
    : snapshot.timestamp !== undefined && snapshot.timestamp === answered.timestamp;
  if (!same) return snapshot;
  const { message: _question, ...rest } = snapshot;
  return { ...rest, state: "TASK_STATE_WORKING" };
}

/** The newest view over the older one: see {@linkcode followRemoteTask}. */
function combine(older: RemoteSnapshot | undefined, newer: RemoteSnapshot): RemoteSnapshot {
  if (older === undefined) return newer;
  const out: RemoteSnapshot = {
    ...newer,
    messages: joinMessages(older.messages, newer.messages),
  };
  out.taskId ??= older.taskId;
  out.contextId ??= older.contextId;
  if (!newer.artifacts?.length && older.artifacts?.length) out.artifacts = older.artifacts;
  return out;
}

function deadlinePassed(ms: number): RemoteRefusalError {
  const seconds = Math.round(ms / 100) / 10;
  return new RemoteRefusalError(
    "deadline",
    `Timed out after ${seconds} seconds: the remote agent did not finish in time`,
    {
      remediation: "Delegate again with a longer --timeout if the agent needs more time, or " +
        "ask the agent's owner why it takes so long",
    },
  );
}

function noTask(): ObservalError {
  return new ObservalError("NETWORK", "The remote agent returned no task to follow", {
    remediation: "Ask the agent's owner to check that the agent answers with a task",
  });
}
