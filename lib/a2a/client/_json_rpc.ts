/**
 * JSON-RPC over the SSRF-checked requester of lib/net, written by hand rather than through
 * `@a2a-js/sdk/client`: the SDK reports HTTP failures only as message text and returns
 * ts-proto objects (numeric enums, `$case` oneofs) that would have to be turned back into
 * ProtoJSON, while observal needs exact control of the address connected to, headers,
 * redirects, byte and time limits, and errors that say which token variable to set.
 * Request and result shapes are checked against the SDK's own servers in tests/a2a/client/.
 */
import { concatBytes, ObservalError } from "../../core/mod.ts";
import type { RawResponse, Requester } from "../../net/mod.ts";
import { limitExceeded, type RemoteLimits } from "../remote_limits.ts";
import { type RemotePace, tooSlow } from "../remote_pace.ts";
import { pacedBody } from "./_paced_body.ts";
import { type Deadline, startDeadline } from "./_deadline.ts";
import {
  type Endpoint,
  httpStatus,
  malformed,
  notJson,
  redirected,
  rpcError,
  timedOut,
  unauthenticated,
  unreachable,
} from "./_errors.ts";
import { type JsonRpcRequest, JsonRpcResponseSchema } from "./_json_rpc_schema.ts";
import { readSseData, SseTooLarge } from "./_sse.ts";

/** How much of an error answer is read to find a JSON-RPC error in it. */
const MAX_ERROR_BODY = 64 * 1024;

/** Where and how requests go. */
export interface RpcTarget extends Endpoint {
  /** The pinned interface URL: the only URL ever called. */
  target: URL;
  /** Protocol and credential headers sent with every request. */
  headers: Record<string, string>;
  request: Requester;
  /**
   * The checked address to connect to (`undefined` for an allowlisted host); the first
   * call runs the SSRF gate, and a refusal there means no request is sent at all.
   */
  address: (signal: AbortSignal) => Promise<string | undefined>;
  /** Time limit per request: the whole exchange, or a stream's wait for its headers. */
  timeoutMs: number;
  limits: RemoteLimits;
  /** The request limit and the slowest a JSON body may come. */
  pace: RemotePace;
}

/** Sends one request and returns the JSON-RPC `result`. */
export async function callRpc(
  target: RpcTarget,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const request: JsonRpcRequest = { jsonrpc: "2.0", id: crypto.randomUUID(), method, params };
  const deadline = startDeadline(target.timeoutMs, signal);
  try {
    const response = await open(target, request, "application/json", deadline, headers);
    const text = await guard(target, deadline, () => readCapped(target, response, deadline));
    return resultOf(target, request.id, parseJson(target, response.status, text));
  } finally {
    deadline.clear();
  }
}

/**
 * Sends one streaming request and yields the `result` of every event until the server
 * closes the stream. The time limit covers the wait for the answer's headers only: a
 * stream may then stay silent for as long as the caller's signal allows (some agents
 * abort their work when the connection closes). A plain JSON answer is accepted too: an
 * error envelope is thrown as that error, and a single result is yielded as the only
 * event.
 */
export async function* streamRpc(
  target: RpcTarget,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
  headers: Record<string, string> = {},
): AsyncGenerator<unknown> {
  const request: JsonRpcRequest = { jsonrpc: "2.0", id: crypto.randomUUID(), method, params };
  const deadline = startDeadline(target.timeoutMs, signal);
  let events: AsyncGenerator<string> | undefined;
  try {
    const response = await open(target, request, "text/event-stream", deadline, headers);
    const type = response.headers["content-type"]?.toLowerCase() ?? "";
    if (!type.startsWith("text/event-stream")) {
      const text = await guard(target, deadline, () => readCapped(target, response, deadline));
      yield resultOf(target, request.id, parseJson(target, response.status, text));
      return;
    }
    // From here on only the caller's signal (its deadline, a cancel) ends the wait.
    deadline.stop();
    // Every read races the caller's signal; a silent stream is no failure (no rate).
    const body = pacedBody(response, deadline.signal, 0, () => new Error("unreachable"));
    const stream = readSseData(body, target.limits.maxEventBytes);
    events = stream;
    while (true) {
      const next = await guard(target, deadline, () => stream.next());
      if (next.done) return;
      const event = tryJson(next.value);
      if (event === undefined) throw malformed(target, "a stream event that is not JSON");
      yield resultOf(target, request.id, event);
    }
  } finally {
    // Stopping early (or on a bad event) must still release the connection.
    await events?.return(undefined).catch(() => {});
    deadline.clear();
  }
}

/** POSTs the request and maps transport and HTTP failures; returns a 2xx response. */
async function open(
  target: RpcTarget,
  request: JsonRpcRequest,
  accept: string,
  deadline: Deadline,
  headers: Record<string, string>,
): Promise<RawResponse> {
  const address = await guard(target, deadline, () => target.address(deadline.signal));
  const response = await guard(target, deadline, () =>
    target.request({
      url: target.target,
      address,
      method: "POST",
      headers: {
        ...headers,
        ...target.headers,
        "content-type": "application/json",
        "accept": accept,
        "accept-encoding": "identity",
        "user-agent": "observal",
      },
      body: new TextEncoder().encode(JSON.stringify(request)),
      signal: deadline.signal,
    }));
  const { status } = response;
  if (status >= 200 && status < 300) return response;
  // Free the connection; the body of a refusal is not needed except for JSON-RPC errors.
  if ((status >= 300 && status < 400) || status === 0) {
    discard(response);
    throw redirected(target, status);
  }
  if (status === 401 || status === 403) {
    discard(response);
    throw unauthenticated(target, status);
  }
  // Some servers send JSON-RPC errors with a 4xx/5xx status: report the error itself.
  const text = await guard(target, deadline, () => readPrefix(target, response, deadline))
    .catch(() => new Uint8Array());
  const envelope = JsonRpcResponseSchema.safeParse(tryJson(new TextDecoder().decode(text)));
  if (envelope.success && envelope.data.error) throw rpcError(target, envelope.data.error);
  throw httpStatus(target, status);
}

/** Runs `step`, turning an abort or a network failure into the right error. */
async function guard<T>(
  target: RpcTarget,
  deadline: Deadline,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (deadline.timedOut()) throw timedOut(target, target.timeoutMs);
    // The caller aborted: hand back its reason, as fetch itself would.
    if (deadline.signal.aborted) throw deadline.signal.reason ?? err;
    if (err instanceof ObservalError) throw err;
    if (err instanceof SseTooLarge) throw limitExceeded(target.limits, "maxEventBytes");
    throw unreachable(target, err);
  }
}

/**
 * The whole body as text, refused before reading when its declared length is too large,
 * and as soon as it grows past the limit otherwise. Each chunk is decoded as it arrives
 * and then dropped, so a large answer is held once as text, not also as bytes.
 */
async function readCapped(
  target: RpcTarget,
  response: RawResponse,
  deadline: Deadline,
): Promise<string> {
  const max = target.limits.maxResponseBytes;
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > max) {
    discard(response);
    throw limitExceeded(target.limits, "maxResponseBytes");
  }
  // Bytes that are not UTF-8 become U+FFFD, as JSON-RPC over HTTP is UTF-8 by definition.
  const decoder = new TextDecoder();
  const text: string[] = [];
  let size = 0;
  // Throwing inside for-await ends the body's iteration, which closes the connection.
  for await (const chunk of paced(target, response, deadline)) {
    size += chunk.byteLength;
    if (size > max) throw limitExceeded(target.limits, "maxResponseBytes");
    text.push(decoder.decode(chunk, { stream: true }));
  }
  text.push(decoder.decode());
  return text.join("");
}

/** At most {@linkcode MAX_ERROR_BODY} bytes of the body; the rest is not read. */
async function readPrefix(
  target: RpcTarget,
  response: RawResponse,
  deadline: Deadline,
): Promise<Uint8Array> {
  const max = MAX_ERROR_BODY;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of paced(target, response, deadline)) {
    chunks.push(chunk.subarray(0, Math.max(0, max - size)));
    size += chunk.byteLength;
    if (size >= max) break;
  }
  const kept = chunks.reduce((n, c) => n + c.byteLength, 0);
  return concatBytes(chunks, kept);
}

/**
 * A JSON body as it comes, each read bounded by the request's deadline and the minimum
 * rate: a body that trickles or stalls fails, and its connection is closed.
 */
function paced(target: RpcTarget, response: RawResponse, deadline: Deadline) {
  return pacedBody(
    response,
    deadline.signal,
    target.pace.minBodyRate,
    () => tooSlow(target.pace, target.host),
  );
}

/** Closes the connection rather than drain a body nobody reads. */
function discard(response: RawResponse): void {
  if (response.abort) return response.abort();
  response.body[Symbol.asyncIterator]().return?.()?.catch(() => {});
}

function parseJson(target: RpcTarget, status: number, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw notJson(target, status, err);
  }
}

function resultOf(target: RpcTarget, id: string, json: unknown): unknown {
  const parsed = JsonRpcResponseSchema.safeParse(json);
  if (!parsed.success) throw malformed(target);
  const envelope = parsed.data;
  if (envelope.error) throw rpcError(target, envelope.error);
  if (envelope.id !== undefined && envelope.id !== null && envelope.id !== id) {
    throw malformed(target, "a JSON-RPC response to a different request");
  }
  return envelope.result;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
