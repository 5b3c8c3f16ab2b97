/** Guards hold before anything runs, and every refusal says what to do instead. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Task } from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";
import type { Caller } from "../../lib/delegation/mod.ts";
import { playground } from "../support/delegation.ts";

const TOP: Caller = { depth: 0, maxDepth: 2, chain: [] };

async function refusal(p: Promise<unknown>): Promise<ObservalError> {
  const err = await p.then(() => undefined, (e) => e);
  assert.ok(err instanceof ObservalError, `expected a refusal, got ${err}`);
  assert.ok(err.remediation, `"${err.message}" says what to do instead`);
  return err;
}

function childTask(parent: string): Task {
  const id = randomUUID();
  return {
    id,
    contextId: randomUUID(),
    status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:00Z" },
    metadata: {
      observal: {
        target: "urn:air:x:a2a:y",
        kind: "a2a",
        depth: 1,
        chain: [],
        cwd: "/",
        createdAt: "2026-01-01T00:00:00Z",
        parentTaskId: parent,
      },
    },
  };
}

Deno.test("guards: message, depth, breadth, cycles, approval and delegability", async () => {
  const pg = await playground({ behaviour: "complete" });
  const { service, store, close } = pg.service({
    launch: () => {
      throw new Error("no guard may let a task through in this test");
    },
  });
  try {
    const start = (caller: Caller, message = "Do it", ref = pg.identifier) =>
      service.start(ref, message, { caller });

    let e = await refusal(start(TOP, "   "));
    assert.match(e.message, /needs a message/);
    e = await refusal(start(TOP, "x".repeat(100_001)));
    assert.match(e.message, /100000/);

    e = await refusal(start({ ...TOP, depth: 2 }));
    assert.match(e.message, /depth limit reached \(2/);
    assert.match(e.remediation!, /yourself/);
    e = await refusal(start({ ...TOP, depth: 1, maxDepth: 1 }));
    assert.match(e.message, /depth limit/);

    const parent = randomUUID();
    for (let i = 0; i < 3; i++) store.insert(childTask(parent));
    e = await refusal(start({ ...TOP, depth: 1, parentTaskId: parent }));
    assert.match(e.message, /at most 3 tasks/);

    e = await refusal(start({ ...TOP, depth: 1, chain: ["urn:air:other:a2a:z", pg.identifier] }));
    assert.match(e.message, /higher up the chain/);
    // urn:ai: is the same entry as urn:air:.
    e = await refusal(start(TOP, "Do it", "urn:air:observal.local:a2a:does-not-exist"));
    assert.equal(e.code, "NOT_FOUND");
    assert.match(e.remediation!, /delegate find/);

    // Registry agents: a cycle by agent id, and the caller itself.
    const admin = pg.registry();
    try {
      const yaml = readFileSync(
        new URL("../../examples/agent/observal-agent.yaml", import.meta.url),
        "utf8",
      );
      const doc = await admin.publishAgent({ yaml, visibility: "public" });
      const urn = String(doc.identifier);
      const agentId = urn.split(":")[4];
      e = await refusal(start(TOP, "Review", urn));
      assert.match(e.message, /not approved/);
      await admin.reviewAgent(urn, {
        action: "approve",
        digest: String(doc["obs:artifactDigest"]),
      });
      e = await refusal(start({ ...TOP, chain: [agentId] }, "Review", urn));
      assert.match(e.message, /higher up the chain/);
      e = await refusal(start({ ...TOP, agentId }, "Review", urn));
      assert.match(e.message, /higher up the chain/);
    } finally {
      admin.close();
    }
    assert.equal(store.list().total, 3, "no refused delegation left a task behind");
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("guards: an unapproved card and a card without a JSON-RPC endpoint are refused", async () => {
  const pending = await playground({ approve: false });
  const restOnly = await playground({
    cardOverride: (card) => JSON.parse(JSON.stringify(card).replaceAll('"JSONRPC"', '"HTTP+JSON"')),
  });
  try {
    const r = await pending.observal(["delegate", "run", pending.identifier, "Do it"]);
    assert.equal(r.code, 6);
    assert.match(r.stderr, /is not approved/);
    assert.match(r.stderr, /reviewer/);
    const n = await restOnly.observal(["delegate", "run", restOnly.identifier, "Do it"]);
    assert.equal(n.code, 6);
    assert.match(n.stderr, /cannot take delegated tasks/);
    for (const pg of [pending, restOnly]) {
      assert.equal((await pg.json(["delegate", "list"])).body.total, 0);
      assert.equal(pg.agent.requests.filter((q) => q.rpcMethod).length, 0);
    }
  } finally {
    await pending.close();
    await restOnly.close();
  }
});

Deno.test("guards: the environment a delegated child inherits is honoured by the CLI", async () => {
  const pg = await playground();
  try {
    const deep = await pg.observal(["delegate", "run", pg.identifier, "Do it"], {
      OBSERVAL_DELEGATION_DEPTH: "2",
    });
    assert.equal(deep.code, 6);
    assert.match(deep.stderr, /depth limit/);
    const custom = await pg.observal(["delegate", "run", pg.identifier, "Do it"], {
      OBSERVAL_DELEGATION_DEPTH: "1",
      OBSERVAL_DELEGATION_MAX_DEPTH: "1",
    });
    assert.match(custom.stderr, /depth limit reached \(1/);
    const loop = await pg.observal(["delegate", "run", pg.identifier, "Do it"], {
      OBSERVAL_DELEGATION_CHAIN: `a,${pg.identifier},b`,
    });
    assert.match(loop.stderr, /would loop/);
  } finally {
    await pg.close();
  }
});

Deno.test("guards: a cycle is caught in every spelling of one identifier", async () => {
  const { checkCycle } = await import("../../lib/delegation/guards.ts");
  const target = {
    identifier: "urn:air:acme.com:agent:0f0e0d0c-0b0a-4908-8706-050403020100",
    agentId: "0f0e0d0c-0b0a-4908-8706-050403020100",
    name: "Fixer",
  };
  for (
    const spelled of [
      "urn:air:acme.com:agent:0f0e0d0c-0b0a-4908-8706-050403020100",
      "URN:AIR:ACME.COM:AGENT:0F0E0D0C-0B0A-4908-8706-050403020100",
      "urn:ai:acme.com:agent:0f0e0d0c-0b0a-4908-8706-050403020100",
      " Urn:Ai:acme.com:agent:0F0E0D0C-0b0a-4908-8706-050403020100 ",
      "0F0E0D0C-0B0A-4908-8706-050403020100",
    ]
  ) {
    assert.throws(
      () => checkCycle({ ...TOP, chain: [spelled] }, target),
      /higher up the chain/,
      spelled,
    );
  }
  assert.throws(
    () => checkCycle({ ...TOP, agentId: "0F0E0D0C-0B0A-4908-8706-050403020100" }, target),
    /higher up the chain/,
  );
  // A different agent is not caught by accident.
  checkCycle({ ...TOP, chain: ["urn:air:acme.com:agent:other"] }, target);
});
