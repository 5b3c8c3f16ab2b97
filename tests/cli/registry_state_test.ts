/** `registry agent list` and `registry a2a list` narrowed with --state. */
import assert from "node:assert/strict";
import { cli } from "../support/cli.ts";
import { json, seed } from "./_registry_seed.ts";

const ids = (list: { items: Array<{ identifier: string }> }) => list.items.map((i) => i.identifier);

Deno.test("registry agent list and a2a list --state keep the entries in that state", async () => {
  const s = await seed();
  try {
    const kinds = [
      { kind: "agent", entry: s.agent },
      { kind: "a2a", entry: s.card },
    ];
    for (const { kind, entry } of kinds) {
      const pending = await json(["registry", kind, "list", "--state", "pending"], s.env);
      assert.deepEqual(ids(pending), [entry.identifier], kind);
      assert.equal(pending.total, 1);
      const approved = await json(["registry", kind, "list", "--state", "approved"], s.env);
      assert.deepEqual([ids(approved), approved.total], [[], 0], kind);
    }
    await json([
      "registry",
      "agent",
      "review",
      s.agent.identifier,
      "--approve",
      "--digest",
      String(s.agent["obs:artifactDigest"]),
    ], s.env);
    await json(
      ["registry", "a2a", "review", s.card.identifier, "--reject", "--reason", "No"],
      s.env,
    );
    for (
      const [kind, state, entry] of [["agent", "approved", s.agent], [
        "a2a",
        "rejected",
        s.card,
      ]] as const
    ) {
      assert.deepEqual(ids(await json(["registry", kind, "list", "--state", state], s.env)), [
        entry.identifier,
      ]);
      // Any case is accepted.
      const upper = await json(["registry", kind, "list", "--state", state.toUpperCase()], s.env);
      assert.deepEqual(ids(upper), [entry.identifier]);
      assert.deepEqual(
        ids(await json(["registry", kind, "list", "--state", "pending"], s.env)),
        [],
      );
    }
    const none = await cli(["registry", "agent", "list", "--state", "rejected"], { env: s.env });
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, "None in that state.\n");
  } finally {
    await s.close();
  }
});

Deno.test("registry agent list and a2a list refuse an unknown --state, listing the accepted ones", async () => {
  const s = await seed();
  try {
    for (const kind of ["agent", "a2a"]) {
      const r = await cli(["registry", kind, "list", "--state", "aproved", "--json"], {
        env: s.env,
      });
      assert.equal(r.code, 2, r.stderr);
      const { error } = JSON.parse(r.stderr);
      assert.equal(error.message, '--state cannot be "aproved"');
      assert.equal(
        error.remediation,
        "Did you mean approved? Use one of: pending, approved, rejected",
      );
    }
  } finally {
    await s.close();
  }
});
