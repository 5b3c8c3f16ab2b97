/**
 * A follow-up in a served Agent's conversation resumes the harness session the last run
 * left, where the harness can: the stand-in harnesses record how they were started. The
 * same contextId from another caller, a run in another harness and a session that is gone
 * each start a new session instead, and the status says why.
 */
import assert from "node:assert/strict";
import { rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { type Task, TaskState } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { v1Message } from "../support/a2a_message.ts";
import { CLAUDE_SESSION_HEAD } from "../support/claude_session.ts";
import { type LocalPlayground, localPlayground } from "../support/local_delegation.ts";
import { serve, withServed } from "../support/served_agent.ts";

/**
 * Claude Code as `claude -p --output-format json` answers: keeps a session file where
 * Claude keeps them (by id, under a project folder), appends a line to edit.txt and says
 * which session it resumed (--resume) or started (--session-id), and whether its brief
 * recalled an earlier request.
 */
const CLAUDE = `${CLAUDE_SESSION_HEAD}
case "$brief" in *"Earlier request 1:"*) recalled=yes ;; *) recalled=no ;; esac
printf 'more\\n' >> edit.txt
printf '{"type":"result","result":"in: %s resumed: %s recalled: %s","is_error":false,"session_id":"%s"}\\n' "$id" "$resumed" "$recalled" "$id"
`;

/** Codex as `codex exec --json` answers: names its thread, says whether it was resumed. */
const CODEX = `#!/bin/sh
resumed=no; recalled=no
for a in "$@"; do
  [ "$a" = resume ] && resumed=yes
  case "$a" in *"Earlier request 1:"*) recalled=yes ;; esac
done
printf 'more\\n' >> edit.txt
printf '{"type":"thread.started","thread_id":"codex-thread"}\\n'
printf '{"type":"item.completed","item":{"type":"agent_message","text":"codex resumed: %s recalled: %s"}}\\n' "$resumed" "$recalled"
`;

function artifact(task: Task, name: string): string {
  return (task.artifacts ?? []).filter((a) => a.name === name).flatMap((a) =>
    a.parts.flatMap((p) => p.content?.$case === "text" ? [p.content.value] : [])
  ).join("");
}

/** Sends `text` (streamed) and returns the finished task and every status text said. */
async function send(client: Client, text: string, contextId?: string) {
  const said: string[] = [];
  let id: string | undefined;
  for await (const event of client.sendMessageStream(v1Message(text, { contextId }))) {
    const p = event.payload;
    if (p?.$case === "task") id = p.value.id;
    const status = p?.$case === "task" || p?.$case === "statusUpdate" ? p.value.status : undefined;
    for (const part of status?.message?.parts ?? []) {
      if (part.content?.$case === "text") said.push(part.content.value);
    }
  }
  assert.ok(id);
  const task = await client.getTask({ tenant: "", id, historyLength: 0 });
  assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, said.join("\n"));
  return { task, said: said.join("\n"), answer: artifact(task, "result") };
}

const UUID = "[0-9a-f-]{36}";

Deno.test("a2a serve: a follow-up resumes the last run's Claude Code session on top of its changes; with the session gone it starts a new one, told the conversation", async () => {
  await withServed(CLAUDE, async (pg, served) => {
    const client = await new ClientFactory().createFromUrl(served.url);
    const first = await send(client, "Add a line.");
    const [, session] = new RegExp(`^in: (${UUID}) resumed: none recalled: no$`).exec(
      first.answer,
    ) ?? [];
    assert.ok(session, first.answer);
    assert.doesNotMatch(first.said, /session/);

    const second = await send(client, "And one more.", first.task.contextId);
    assert.match(second.said, new RegExp(`resumes Claude Code session ${session}`));
    // Resumed, with the new message only: the session holds the earlier one.
    assert.equal(second.answer, `in: ${session} resumed: ${session} recalled: no`);
    // On top of the first run's changes: its line is in the tree the second run edits.
    assert.match(artifact(second.task, "changes.patch"), /^ more\n\+more$/m);

    // The session's file is gone: a new session, told what was asked and answered before.
    rmSync(join(pg.root, ".claude", "projects"), { recursive: true, force: true });
    const third = await send(client, "Once more.", first.task.contextId);
    assert.match(
      third.said,
      new RegExp(`starts a new session: Claude Code session ${session} is gone`),
    );
    assert.doesNotMatch(third.said, /resumes/);
    assert.match(third.answer, new RegExp(`^in: ${UUID} resumed: none recalled: yes$`));
    assert.match(artifact(third.task, "changes.patch"), /^ more\n more\n\+more$/m);
  });
});

/** A client that sends `key` as its bearer token. */
function clientWith(url: string, key: string): Promise<Client> {
  const withKey: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })],
    }),
  ).createFromUrl(url);
}

async function userKey(pg: LocalPlayground, handle: string): Promise<string> {
  const made = await pg.json(["registry", "user", "add", handle, "--role", "user"]);
  assert.equal(made.code, 0, made.stderr);
  return String(made.body.apiKey);
}

Deno.test("a2a serve: another caller's message in the same contextId resumes nothing of the first caller's", async () => {
  const pg = await localPlayground();
  try {
    pg.program("claude", CLAUDE);
    const amy = await userKey(pg, "amy");
    const bob = await userKey(pg, "bob");
    const served = await serve(pg, ["--registry-keys"]);
    try {
      const asAmy = await clientWith(served.url, amy);
      const asBob = await clientWith(served.url, bob);
      const first = await send(asAmy, "Add a line.");
      const session = /^in: (\S+)/.exec(first.answer)![1];
      const bobs = await send(asBob, "And one more.", first.task.contextId);
      assert.doesNotMatch(bobs.said, /continues the conversation|resumes|new session/);
      assert.match(bobs.answer, /resumed: none recalled: no$/);
      assert.doesNotMatch(bobs.answer, new RegExp(session));
      // Amy's conversation is still hers to continue.
      const amys = await send(asAmy, "And one more.", first.task.contextId);
      assert.equal(amys.answer, `in: ${session} resumed: ${session} recalled: no`);
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
  } finally {
    await pg.close();
  }
});

Deno.test("a2a serve: a follow-up run in another harness starts a new session, saying so, told the conversation", async () => {
  const pg = await localPlayground();
  try {
    const claude = pg.program("claude", CLAUDE);
    // Each run chooses its harness among those installed.
    const served = await serve(pg, [], { harness: false });
    try {
      const client = await new ClientFactory().createFromUrl(served.url);
      const first = await send(client, "Add a line.");
      assert.match(first.answer, /^in: \S+ resumed: none/);
      // Claude Code is gone and Codex is there: the next run takes Codex.
      unlinkSync(claude);
      pg.program("codex", CODEX);
      const second = await send(client, "And one more.", first.task.contextId);
      assert.match(
        second.said,
        /starts a new session: this run uses Codex, the earlier one Claude Code/,
      );
      assert.equal(second.answer, "codex resumed: no recalled: yes");
      assert.match(artifact(second.task, "changes.patch"), /^ more\n\+more$/m);
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
  } finally {
    await pg.close();
  }
});
