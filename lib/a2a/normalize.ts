/**
 * What a remote agent answered, in the v1.0 form observal stores, whichever protocol
 * version (v1.0 or v0.3) it speaks: {@linkcode normalizeResult} for one JSON-RPC result,
 * {@linkcode mergeEvent} to fold streamed events into one snapshot. Answers that cannot
 * be trusted (another task's id, a state A2A does not define) are refused here.
 * @module
 */
import { ObservalError } from "../core/mod.ts";
import { RemoteRefusalError } from "./client/remote_errors.ts";
import {
  type CoreStreamResponse,
  toCoreArtifact,
  toCoreMessage,
  toCorePart,
  toCoreParts,
  toCoreState,
  toCoreStreamResponse,
} from "./compat/v0_3/mod.ts";
import type { Artifact, Message, Part, TaskState } from "./task.ts";

/** The state of a remote task as last seen, in v1.0 form. */
export interface RemoteSnapshot {
  /** The remote task id; absent for a direct answer that named no task. */
  taskId?: string;
  contextId?: string;
  state: TaskState;
  /** The status message (e.g. the agent's question when input is required). */
  message?: Message;
  /** When the agent says the status was set, as it wrote it. */
  timestamp?: string;
  /** The task's artifacts; absent when the result carried none. */
  artifacts?: Artifact[];
  /**
   * Every agent message seen, oldest first, without repeats: those carried by status
   * updates and status messages, and the agent's messages in a returned task history.
   */
  messages: Message[];
  /** The agent answered with a Message instead of a Task. */
  direct: boolean;
}

/** The id given to the artifact that holds a direct Message answer. */
export const DIRECT_RESULT_ARTIFACT = "result";

/**
 * A task state of either version as a v1.0 `TASK_STATE_*` name: v1.0 names are kept,
 * v0.3 names (`input-required`, `cancelled`, any case) are mapped, and empty means
 * SUBMITTED.
 *
 * @param value The state as received.
 * @returns A v1.0 state.
 * @throws {RemoteRefusalError} `state`, naming the value, for anything else (including
 *   v0.3 `unknown` and v1.0 `TASK_STATE_UNSPECIFIED`).
 *
 * @example
 * ```ts
 * normalizeState("input-required"); // "TASK_STATE_INPUT_REQUIRED"
 * normalizeState("Cancelled"); // "TASK_STATE_CANCELED"
 * ```
 */
export function normalizeState(value: unknown): TaskState {
  const state = toCoreState(value);
  if (state !== undefined) return state;
  const shown = JSON.stringify(value)?.slice(0, 80) ?? String(value);
  throw new RemoteRefusalError(
    "state",
    `The remote agent reported the task state ${shown}, which A2A does not define`,
    {
      remediation: "The task was not followed further. Ask the agent's owner to report one " +
        "of the A2A task states (submitted, working, input-required, auth-required, " +
        "completed, failed, canceled, rejected)",
    },
  );
}

/**
 * A part of either version as a v1.0 part (`kind` dropped, v0.3 files flattened to
 * `url` or `raw`, unknown kinds kept whole as data).
 *
 * @param value The part as received.
 * @returns The v1.0 part, or `undefined` when `value` is not an object.
 *
 * @example
 * ```ts
 * normalizePart({ kind: "file", file: { uri: "https://x.test/a.pdf", mimeType: "application/pdf" } });
 * // {url: "https://x.test/a.pdf", mediaType: "application/pdf"}
 * ```
 */
export function normalizePart(value: unknown): Part | undefined {
  return toCorePart(value);
}

/**
 * A message of either version as a v1.0 message (`ROLE_USER` / `ROLE_AGENT`, parts
 * normalised).
 *
 * @param value The message as received.
 * @returns The v1.0 message, or `undefined` when `value` is not an object.
 */
export function normalizeMessage(value: unknown): Message | undefined {
  return toCoreMessage(value);
}

/**
 * The result of SendMessage, GetTask or CancelTask (or their v0.3 counterparts) as a
 * snapshot. A Task, bare or wrapped as `{task}`, keeps its state, status message,
 * artifacts and the agent's messages; a Message (`{message}`, `kind: "message"`, or parts
 * without a status) is a direct answer: COMPLETED, with its parts in a `result` artifact.
 *
 * @param result The JSON-RPC `result` member.
 * @param heldTaskId The task this call was about, if any: a result naming another is
 *   refused.
 * @returns The snapshot.
 * @throws {ObservalError} `NETWORK` when the result is not an object.
 * @throws {RemoteRefusalError} `identity` when it names another task; `state` when its
 *   state is not an A2A state.
 *
 * @example
 * ```ts
 * normalizeResult({ kind: "task", id: "t1", contextId: "c1", status: { state: "working" } });
 * // {taskId: "t1", contextId: "c1", state: "TASK_STATE_WORKING", messages: [], direct: false}
 * ```
 */
export function normalizeResult(result: unknown, heldTaskId?: string): RemoteSnapshot {
  const base: RemoteSnapshot | undefined = heldTaskId === undefined
    ? undefined
    : { taskId: heldTaskId, state: "TASK_STATE_SUBMITTED", messages: [], direct: false };
  const event = classify(result);
  if ("message" in event) {
    checkIdentity(base, event.message.taskId);
    return fromMessage(event.message);
  }
  if ("task" in event) {
    checkIdentity(base, event.task.id);
    return fromTask(event.task);
  }
  // A status or artifact event where a result was expected: fold it into an empty task.
  return mergeEvent(base, result);
}

/**
 * Folds one streamed event into a snapshot. A Task event replaces the state, status
 * message and (when it carries any) the artifacts, and adds its agent messages; a Message
 * event is a direct answer; a status update replaces the state and status message and
 * adds the message to `messages`; an artifact update replaces the artifact with the same
 * id, or with `append` adds its parts to it.
 *
 * @param snapshot The snapshot so far, or `undefined` before the first event.
 * @param event The `result` of one streamed JSON-RPC response, v1.0 or v0.3.
 * @returns A new snapshot; the input is not modified.
 * @throws {ObservalError} `NETWORK` when the event is not an object.
 * @throws {RemoteRefusalError} `identity` when the event names another task than the
 *   snapshot's; `state` when its state is not an A2A state.
 *
 * @example
 * ```ts
 * let snap = mergeEvent(undefined, { task: { id: "t1", status: { state: "TASK_STATE_SUBMITTED" } } });
 * snap = mergeEvent(snap, { statusUpdate: { taskId: "t1", status: { state: "TASK_STATE_COMPLETED" } } });
 * snap.state; // "TASK_STATE_COMPLETED"
 * ```
 */
export function mergeEvent(snapshot: RemoteSnapshot | undefined, event: unknown): RemoteSnapshot {
  const base: RemoteSnapshot = snapshot ??
    { state: "TASK_STATE_SUBMITTED", messages: [], direct: false };
  const parsed = classify(event);
  if ("task" in parsed) {
    checkIdentity(snapshot, parsed.task.id);
    const next = fromTask(parsed.task);
    if (next.artifacts === undefined && base.artifacts !== undefined) {
      next.artifacts = base.artifacts;
    }
    next.messages = joinMessages(base.messages, next.messages);
    return next;
  }
  if ("message" in parsed) {
    checkIdentity(snapshot, parsed.message.taskId);
    const next = fromMessage(parsed.message);
    next.taskId ??= base.taskId;
    next.contextId ??= base.contextId;
    next.messages = base.messages;
    return next;
  }
  if ("statusUpdate" in parsed) {
    const update = parsed.statusUpdate;
    checkIdentity(snapshot, update.taskId);
    const status = isRecord(update.status) ? update.status : {};
    const next: RemoteSnapshot = {
      ...ids(update, base),
      state: normalizeState(status.state),
      messages: base.messages,
      direct: false,
    };
    if (typeof status.timestamp === "string") next.timestamp = status.timestamp;
    const message = toCoreMessage(status.message);
    if (message) {
      next.message = message;
      if (message.role === "ROLE_AGENT") next.messages = joinMessages(base.messages, [message]);
    }
    if (base.artifacts) next.artifacts = base.artifacts;
    return next;
  }
  const update = parsed.artifactUpdate;
  checkIdentity(snapshot, update.taskId);
  const next: RemoteSnapshot = { ...base, ...ids(update, base) };
  const incoming = toCoreArtifact(update.artifact, `artifact-${base.artifacts?.length ?? 0}`);
  if (incoming) next.artifacts = upsertArtifact(base.artifacts ?? [], incoming, update.append);
  return next;
}

/**
 * `messages` followed by those of `more` it does not hold yet. A message is held when one
 * with the same non-empty `messageId` is; one without an id is held when it equals the
 * last message held (a status re-read while polling).
 *
 * @param messages Messages so far, oldest first.
 * @param more Messages to add, oldest first.
 * @returns A new array, or `messages` itself when nothing was added.
 */
export function joinMessages(messages: readonly Message[], more: readonly Message[]): Message[] {
  let out: Message[] | undefined;
  for (const message of more) {
    const list = out ?? messages;
    if (holds(list, message)) continue;
    out ??= [...messages];
    out.push(message);
  }
  return out ?? (messages as Message[]);
}

function holds(list: readonly Message[], message: Message): boolean {
  if (message.messageId !== "") return list.some((m) => m.messageId === message.messageId);
  const last = list.at(-1);
  return last !== undefined && JSON.stringify(last) === JSON.stringify(message);
}

/** A non-empty task id that differs from the one held is another task's answer. */
function checkIdentity(held: RemoteSnapshot | undefined, named: unknown): void {
  const heldId = held?.taskId;
  if (heldId === undefined || typeof named !== "string" || named === "" || named === heldId) {
    return;
  }
  const shown = named.length > 100 ? `${named.slice(0, 100)}…` : named;
  throw new RemoteRefusalError(
    "identity",
    `The remote agent answered about task ${JSON.stringify(shown)} while following task ${
      JSON.stringify(heldId)
    }`,
    {
      remediation: "The answer was not followed. Ask the agent's owner to check the agent, " +
        "then delegate again",
    },
  );
}

function classify(value: unknown): CoreStreamResponse {
  if (!isRecord(value)) {
    throw new ObservalError("NETWORK", "The remote agent answered without a task or a message", {
      remediation: "Try again later, or ask the agent's owner to check the agent",
    });
  }
  const tagged = toCoreStreamResponse(value);
  if (tagged) return tagged;
  if (isRecord(value.task)) return { task: value.task };
  if (isRecord(value.message) && value.status === undefined) return { message: value.message };
  if (isRecord(value.statusUpdate)) return { statusUpdate: value.statusUpdate };
  if (isRecord(value.artifactUpdate)) return { artifactUpdate: value.artifactUpdate };
  // Untagged bare objects: tell them apart by the members only each one has.
  if (value.status === undefined && Array.isArray(value.parts)) return { message: value };
  if (isRecord(value.artifact) && value.status === undefined) return { artifactUpdate: value };
  if (isRecord(value.status) && value.id === undefined && typeof value.taskId === "string") {
    return { statusUpdate: value };
  }
  return { task: value };
}

function fromTask(task: Record<string, unknown>): RemoteSnapshot {
  const status = isRecord(task.status) ? task.status : {};
  const snapshot: RemoteSnapshot = {
    state: normalizeState(status.state),
    messages: [],
    direct: false,
  };
  if (typeof task.id === "string" && task.id !== "") snapshot.taskId = task.id;
  if (typeof task.contextId === "string" && task.contextId !== "") {
    snapshot.contextId = task.contextId;
  }
  if (typeof status.timestamp === "string") snapshot.timestamp = status.timestamp;
  const message = toCoreMessage(status.message);
  if (message) snapshot.message = message;
  if (Array.isArray(task.artifacts)) {
    snapshot.artifacts = task.artifacts
      .map((a, i) => toCoreArtifact(a, `artifact-${i}`))
      .filter((a): a is Artifact => a !== undefined);
  }
  // The agent's side of the history, then the status message (agents keep it there too).
  const history = Array.isArray(task.history)
    ? task.history.map(toCoreMessage).filter((m): m is Message => m?.role === "ROLE_AGENT")
    : [];
  snapshot.messages = joinMessages(
    [],
    message?.role === "ROLE_AGENT" ? [...history, message] : history,
  );
  return snapshot;
}

function fromMessage(message: Record<string, unknown>): RemoteSnapshot {
  const snapshot: RemoteSnapshot = {
    state: "TASK_STATE_COMPLETED",
    artifacts: [{
      artifactId: DIRECT_RESULT_ARTIFACT,
      name: DIRECT_RESULT_ARTIFACT,
      parts: toCoreParts(message.parts),
    }],
    messages: [],
    direct: true,
  };
  if (typeof message.taskId === "string" && message.taskId !== "") {
    snapshot.taskId = message.taskId;
  }
  if (typeof message.contextId === "string" && message.contextId !== "") {
    snapshot.contextId = message.contextId;
  }
  return snapshot;
}

function ids(
  update: Record<string, unknown>,
  base: RemoteSnapshot,
): Pick<RemoteSnapshot, "taskId" | "contextId"> {
  const out: Pick<RemoteSnapshot, "taskId" | "contextId"> = {};
  const taskId = typeof update.taskId === "string" && update.taskId ? update.taskId : base.taskId;
  const contextId = typeof update.contextId === "string" && update.contextId
    ? update.contextId
    : base.contextId;
  if (taskId !== undefined) out.taskId = taskId;
  if (contextId !== undefined) out.contextId = contextId;
  return out;
}

function upsertArtifact(current: Artifact[], incoming: Artifact, append: unknown): Artifact[] {
  const index = current.findIndex((a) => a.artifactId === incoming.artifactId);
  if (index === -1) return [...current, incoming];
  const next = [...current];
  next[index] = append === true
    ? { ...current[index], parts: [...current[index].parts, ...incoming.parts] }
    : incoming;
  return next;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
