import type { Part } from "../task.ts";

/** What the caller says: parts or text, and the remote ids when continuing a task. */
export interface RemoteInput {
  parts?: Part[];
  text?: string;
  taskId?: string;
  contextId?: string;
  /** The message's id: the same on a resend, so the agent can tell it is one message. */
  messageId?: string;
  /** The message's metadata (an extension's, keyed by its URI). */
  metadata?: Record<string, unknown>;
  /** Extensions the message uses: listed in it, and activated by a header. */
  extensions?: string[];
}

/** The parts to send: `parts` when given, else `text` as the only part. */
function partsOf(input: RemoteInput): Part[] {
  return input.parts ?? [{ text: input.text ?? "" }];
}

function messageIdOf(input: RemoteInput): string {
  return input.messageId || crypto.randomUUID();
}

/** Method names and request params for one protocol generation. */
export interface Dialect {
  readonly version: "1.0" | "0.3";
  /** Protocol headers for every request (`A2A-Version` for v1.0). */
  readonly headers: Record<string, string>;
  readonly methods: { send: string; stream: string; get: string; cancel: string };
  /** Params for a send that returns at once (the task is then followed with get). */
  sendParams(input: RemoteInput): Record<string, unknown>;
  streamParams(input: RemoteInput): Record<string, unknown>;
  /** Params naming one task, for get and cancel. */
  taskParams(taskId: string): Record<string, unknown>;
  /** Headers that activate the extensions a message uses (none when it uses none). */
  extensionHeaders(input: RemoteInput): Record<string, string>;
}

/**
 * A2A v1.0: PascalCase methods, ProtoJSON messages, `A2A-Version` on every request and
 * the interface's `tenant` in every params object.
 */
export function v1Dialect(a2aVersion: string, tenant: string | undefined): Dialect {
  const scoped = (params: Record<string, unknown>) => tenant ? { ...params, tenant } : params;
  const message = (input: RemoteInput) =>
    withIds({ messageId: messageIdOf(input), role: "ROLE_USER", parts: partsOf(input) }, input);
  return {
    version: "1.0",
    headers: { "A2A-Version": a2aVersion },
    methods: {
      send: "SendMessage",
      stream: "SendStreamingMessage",
      get: "GetTask",
      cancel: "CancelTask",
    },
    sendParams: (input) =>
      scoped({ message: message(input), configuration: { returnImmediately: true } }),
    streamParams: (input) => scoped({ message: message(input) }),
    taskParams: (id) => scoped({ id }),
    extensionHeaders: (input) => extensionHeaders("A2A-Extensions", input),
  };
}

/**
 * A2A v0.3: slash-style methods, `kind` on messages and parts (v0.3 executors switch on
 * it), no version header (its absence means 0.3).
 */
export function v03Dialect(): Dialect {
  const message = (input: RemoteInput) =>
    withIds({
      kind: "message",
      messageId: messageIdOf(input),
      role: "user",
      parts: partsOf(input).map(toV03Part),
    }, input);
  return {
    version: "0.3",
    headers: {},
    methods: {
      send: "message/send",
      stream: "message/stream",
      get: "tasks/get",
      cancel: "tasks/cancel",
    },
    sendParams: (input) => ({ message: message(input), configuration: { blocking: false } }),
    streamParams: (input) => ({ message: message(input) }),
    taskParams: (id) => ({ id }),
    extensionHeaders: (input) => extensionHeaders("X-A2A-Extensions", input),
  };
}

function extensionHeaders(name: string, input: RemoteInput): Record<string, string> {
  return input.extensions?.length ? { [name]: input.extensions.join(", ") } : {};
}

/**
 * A v1.0 part in v0.3 form: `kind` on every part, files as `{kind: "file", file}` with
 * `uri` or `bytes`, `mimeType` and `name`.
 */
function toV03Part(part: Part): Record<string, unknown> {
  const extra = part.metadata ? { metadata: part.metadata } : {};
  if (typeof part.text === "string") return { kind: "text", text: part.text, ...extra };
  if (part.url !== undefined || part.raw !== undefined) {
    const file: Record<string, unknown> = part.url !== undefined
      ? { uri: part.url }
      : { bytes: part.raw };
    if (part.mediaType) file.mimeType = part.mediaType;
    if (part.filename) file.name = part.filename;
    return { kind: "file", file, ...extra };
  }
  return { kind: "data", data: part.data ?? {}, ...extra };
}

/**
 * The `A2A-Version` value for a protocol version: its Major.Minor (`1.0.2` → `1.0`,
 * `2` → `2.0`), or `1.0` when the version does not start with a number.
 */
export function a2aVersionHeader(version: string): string {
  const match = /^(\d+)(?:\.(\d+))?/.exec(version.trim());
  return match ? `${match[1]}.${match[2] ?? "0"}` : "1.0";
}

function withIds<T extends Record<string, unknown>>(message: T, input: RemoteInput): T {
  const out: Record<string, unknown> = { ...message };
  if (input.taskId) out.taskId = input.taskId;
  if (input.contextId) out.contextId = input.contextId;
  if (input.metadata) out.metadata = input.metadata;
  if (input.extensions?.length) out.extensions = input.extensions;
  return out as T;
}
