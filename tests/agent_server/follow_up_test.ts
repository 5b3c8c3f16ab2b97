/**
 * A message for a task that is still running: `a2a serve` refuses the message with
 * UnsupportedOperation (-32004) and leaves the task to end as its run ends.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { localPlayground } from "../support/local_delegation.ts";
import { serve } from "../support/served_agent.ts";

/** Answers only after its marker file appears. */
const WAITS = `#!/bin/sh
cat > /dev/null
while [ ! -e "$HOME/go" ]; do sleep 0.05; done
printf '{"type":"result","result":"Late.","is_error":false,"session_id":"s2"}\\n'
`;

function message(text: string, extra: Record<string, unknown> = {}) {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra },
    configuration: { returnImmediately: true },
  });
}

Deno.test("a2a serve refuses a message for a running task with -32004 (v1.0 and v0.3); the task still completes", async () => {
  const pg = await localPlayground();
  try {
    pg.program("claude", WAITS);
    const served = await serve(pg);
    try {
      const client = await new ClientFactory().createFromUrl(served.url);
      const task = await client.sendMessage(message("Take your time.")) as Task;
      await assert.rejects(
        client.sendMessage(message("And more.", { taskId: task.id })),
        (err: Error) =>
          /still running/.test(err.message) && err.name === "UnsupportedOperationError",
      );
      const legacy = await (await fetch(`${served.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "message/send",
          params: {
            message: {
              kind: "message",
              messageId: crypto.randomUUID(),
              role: "user",
              taskId: task.id,
              parts: [{ kind: "text", text: "And more." }],
            },
          },
        }),
      })).json();
      assert.equal(legacy.error?.code, -32004, JSON.stringify(legacy));
      writeFileSync(join(pg.env.HOME!, "go"), "");
      const end = Date.now() + 30_000;
      let state = TaskState.TASK_STATE_WORKING;
      while (Date.now() < end && state !== TaskState.TASK_STATE_COMPLETED) {
        await new Promise((res) => setTimeout(res, 100));
        state = (await client.getTask({ tenant: "", id: task.id, historyLength: 0 })).status!
          .state;
      }
      assert.equal(TaskState[state], "TASK_STATE_COMPLETED", "the run's own end stands");
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
  } finally {
    await pg.close();
  }
});
