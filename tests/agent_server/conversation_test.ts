/**
 * A follow-up message in a served Agent's conversation (the same `contextId`) runs on top
 * of the earlier runs' changes, and the harness is told what was asked and answered
 * before; a message in a new conversation starts from the served repository again.
 */
import assert from "node:assert/strict";
import { type Task, TaskState } from "@a2a-js/sdk";
import { v1Message } from "../support/a2a_message.ts";
import { ClientFactory } from "@a2a-js/sdk/client";
import { treeOf } from "../support/local_delegation.ts";
import { withServed } from "../support/served_agent.ts";

/**
 * Says what it saw (edit.txt on one line, and whether its brief recalled an earlier
 * request) and appends a line to edit.txt, as `claude -p --output-format json` answers.
 */
const RECALLS = `#!/bin/sh
brief="$(cat) $*"
case "$brief" in *"Earlier request 1:"*) recalled=yes ;; *) recalled=no ;; esac
seen=$(tr '\\n' ' ' < edit.txt)
printf 'more\\n' >> edit.txt
printf '{"type":"result","result":"saw: %s recalled: %s","is_error":false,"session_id":"s"}\\n' "$seen" "$recalled"
`;

const message = (text: string, contextId?: string) => v1Message(text, { contextId });

function artifact(task: Task, name: string): string {
  return (task.artifacts ?? []).filter((a) => a.name === name).flatMap((a) =>
    a.parts.flatMap((p) => p.content?.$case === "text" ? [p.content.value] : [])
  ).join("");
}

Deno.test("a2a serve: a follow-up in the same contextId continues on the earlier run's changes; a new conversation starts afresh", async () => {
  await withServed(RECALLS, async (pg, served) => {
    const before = treeOf(pg.repo);
    const client = await new ClientFactory().createFromUrl(served.url);
    const first = await client.sendMessage(message("Add a line.")) as Task;
    assert.equal(first.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(artifact(first, "result"), "saw: one two  recalled: no");
    assert.match(artifact(first, "changes.patch"), /^\+more$/m);

    // The follow-up, streamed so that its status messages can be read.
    const said: string[] = [];
    let second: Task | undefined;
    for await (
      const event of client.sendMessageStream(message("And one more.", first.contextId))
    ) {
      const p = event.payload;
      if (p?.$case === "task") second = p.value;
      const status = p?.$case === "task" || p?.$case === "statusUpdate"
        ? p.value.status
        : undefined;
      for (const part of status?.message?.parts ?? []) {
        if (part.content?.$case === "text") said.push(part.content.value);
      }
    }
    assert.ok(second);
    assert.ok(
      said.some((s) => /continues the conversation.*1 earlier run/.test(s)),
      said.join("\n"),
    );
    const done = await client.getTask({ tenant: "", id: second.id, historyLength: 0 });
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(done.contextId, first.contextId);
    // It saw the first run's line, and its brief recalled the first request.
    assert.equal(artifact(done, "result"), "saw: one two more  recalled: yes");
    // Its patch applies on top of the first one: the added line follows the first's.
    assert.match(artifact(done, "changes.patch"), /^ more\n\+more$/m);

    // A new conversation starts from the served repository, which never changed.
    const fresh = await client.sendMessage(message("Add a line.")) as Task;
    assert.notEqual(fresh.contextId, first.contextId);
    assert.equal(artifact(fresh, "result"), "saw: one two  recalled: no");
    assert.deepEqual(treeOf(pg.repo), before);
  });
});
