/**
 * A blocking SendMessage, held for at most a set time. A2A v1.0 says both that a send
 * returns at once with its task while the work goes on (§3.1.1, §3.3.3) and that a blocking
 * one waits until the task ends or is interrupted (§3.2.2). A served Agent's run can take
 * half an hour, far longer than proxies and load balancers keep a quiet request open, and
 * each held request is held memory. So the server waits for the end up to a bound, then
 * answers with the task as it stands (still WORKING); the caller follows it as it would
 * after `returnImmediately`: GetTask, SubscribeToTask or a push webhook. A run that ends
 * within the bound answers exactly as an unbounded wait would.
 *
 * It works on the JSON-RPC level, around the SDK's handler: the send goes in as one that
 * returns at once, and the answer is the task as GetTask then shows it, so both protocol
 * versions keep the SDK's own shapes and history rules.
 * @module
 */

/** One JSON-RPC request, as the app has checked it. */
export type RpcRequest = { jsonrpc: "2.0"; id?: unknown; method: string; params?: unknown };

/** Answers a JSON-RPC request (the SDK's transport handler for the caller's version). */
export type Handle = (request: RpcRequest) => Promise<unknown>;

/** A blocking send, rewritten to return at once. */
export interface HeldSend {
  /** The request to hand the SDK. */
  request: RpcRequest;
  /** The caller's `historyLength`, for the answer. */
  historyLength?: number;
  /** Whether the caller speaks v0.3. */
  legacy: boolean;
}

/**
 * The send as one that returns at once, when `request` is a blocking SendMessage (v1.0:
 * `returnImmediately` not true; v0.3 `message/send`: `blocking` not false); otherwise
 * undefined, and the request goes to the SDK as it came.
 */
export function heldSend(request: RpcRequest): HeldSend | undefined {
  const legacy = request.method === "message/send";
  if (!legacy && request.method !== "SendMessage") return undefined;
  const params = request.params;
  if (!isRecord(params)) return undefined;
  const config = isRecord(params.configuration) ? params.configuration : {};
  if (legacy ? config.blocking === false : config.returnImmediately === true) return undefined;
  const configuration = legacy
    ? { ...config, blocking: false }
    : { ...config, returnImmediately: true };
  const historyLength = typeof config.historyLength === "number" ? config.historyLength : undefined;
  return { request: { ...request, params: { ...params, configuration } }, historyLength, legacy };
}

/**
 * The held send's answer: after `settled` (the task ended or was interrupted, or the bound
 * passed), the task as GetTask shows it, in the send's own shape. An error, or a Message
 * instead of a task, is answered as it came.
 *
 * @param held the send, as `heldSend` rewrote it
 * @param immediate the SDK's answer to the rewritten send
 * @param settled resolves when the task's answer may be given
 * @param handle answers the GetTask made for it, in the caller's context
 */
export async function heldAnswer(
  held: HeldSend,
  immediate: unknown,
  settled: (taskId: string) => Promise<void>,
  handle: Handle,
): Promise<unknown> {
  if (!isRecord(immediate) || !isRecord(immediate.result)) return immediate;
  const result = immediate.result;
  const task = held.legacy ? (result.kind === "task" ? result : undefined) : result.task;
  const taskId = isRecord(task) ? task.id : undefined;
  if (typeof taskId !== "string") return immediate;
  await settled(taskId);
  const got = await handle({
    jsonrpc: "2.0",
    id: immediate.id as RpcRequest["id"],
    method: held.legacy ? "tasks/get" : "GetTask",
    params: {
      id: taskId,
      ...held.historyLength === undefined ? {} : { historyLength: held.historyLength },
    },
  });
  // Forgotten meanwhile (a full memory): the first answer is still true.
  if (!isRecord(got) || !isRecord(got.result)) return immediate;
  return { ...immediate, result: held.legacy ? got.result : { task: got.result } };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
