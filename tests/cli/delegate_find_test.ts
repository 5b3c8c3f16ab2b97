/** `observal delegate find` run by an agent: what the cycle guard would refuse is left out. */
import assert from "node:assert/strict";
import { playground } from "../support/delegation.ts";

Deno.test("delegate find run by an agent leaves out the agents above it in its chain", async () => {
  const pg = await playground({ behaviour: "complete" });
  try {
    const ids = async (env = {}) => {
      const r = await pg.json(["delegate", "find", "echo"], env);
      assert.equal(r.code, 0, r.stderr);
      return (r.body.items as Array<{ identifier: string }>).map((a) => a.identifier);
    };
    assert.deepEqual(await ids(), [pg.identifier]);
    // A shell inside an agent that this agent delegated to: the chain names it.
    const below = { OBSERVAL_DELEGATION_DEPTH: "1", OBSERVAL_DELEGATION_CHAIN: pg.identifier };
    assert.deepEqual(await ids(below), []);
  } finally {
    await pg.close();
  }
});
