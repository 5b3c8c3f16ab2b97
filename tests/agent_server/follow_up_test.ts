/**
 * A message naming a task that is still running: `a2a serve` takes it as the task's next
 * turn. It waits for the run going to end, then runs in the same task as a follow-up in its
 * conversation: from the tree the run left, resuming its harness session. The task ends
 * once, after the last run; each run's answer and patch stay as artifacts. At most 4 wait,
 * text only; a cancel ends the task and the turns waiting with it.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { type LocalPlayground, localPlayground } from "../support/local_delegation.ts";
import { serve, withServed } from "../support/served_agent.ts";
import { CLAUDE_SESSION_HEAD } from "../support/claude_session.ts";

/**
 * Claude Code as `claude -p --output-format json` answers, once its marker file appears:
 * appends a line to edit.txt, says which session it resumed (--resume) or started, and
 * counts its runs in its state folder (which the sandbox leaves writable).
 */
const WAITS = `${CLAUDE_SESSION_HEAD}
printf 'run\\n' >> "\${CLAUDE_CONFIG_DIR:-$HOME/.claude}/runs"
printf 'more\\n' >> edit.txt
while [ ! -e "$HOME/go" ]; do sleep 0.05; done
printf '{"type":"result","result":"resumed: %s","is_error":false,"session_id":"%s"}\\n' "$resumed" "$id"
`;

function message(text: string, extra: Record<string, unknown> = {}) {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra },
    configuration: { returnImmediately: true },
  });
}

const go = (pg: LocalPlayground) => writeFileSync(join(pg.env.HOME!, "go"), "");
const runs = (pg: LocalPlayground) => {
  const file = join(pg.env.CLAUDE_CONFIG_DIR ?? join(pg.env.HOME!, ".claude"), "runs");
  return existsSync(file) ? Deno.readTextFileSync(file).trim().split("\n").length : 0;
};

/** The task once it has ended (polled, as a client after returnImmediately does). */
async function ended(client: Awaited<ReturnType<ClientFactory["createFromUrl"]>>, id: string) {
  const end = Date.now() + 60_000;
  for (;;) {
    const task = await client.getTask({ tenant: "", id, historyLength: undefined });
    const state = task.status!.state;
    if (
      [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED]
        .includes(state) || Date.now() > end
    ) return task;
    await new Promise((res) => setTimeout(res, 100));
  }
}

function texts(task: Task, name: string): string[] {
  return (task.artifacts ?? []).filter((a) => a.name === name).map((a) =>
    a.parts.flatMap((p) => p.content?.$case === "text" ? [p.content.value] : []).join("")
  );
}

/** Sends a v0.3 message/send naming `taskId`, as raw JSON-RPC. */
async function legacySend(url: string, taskId: string, text: string) {
  return await (await fetch(`${url}/`, {
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
          taskId,
          parts: [{ kind: "text", text }],
        },
        configuration: { blocking: false },
      },
    }),
  })).json();
}

Deno.test("a2a serve: messages naming a running task (v1.0 and v0.3) run after it in the same task, resuming its session on the tree it left", async () => {
  await withServed(WAITS, async (pg, served) => {
    const client = await new ClientFactory().createFromUrl(served.url);
    const task = await client.sendMessage(message("Add a line.")) as Task;
    const followed = await client.sendMessage(
      message("And one more.", { taskId: task.id }),
    ) as Task;
    assert.equal(followed.id, task.id, "the same task");
    assert.ok(
      [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(
        followed.status!.state,
      ),
      TaskState[followed.status!.state],
    );
    const legacy = await legacySend(served.url, task.id, "And a third.");
    assert.equal(legacy.result?.id, task.id, JSON.stringify(legacy));
    go(pg);
    const done = await ended(client, task.id);
    assert.equal(TaskState[done.status!.state], "TASK_STATE_COMPLETED");
    assert.equal(runs(pg), 3, "three runs, one after another");
    const results = texts(done, "result");
    assert.equal(results.length, 3, JSON.stringify(results));
    assert.equal(results[0], "resumed: none");
    // Each later run resumes the session the run before it left.
    assert.match(results[1], /^resumed: \S+/);
    assert.match(results[2], /^resumed: \S+/);
    const patches = texts(done, "changes.patch");
    assert.equal(patches.length, 3);
    // Each patch adds its own line on top of the tree the runs before it left.
    for (const [i, patch] of patches.entries()) {
      assert.equal((patch.match(/^\+more$/gm) ?? []).length, 1, patch);
      assert.equal((patch.match(/^ more$/gm) ?? []).length, i, patch);
    }
    const brief = (n: number) => {
      const content = done.history.filter((m) => m.role === 1)[n]?.parts[0]?.content;
      return content?.$case === "text" ? content.value : undefined;
    };
    assert.deepEqual([brief(0), brief(1), brief(2)], [
      "Add a line.",
      "And one more.",
      "And a third.",
    ]);
    const ids = (done.artifacts ?? []).map((a) => a.artifactId);
    assert.equal(new Set(ids).size, ids.length, `distinct artifact ids: ${ids}`);
  });
});

Deno.test("a2a serve: at most 4 messages wait to follow a task; a cancel ends the task and them, and no later run starts", async () => {
  const pg = await localPlayground();
  try {
    pg.program("claude", WAITS);
    const served = await serve(pg);
    try {
      const client = await new ClientFactory().createFromUrl(served.url);
      const task = await client.sendMessage(message("Take your time.")) as Task;
      // Refused after it was admitted (another conversation's contextId): it holds no place.
      await assert.rejects(
        client.sendMessage(message("Elsewhere.", { taskId: task.id, contextId: "other" })),
        /contextId/,
      );
      for (let i = 1; i <= 4; i++) {
        await client.sendMessage(message(`More ${i}.`, { taskId: task.id }));
      }
      await assert.rejects(
        client.sendMessage(message("One too many.", { taskId: task.id })),
        (err: Error) =>
          /4 messages already wait/.test(err.message) && err.name === "UnsupportedOperationError",
      );
      const legacy = await legacySend(served.url, task.id, "One too many.");
      assert.equal(legacy.error?.code, -32004, JSON.stringify(legacy));
      // A follow-up continues from the tree the run leaves: it takes no files.
      const withFile = await (await fetch(`${served.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 3,
          method: "SendMessage",
          params: {
            message: {
              messageId: crypto.randomUUID(),
              role: "ROLE_USER",
              taskId: task.id,
              parts: [{ text: "Use this." }, { raw: btoa("data"), filename: "a.txt" }],
            },
          },
        }),
      })).json();
      assert.equal(withFile.error?.code, -32004, JSON.stringify(withFile));
      assert.match(withFile.error.message, /text parts only/);
      // Canceled while the first run works: it and the four waiting end with the task.
      const working = Date.now() + 30_000;
      while (runs(pg) === 0 && Date.now() < working) {
        await new Promise((res) => setTimeout(res, 50));
      }
      assert.equal(runs(pg), 1, "the first run has started");
      const canceled = await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
      assert.equal(TaskState[canceled.status!.state], "TASK_STATE_CANCELED");
      go(pg);
      const done = await ended(client, task.id);
      assert.equal(TaskState[done.status!.state], "TASK_STATE_CANCELED");
      assert.deepEqual(texts(done, "result"), []);
      // A task that has ended takes no message: the SDK's -32004.
      await assert.rejects(
        client.sendMessage(message("Too late.", { taskId: task.id })),
        (err: Error) => err.name === "UnsupportedOperationError",
      );
    } finally {
      // Stopping waits for every execution, the four that waited included.
      assert.equal(await served.stop(), 0, served.stderr());
    }
    assert.equal(runs(pg), 1, "no run followed the canceled task");
  } finally {
    await pg.close();
  }
});
