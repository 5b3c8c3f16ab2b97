/**
 * The A2A JSON-RPC client observal uses to call a remote agent at the endpoint pinned
 * when its card was approved. It speaks v1.0 or v0.3, as the pinned interface says, and
 * returns every answer as a v1.0 {@linkcode RemoteSnapshot}.
 * @module
 */
import { type Env, ObservalError } from "../../core/mod.ts";
import type { AgentCard } from "../card.ts";
import { type CardInterface, normaliseBinding } from "../interfaces.ts";
import { mergeEvent, normalizeResult, type RemoteSnapshot } from "../normalize.ts";
import { isInterrupted } from "../task.ts";
import { credentialHeaders } from "../tokens.ts";
import { a2aVersionHeader, type RemoteInput, v03Dialect, v1Dialect } from "./_dialect.ts";
import { callRpc, type RpcTarget, streamRpc } from "./_json_rpc.ts";

/** How long one request may take, in milliseconds, unless told otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Options for {@linkcode createRemoteClient}. */
export interface RemoteClientOptions {
  /** The pinned interface (`obs:a2aInterface`); its `url` is the only URL ever called. */
  iface: CardInterface;
  /** The approved card (`obs:agentCard`): security schemes, capabilities, version. */
  card: AgentCard;
  /** Where `OBSERVAL_A2A_TOKEN_<HOST>` is read from. */
  env: Env;
  fetch: typeof fetch;
  /**
   * Time limit per request; for a stream, per silence between chunks.
   * @default {60_000}
   */
  requestTimeoutMs?: number;
}

/** What the caller sends: text, plus the remote ids when continuing a task. */
export type RemoteMessageInput = RemoteInput;

/** A client bound to one remote agent endpoint. */
export interface RemoteClient {
  /** The protocol generation spoken: `0.3` iff the pinned version starts with `0.`. */
  readonly version: "1.0" | "0.3";
  /** The card declares streaming (`capabilities.streaming`). */
  readonly streaming: boolean;
  /**
   * Sends a message and returns as soon as the agent has taken it (no waiting). When
   * continuing a task, an interrupted state in this immediate answer is reported as
   * WORKING: it is the state the reply answers, not news.
   */
  send(input: RemoteMessageInput, signal?: AbortSignal): Promise<RemoteSnapshot>;
  /** The task's current state. */
  get(taskId: string, signal?: AbortSignal): Promise<RemoteSnapshot>;
  /** Asks the agent to cancel the task; returns the state it reports. */
  cancel(taskId: string, signal?: AbortSignal): Promise<RemoteSnapshot>;
  /**
   * Sends a message over a stream and yields the merged snapshot after every event,
   * until the server closes the stream.
   */
  stream(input: RemoteMessageInput, signal?: AbortSignal): AsyncGenerator<RemoteSnapshot>;
}

/**
 * Builds a client for a pinned JSON-RPC interface. The version is the interface's
 * `protocolVersion`, else the card's, else 1.0. Credentials come from
 * {@linkcode credentialHeaders} and are decided once, here.
 *
 * @param options The pinned interface and card, the environment and `fetch`.
 * @returns The client.
 * @throws {ObservalError} `INVALID_ARGUMENT` when the interface is not an http(s)
 * JSON-RPC endpoint; `PERMISSION_DENIED` when a token would go over plain http to a host
 * that is not this machine.
 *
 * @example
 * ```ts ignore
 * const client = createRemoteClient({ iface, card, env: ctx.env, fetch: ctx.fetch });
 * let snap = await client.send({ text: "Summarise the release" });
 * while (!isFinal(snap.state)) snap = await client.get(snap.taskId!);
 * ```
 */
export function createRemoteClient(options: RemoteClientOptions): RemoteClient {
  const { iface, card } = options;
  const url = callableUrl(iface);
  const protocolVersion = nonEmpty(iface.protocolVersion) ?? nonEmpty(card.protocolVersion) ??
    "1.0";
  const dialect = protocolVersion.startsWith("0.")
    ? v03Dialect()
    : v1Dialect(a2aVersionHeader(protocolVersion), nonEmpty(iface.tenant));
  const credentials = credentialHeaders({ card, url: iface.url, env: options.env });
  const target: RpcTarget = {
    url: iface.url,
    host: url.host,
    variable: credentials.variable,
    tokenSent: Object.keys(credentials.headers).length > 0,
    headers: { ...credentials.headers, ...dialect.headers },
    fetch: options.fetch,
    timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  };
  const streaming = card.capabilities?.streaming === true;
  const { methods } = dialect;
  return {
    version: dialect.version,
    streaming,
    send: async (input, signal) => {
      const snapshot = normalizeResult(
        await callRpc(target, methods.send, dialect.sendParams(input), signal),
      );
      // A reply returns before the agent has read it, so the task may still show the
      // question being answered. Reporting that as final would end the caller's wait;
      // WORKING makes it look again, and a fresh question shows up on the next get().
      if (input.taskId && !snapshot.direct && isInterrupted(snapshot.state)) {
        delete snapshot.message;
        snapshot.state = "TASK_STATE_WORKING";
      }
      return snapshot;
    },
    get: async (taskId, signal) =>
      normalizeResult(await callRpc(target, methods.get, dialect.taskParams(taskId), signal)),
    cancel: async (taskId, signal) =>
      normalizeResult(await callRpc(target, methods.cancel, dialect.taskParams(taskId), signal)),
    stream: async function* (input, signal) {
      if (!streaming) {
        throw new ObservalError(
          "FAILED_PRECONDITION",
          "The approved Agent Card does not offer streaming",
          { remediation: "Send the message with send() and follow the task with get()" },
        );
      }
      let snapshot: RemoteSnapshot | undefined;
      const events = streamRpc(target, methods.stream, dialect.streamParams(input), signal);
      for await (const event of events) {
        snapshot = mergeEvent(snapshot, event);
        yield snapshot;
      }
    },
  };
}

function callableUrl(iface: CardInterface): URL {
  const url = URL.canParse(iface.url) ? new URL(iface.url) : undefined;
  if (
    url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.hostname === "" || normaliseBinding(iface.protocolBinding) !== "JSONRPC"
  ) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      "The approved Agent Card has no JSON-RPC endpoint over http(s) that observal can call",
      {
        remediation: "Ask the agent's owner to list an http(s) JSON-RPC interface in the card, " +
          "then import and approve the card again",
        resource: iface.url,
      },
    );
  }
  return url;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
