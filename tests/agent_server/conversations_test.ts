import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Conversations } from "../../lib/agent_server/conversations.ts";

const run = (n: number, newBase = false) => ({
  newBase,
  brief: `brief ${n}`,
  answer: `answer ${n}`,
  patch: `patch ${n}\n`,
});

Deno.test("Conversations: a full conversation keeps every run's patch, takes no more, and a new start replaces it", () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-conversations-"));
  try {
    const conversations = new Conversations(dir, 60_000, 64, Date.now, 3);
    conversations.record("c", run(1, true));
    for (let n = 2; n <= 4; n++) conversations.record("c", run(n));
    const full = conversations.get("c")!;
    assert.equal(conversations.full(full), true);
    // The fourth run began before the conversation filled: it is not added, and nothing drops.
    assert.deepEqual(full.turns.map((t) => t.brief), ["brief 1", "brief 2", "brief 3"]);
    assert.deepEqual(
      full.turns.map((t) => readFileSync(t.patch!, "utf8")),
      ["patch 1\n", "patch 2\n", "patch 3\n"],
    );
    const oldPatch = full.turns[0].patch!;
    // The run that starts afresh begins a new conversation.
    conversations.record("c", run(5, true));
    const fresh = conversations.get("c")!;
    assert.equal(conversations.full(fresh), false);
    assert.deepEqual(fresh.turns.map((t) => t.brief), ["brief 5"]);
    assert.equal(existsSync(oldPatch), false, "the old conversation's files are gone");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
