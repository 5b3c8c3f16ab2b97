import assert from "node:assert/strict";
import type { Task } from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";
import { checkDepth, DEFAULT_MAX_DEPTH, resolveCaller } from "../../lib/delegation/mod.ts";

const PARENT = "0f0e0d0c-0b0a-4908-8706-050403020100";

function parentTask(over: Partial<Task["metadata"]["observal"]> = {}): Task {
  return {
    id: PARENT,
    contextId: "c",
    status: { state: "TASK_STATE_WORKING" },
    metadata: {
      observal: {
        target: "urn:air:x:agent:11111111-1111-4111-8111-111111111111",
        kind: "agent",
        agentId: "11111111-1111-4111-8111-111111111111",
        harness: "codex",
        depth: 0,
        maxDepth: 1,
        chain: ["urn:air:x:agent:top"],
        cwd: "/",
        createdAt: "2026-01-01T00:00:00Z",
        ...over,
      },
    },
  };
}

Deno.test("resolveCaller() at the top level: depth 0 and the default limit", () => {
  const c = resolveCaller({});
  assert.equal(c.depth, 0);
  assert.equal(c.maxDepth, DEFAULT_MAX_DEPTH);
  assert.deepEqual(c.chain, []);
  assert.equal(c.invalid, undefined);
});

Deno.test("resolveCaller() falls back to the workspace's task when the environment was stripped", () => {
  const c = resolveCaller({}, {}, {
    workspace: () => ({ root: "/home/ws/r", task: parentTask() }),
  });
  assert.equal(c.depth, 1);
  assert.equal(c.maxDepth, 1);
  assert.equal(c.parentTaskId, PARENT);
  assert.equal(c.harness, "codex");
  assert.equal(c.agentId, "11111111-1111-4111-8111-111111111111");
  assert.deepEqual(c.chain, [
    "urn:air:x:agent:top",
    "urn:air:x:agent:11111111-1111-4111-8111-111111111111",
    "11111111-1111-4111-8111-111111111111",
  ]);
  assert.throws(() => checkDepth(c), /depth limit reached/);
});

Deno.test("resolveCaller() cannot raise a recorded depth limit from the environment", () => {
  const env = {
    OBSERVAL_DELEGATION_DEPTH: "0",
    OBSERVAL_DELEGATION_MAX_DEPTH: "9",
    OBSERVAL_DELEGATION_TASK_ID: PARENT,
    OBSERVAL_DELEGATION_CHAIN: "",
  };
  const c = resolveCaller(env, {}, { task: (id) => id === PARENT ? parentTask() : undefined });
  assert.equal(c.maxDepth, 1, "the lower of 9 and the recorded 1");
  assert.equal(c.depth, 1, "the parent's depth + 1, whatever the environment says");
  assert.ok(c.chain.includes("urn:air:x:agent:top"), "the recorded chain still counts");
  assert.throws(() => checkDepth(c), ObservalError);
});

Deno.test("resolveCaller() refuses malformed depth values instead of reading them as 0", () => {
  for (const bad of ["-1", "x", "1.5", "1e3", "999", " 2 3"]) {
    const c = resolveCaller({ OBSERVAL_DELEGATION_DEPTH: bad });
    assert.ok(c.invalid, bad);
    assert.throws(() => checkDepth(c), /OBSERVAL_DELEGATION_DEPTH/);
    assert.throws(
      () => checkDepth(resolveCaller({ OBSERVAL_DELEGATION_MAX_DEPTH: bad })),
      /OBSERVAL_DELEGATION_MAX_DEPTH/,
    );
  }
  assert.equal(resolveCaller({ OBSERVAL_DELEGATION_DEPTH: " 1 " }).depth, 1);
});

Deno.test("resolveCaller() inside a workspace trusts the workspace's task, not the environment", () => {
  const env = {
    OBSERVAL_DELEGATION_DEPTH: "0",
    OBSERVAL_DELEGATION_CHAIN: "",
  };
  const inside = { root: "/home/ws/r", task: parentTask() };
  const other = "11111111-2222-4333-8444-555555555555";
  for (const named of [other, "not-a-task"]) {
    const c = resolveCaller({ ...env, OBSERVAL_DELEGATION_TASK_ID: named }, {}, {
      workspace: () => inside,
      task: (id) => id === other ? parentTask({ depth: 0, maxDepth: 5, chain: [] }) : undefined,
    });
    assert.match(c.invalid ?? "", new RegExp(`"${named}".*workspace of task ${PARENT}`));
  }
  const same = resolveCaller({ ...env, OBSERVAL_DELEGATION_TASK_ID: PARENT }, {}, {
    workspace: () => inside,
  });
  assert.equal(same.invalid, undefined);
  assert.equal(same.depth, 1);
  const orphan = resolveCaller({}, {}, { workspace: () => ({ root: "/home/ws/r" }) });
  assert.match(orphan.invalid ?? "", /no stored task owns/);
});
