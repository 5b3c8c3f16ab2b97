/**
 * The A2A JSON-RPC client observal uses to call a remote agent at the endpoint pinned
 * when its card was approved. It speaks v1.0 or v0.3, as the pinned interface says,
 * connects only to an address that passed the SSRF gate, bounds every answer, and returns
 * every answer as a v1.0 {@linkcode RemoteSnapshot}.
 * @module
 */
import { type Env, ObservalError } from "../../core/mod.ts";
import { hostRequest, pinAddress, type Requester, type Resolve } from "../../net/mod.ts";
import type { AgentCard } from "../card.ts";
import { type CardInterface, normaliseBinding } from "../interfaces.ts";
import { mergeEvent, normalizeResult, type RemoteSnapshot } from "../normalize.ts";
import { checkCollected, DEFAULT_REMOTE_LIMITS, type RemoteLimits } from "../remote_limits.ts";
import { DEFAULT_REMOTE_PACE } from "../remote_pace.ts";
import { isInterrupted, type Part } from "../task.ts";
import { credentialHeaders, declaresSecurity } from "../tokens.ts";
import { a2aVersionHeader, v03Dialect, v1Dialect } from "./_dialect.ts";
import { callRpc, type RpcTarget, streamRpc } from "./_json_rpc.ts";

/** How long one request may take, in milliseconds, unless told otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_MS = DEFAULT_REMOTE_PACE.requestTimeoutMs;

/** Options for {@linkcode createRemoteClient}. */
export interface RemoteClientOptions {
  /** The pinned interface (`obs:a2aInterface`); its `url` is the only URL ever called. */
  iface: CardInterface;
  /** The approved card (`obs:agentCard`): security schemes, capabilities, version. */
  card: AgentCard;
  /** Where `OBSERVAL_A2A_TOKEN_<HOST>` is read from. */
  env: Env;
  /**
   * Hosts an administrator trusts (`discovery.a2a_private_hosts`): they may be private
   * and use plain http. Every other endpoint must be https and resolve only to public
   * addresses.
   */
  allowPrivateHosts: readonly string[];
  /** Resolves the endpoint's host name. @default the system resolver */
  resolve?: Resolve;
  /** Performs each HTTP request. @default {@linkcode hostRequest} */
  request?: Requester;
  /**
   * Time limit per request; for a stream, for the wait until it starts.
   * @default {60_000}
   */
  requestTimeoutMs?: number;
  /**
   * The fewest bytes a second a JSON answer must bring (0: no check).
   * @default {@linkcode DEFAULT_REMOTE_PACE}
   */
  minBodyRate?: number;
  /** What the agent may send back. @default {@linkcode DEFAULT_REMOTE_LIMITS} */
  limits?: RemoteLimits;
}

/**
 * What the caller sends: parts (text, data, files; v1.0 form, translated for a v0.3
 * agent) or plain text, plus the remote ids when continuing a task.
 */
export interface RemoteMessageInput {
  /** The message's parts; when absent, `text` is sent as the only part. */
  parts?: Part[];
  /** Shorthand for `parts: [{ text }]`. */
  text?: string;
  taskId?: string;
  contextId?: string;
  /** The message's id, kept on a resend; a fresh one when absent. */
  messageId?: string;
  /** The message's metadata (an extension's, keyed by its URI). */
  metadata?: Record<string, unknown>;
  /** Extensions the message uses: listed in it, and activated by a header. */
  extensions?: string[];
}

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
   * until the server closes the stream. The stream may stay silent for as long as
   * `signal` allows.
   */
  stream(input: RemoteMessageInput, signal?: AbortSignal): AsyncGenerator<RemoteSnapshot>;
}

/**
 * Builds a client for a pinned JSON-RPC interface. The version is the interface's
 * `protocolVersion`, else the card's, else 1.0. Credentials come from
 * {@linkcode credentialHeaders} and are decided once, here. The endpoint's host is
 * checked and resolved on the first request, which then, like every later one, connects
 * to the checked address; a refused endpoint gets no request at all.
 *
 * Every answer is bounded by `limits`: a response body or a stream event past its limit,
 * more artifacts or agent messages than allowed, an answer about another task, or a task
 * state A2A does not define throws a {@linkcode RemoteRefusalError}.
 *
 * @param options The pinned interface and card, the environment and the SSRF allowlist.
 * @returns The client.
 * @throws {ObservalError} `INVALID_ARGUMENT` when the interface is not an http(s)
 * JSON-RPC endpoint; `PERMISSION_DENIED` when a token would go over plain http to a host
 * that is not this machine.
 *
 * @example
 * ```ts ignore
 * const client = createRemoteClient({ iface, card, env: ctx.env, allowPrivateHosts: [] });
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
  const limits = options.limits ?? DEFAULT_REMOTE_LIMITS;
  let pinned: { address: string | undefined } | undefined;
  const target: RpcTarget = {
    url: url.href,
    target: url,
    host: url.host,
    variable: credentials.variable,
    tokenSent: Object.keys(credentials.headers).length > 0,
    schemeDeclared: declaresSecurity(card),
    headers: { ...credentials.headers, ...dialect.headers },
    request: options.request ?? hostRequest,
    // Resolved once: every request of this client goes to the address checked first.
    address: async (signal) => {
      pinned ??= {
        address: await pinAddress(url, {
          allowPrivateHosts: options.allowPrivateHosts,
          resolve: options.resolve,
          signal,
        }),
      };
      return pinned.address;
    },
    timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    limits,
    pace: {
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      minBodyRate: options.minBodyRate ?? DEFAULT_REMOTE_PACE.minBodyRate,
    },
  };
  const streaming = card.capabilities?.streaming === true;
  const { methods } = dialect;
  const checked = (snapshot: RemoteSnapshot) => {
    checkCollected(snapshot, limits);
    return snapshot;
  };
  return {
    version: dialect.version,
    streaming,
    send: async (input, signal) => {
      const result = await callRpc(
        target,
        methods.send,
        dialect.sendParams(input),
        signal,
        dialect.extensionHeaders(input),
      );
      const snapshot = checked(normalizeResult(result, input.taskId));
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
      checked(normalizeResult(
        await callRpc(target, methods.get, dialect.taskParams(taskId), signal),
        taskId,
      )),
    cancel: async (taskId, signal) =>
      checked(normalizeResult(
        await callRpc(target, methods.cancel, dialect.taskParams(taskId), signal),
        taskId,
      )),
    stream: async function* (input, signal) {
      if (!streaming) {
        throw new ObservalError(
          "FAILED_PRECONDITION",
          "The approved Agent Card does not offer streaming",
          { remediation: "Send the message with send() and follow the task with get()" },
        );
      }
      // When continuing a task, every event must be about that task.
      let snapshot: RemoteSnapshot | undefined = input.taskId
        ? { taskId: input.taskId, state: "TASK_STATE_SUBMITTED", messages: [], direct: false }
        : undefined;
      const events = streamRpc(
        target,
        methods.stream,
        dialect.streamParams(input),
        signal,
        dialect.extensionHeaders(input),
      );
      for await (const event of events) {
        snapshot = checked(mergeEvent(snapshot, event));
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
  if (url.username !== "" || url.password !== "") {
    throw new ObservalError(
      "UNSAFE_URL",
      "The approved Agent Card's endpoint carries a user name or password",
      {
        remediation: "Ask the agent's owner to drop the credentials from the URL, then import " +
          "and approve the card again",
      },
    );
  }
  url.hash = "";
  return url;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
