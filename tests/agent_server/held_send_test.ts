import assert from "node:assert/strict";
import { heldAnswer, heldSend, type RpcRequest } from "../../lib/agent_server/held_send.ts";

const send = (method: string, configuration?: Record<string, unknown>): RpcRequest => ({
  jsonrpc: "2.0",
  id: 7,
  method,
  params: { message: { messageId: "m" }, ...configuration ? { configuration } : {} },
});

Deno.test("heldSend turns only blocking sends into ones that return at once", () => {
  const v1 = heldSend(send("SendMessage", { historyLength: 2 }))!;
  assert.deepEqual(v1.request.params, {
    message: { messageId: "m" },
    configuration: { historyLength: 2, returnImmediately: true },
  });
  assert.equal(v1.historyLength, 2);
  assert.equal(v1.legacy, false);
  const v03 = heldSend(send("message/send"))!;
  assert.deepEqual(v03.request.params, {
    message: { messageId: "m" },
    configuration: { blocking: false },
  });
  assert.equal(v03.legacy, true);
  // What returns at once already, streams, other methods and malformed params go as they came.
  assert.equal(heldSend(send("SendMessage", { returnImmediately: true })), undefined);
  assert.equal(heldSend(send("message/send", { blocking: false })), undefined);
  assert.equal(heldSend(send("SendStreamingMessage")), undefined);
  assert.equal(heldSend(send("GetTask")), undefined);
  assert.equal(heldSend({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: [1] }), undefined);
});

Deno.test("heldAnswer answers with the task as GetTask shows it once settled, in the send's shape", async () => {
  const asked: RpcRequest[] = [];
  const settledFor: string[] = [];
  const handle = (request: RpcRequest) => {
    asked.push(request);
    return Promise.resolve({
      jsonrpc: "2.0",
      id: request.id,
      result: { id: "t1", status: { state: "TASK_STATE_COMPLETED" } },
    });
  };
  const settled = (id: string) => {
    settledFor.push(id);
    return Promise.resolve();
  };
  const v1 = heldSend(send("SendMessage", { historyLength: 0 }))!;
  const first = { jsonrpc: "2.0", id: 7, result: { task: { id: "t1", status: {} } } };
  assert.deepEqual(await heldAnswer(v1, first, settled, handle), {
    jsonrpc: "2.0",
    id: 7,
    result: { task: { id: "t1", status: { state: "TASK_STATE_COMPLETED" } } },
  });
  assert.deepEqual(settledFor, ["t1"]);
  assert.deepEqual(asked, [{
    jsonrpc: "2.0",
    id: 7,
    method: "GetTask",
    params: { id: "t1", historyLength: 0 },
  }]);

  const v03 = heldSend(send("message/send"))!;
  const legacyFirst = { jsonrpc: "2.0", id: 7, result: { kind: "task", id: "t1" } };
  const answer = await heldAnswer(v03, legacyFirst, settled, handle) as { result: unknown };
  assert.deepEqual(answer.result, { id: "t1", status: { state: "TASK_STATE_COMPLETED" } });
  assert.deepEqual(asked.at(-1)?.method, "tasks/get");
  assert.deepEqual(asked.at(-1)?.params, { id: "t1" });

  // An error, or a message instead of a task, is the answer as it came, without waiting.
  const error = { jsonrpc: "2.0", id: 7, error: { code: -32602, message: "no" } };
  assert.equal(await heldAnswer(v1, error, settled, handle), error);
  const message = { jsonrpc: "2.0", id: 7, result: { message: { messageId: "a" } } };
  assert.equal(await heldAnswer(v1, message, settled, handle), message);
  assert.equal(settledFor.length, 2);
  // A task forgotten meanwhile: the first answer stands.
  const gone = () => Promise.resolve({ jsonrpc: "2.0", id: 7, error: { code: -32001 } });
  assert.equal(await heldAnswer(v1, first, settled, gone), first);
});
