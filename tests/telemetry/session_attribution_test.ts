import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { systemClock } from "../../lib/core/mod.ts";
import { openTaskStore, type TaskStore } from "../../lib/store/mod.ts";
import { attributeSession } from "../../lib/telemetry/mod.ts";

const AGENT = "5f2c0000-1111-4222-8333-444455556666";

function task(over: Partial<Task["metadata"]["observal"]>): Task {
  const id = randomUUID();
  return {
    id,
    contextId: randomUUID(),
    status: { state: "TASK_STATE_COMPLETED" },
    metadata: {
      observal: {
        target: `urn:air:x:agent:${AGENT}`,
        kind: "agent",
        agentId: AGENT,
        version: "1.4.0",
        harness: "claude-code",
        depth: 0,
        chain: [],
        cwd: "/",
        createdAt: "2026-01-01T00:00:00Z",
        ...over,
      },
    },
  };
}

function setup(): { home: string; store: TaskStore; ws: string; done(): void } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "observal-attr-")));
  const store = openTaskStore({ home, clock: systemClock });
  const ws = join(home, "delegations", "ws");
  return {
    home,
    store,
    ws,
    done() {
      store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

Deno.test("attributeSession() finds a child by its session id, and its subagents by the parent's", () => {
  const s = setup();
  try {
    const t = s.store.insert(task({ childSessionId: "sess-1" }));
    assert.deepEqual(attributeSession(s.store, { home: s.home, sessionId: "sess-1" }), {
      agentId: AGENT,
      version: "1.4.0",
      taskId: t.id,
      target: `urn:air:x:agent:${AGENT}`,
      harness: "claude-code",
      matchedBy: "session",
    });
    const sub = attributeSession(s.store, {
      home: s.home,
      sessionId: "subagent-7",
      parentSessionId: "sess-1",
    });
    assert.equal(sub?.matchedBy, "parent-session");
    assert.equal(attributeSession(s.store, { home: s.home, sessionId: "other" }), undefined);
  } finally {
    s.done();
  }
});

Deno.test("attributeSession() resolves traversal ids to nothing", () => {
  const s = setup();
  try {
    s.store.insert(task({ childSessionId: "child-1" }));
    for (const id of ["../child-1", "child-1/..", "/child-1", ".child-1", "child 1", ""]) {
      assert.equal(attributeSession(s.store, { home: s.home, sessionId: id }), undefined, id);
    }
  } finally {
    s.done();
  }
});

Deno.test("attributeSession() attributes a cwd in a workspace, also after it is removed", () => {
  const s = setup();
  try {
    const root = join(s.ws, "observal-delegate-abc123");
    const t = s.store.insert(task({ workspaceRoot: root, version: "2.0.0" }));
    const cwd = join(root, "worktree", "src");
    // The workspace folder does not exist (any more): the store still knows it.
    const gone = attributeSession(s.store, { home: s.home, cwd });
    assert.equal(gone?.taskId, t.id);
    assert.equal(gone?.version, "2.0.0");
    assert.equal(gone?.matchedBy, "workspace");
    mkdirSync(cwd, { recursive: true });
    assert.equal(attributeSession(s.store, { home: s.home, cwd })?.taskId, t.id);
  } finally {
    s.done();
  }
});

Deno.test("attributeSession() ignores look-alike workspace paths", () => {
  const s = setup();
  try {
    const root = join(s.ws, "observal-delegate-abc123");
    s.store.insert(task({ workspaceRoot: root }));
    for (
      const cwd of [
        join(s.ws, "observal-delegate-lookalike", "worktree"),
        join(tmpdir(), "observal-delegate-abc123", "worktree"),
        join(s.home, "elsewhere", "observal-delegate-abc123", "worktree"),
        join(s.ws, "observal-delegate-", "worktree"),
        join(s.ws, "observal-delegate-abc123x"),
        "relative/observal-delegate-abc123",
      ]
    ) {
      assert.equal(attributeSession(s.store, { home: s.home, cwd }), undefined, cwd);
    }
  } finally {
    s.done();
  }
});
