/**
 * JSON-RPC over `fetch`, written by hand rather than through `@a2a-js/sdk/client`: the
 * SDK reports HTTP failures only as message text and returns ts-proto objects (numeric
 * enums, `$case` oneofs) that would have to be turned back into ProtoJSON, while
 * observal needs exact control of headers, redirects and time limits, and errors that
 * say which token variable to set. Request and result shapes are checked against the
 * SDK's own servers in tests/a2a/client/.
 */
import { randomUUID } from "node:crypto";
import { ObservalError } from "../../core/mod.ts";
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
import { readSseData } from "./_sse.ts";

/** Where and how requests go. */
export interface RpcTarget extends Endpoint {
  /** Protocol and credential headers sent with every request. */
  headers: Record<string, string>;
  fetch: typeof fetch;
  timeoutMs: number;
}

/** Sends one request and returns the JSON-RPC `result`. */
export async function callRpc(
  target: RpcTarget,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const request: JsonRpcRequest = { jsonrpc: "2.0", id: randomUUID(), method, params };
  const deadline = startDeadline(target.timeoutMs, signal);
  try {
    const response = await open(target, request, "application/json", deadline);
    const text = await guard(target, deadline, () => response.text());
    return resultOf(target, request.id, parseJson(target, response.status, text));
  } finally {
    deadline.clear();
  }
}

/**
 * Sends one streaming request and yields the `result` of every event until the server
 * closes the stream. The time limit applies to the answer and then to each silence
 * between chunks. A plain JSON answer is accepted too: an error envelope is thrown as
 * that error, and a single result is yielded as the only event.
 */
export async function* streamRpc(
  target: RpcTarget,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
): AsyncGenerator<unknown> {
  const request: JsonRpcRequest = { jsonrpc: "2.0", id: randomUUID(), method, params };
  const deadline = startDeadline(target.timeoutMs, signal);
  let events: AsyncGenerator<string> | undefined;
  try {
    const response = await open(target, request, "text/event-stream", deadline);
    const type = response.headers.get("content-type")?.toLowerCase() ?? "";
    if (!type.startsWith("text/event-stream")) {
      const text = await guard(target, deadline, () => response.text());
      yield resultOf(target, request.id, parseJson(target, response.status, text));
      return;
    }
    if (!response.body) throw malformed(target, "an empty event stream");
    const stream = readSseData(response.body, () => deadline.restart());
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
): Promise<Response> {
  const response = await guard(target, deadline, () =>
    target.fetch(target.url, {
      method: "POST",
      headers: { ...target.headers, "Content-Type": "application/json", "Accept": accept },
      body: JSON.stringify(request),
      // Only the pinned URL was approved: a redirect must not move the call elsewhere.
      redirect: "manual",
      signal: deadline.signal,
    }));
  const { status } = response;
  if (status >= 200 && status < 300) return response;
  // Free the connection; the body of a refusal is not needed except for JSON-RPC errors.
  if ((status >= 300 && status < 400) || status === 0) {
    await response.body?.cancel().catch(() => {});
    throw redirected(target, status);
  }
  if (status === 401 || status === 403) {
    await response.body?.cancel().catch(() => {});
    throw unauthenticated(target, status);
  }
  // Some servers send JSON-RPC errors with a 4xx/5xx status: report the error itself.
  const text = await guard(target, deadline, () => response.text()).catch(() => "");
  const envelope = JsonRpcResponseSchema.safeParse(tryJson(text));
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
    throw unreachable(target, err);
  }
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
