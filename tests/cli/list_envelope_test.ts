/**
 * Every registry list prints one envelope under --json, checked by one schema, and the
 * same field names for the same things; people read states in words.
 */
import assert from "node:assert/strict";
import { ListEnvelopeSchema } from "../../lib/cli/list_envelope.ts";
import { EntryItemSchema } from "../../lib/cli/registry/entry_item.ts";
import { cli } from "../support/cli.ts";
import { json, seed } from "./_registry_seed.ts";

/** Each list command, and the schema of its items (entries share one). */
const LISTS: Array<{ argv: string[]; entries: boolean; keys: string[] }> = [
  { argv: ["registry", "search", "weather", "review"], entries: true, keys: ["identifier"] },
  { argv: ["registry", "agent", "list"], entries: true, keys: ["identifier"] },
  { argv: ["registry", "a2a", "list"], entries: true, keys: ["identifier"] },
  { argv: ["registry", "user", "list"], entries: false, keys: ["id", "handle", "role"] },
  { argv: ["registry", "team", "list"], entries: false, keys: ["id", "handle", "name"] },
  { argv: ["registry", "settings", "list"], entries: false, keys: ["key", "value", "allowed"] },
];

Deno.test("every registry list prints {items, total} under --json, validated by one schema", async () => {
  const s = await seed();
  try {
    s.reg.user("ursula", "reviewer");
    await json(["registry", "team", "add", "platform", "--name", "Platform"], s.env);
    for (const { argv, entries, keys } of LISTS) {
      const label = argv.join(" ");
      const envelope = ListEnvelopeSchema.parse(await json(argv, s.env));
      assert.ok(envelope.items.length > 0, label);
      assert.equal(envelope.total, envelope.items.length, label);
      for (const item of envelope.items) {
        if (entries) EntryItemSchema.parse(item);
        for (const key of keys) assert.ok(key in (item as object), `${label}: ${key}`);
      }
    }
  } finally {
    await s.close();
  }
});

Deno.test("the two kinds of entry are listed with the same names for the same things", async () => {
  const s = await seed();
  try {
    const agents = (await json(["registry", "agent", "list"], s.env)).items;
    const cards = (await json(["registry", "a2a", "list"], s.env)).items;
    const found = (await json(["registry", "search", "weather", "review"], s.env)).items;
    assert.deepEqual(agents.map((i: { identifier: string }) => i.identifier), [
      s.agent.identifier,
    ]);
    assert.deepEqual(cards.map((i: { identifier: string }) => i.identifier), [s.card.identifier]);
    for (const item of [...agents, ...cards, ...found]) {
      for (const wire of ["displayName", "obs:lifecycle", "results", "id", "status"]) {
        assert.ok(!(wire in item), `no ${wire} in ${JSON.stringify(item)}`);
      }
    }
    assert.deepEqual(
      [agents[0].kind, agents[0].state, agents[0].name],
      ["agent", "pending", "code-reviewer"],
    );
    assert.deepEqual(
      [cards[0].kind, cards[0].state, cards[0].name],
      ["a2a", "pending", "Weather Desk"],
    );
    const kinds = new Set(found.map((i: { kind: string }) => i.kind));
    assert.deepEqual(kinds, new Set(["agent", "a2a"]));
    assert.ok(found.every((i: { score?: number }) => typeof i.score === "number"));
  } finally {
    await s.close();
  }
});

Deno.test("registry search pages carry total and nextPageToken in the envelope", async () => {
  const s = await seed();
  try {
    const first = ListEnvelopeSchema.parse(
      await json(["registry", "search", "weather", "review", "--limit", "1"], s.env),
    );
    assert.equal(first.items.length, 1);
    assert.equal(first.total, 2);
    assert.ok(first.nextPageToken);
    const second = ListEnvelopeSchema.parse(
      await json([
        "registry",
        "search",
        "weather",
        "review",
        "--limit",
        "1",
        "--page-token",
        first.nextPageToken,
      ], s.env),
    );
    assert.equal(second.items.length, 1);
    assert.equal(second.total, 2);
    assert.equal(second.nextPageToken, undefined);
    assert.notDeepEqual(second.items, first.items);
  } finally {
    await s.close();
  }
});

Deno.test("lists and reviews show states in words, never raw state names", async () => {
  const s = await seed();
  try {
    for (const argv of [["registry", "agent", "list"], ["registry", "a2a", "list"]]) {
      const r = await cli(argv, { env: s.env });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^NAME +STATE +VISIBILITY +IDENTIFIER$/m);
      assert.match(r.stdout, / pending review /);
    }
    const search = await cli(["registry", "search", "weather"], { env: s.env });
    assert.match(search.stdout, /pending review/);
    const shown = await cli(["registry", "agent", "inspect", s.agent.identifier], { env: s.env });
    assert.match(shown.stdout, /^State: +pending review$/m);
    const review = await cli([
      "registry",
      "a2a",
      "review",
      s.card.identifier,
      "--reject",
      "--reason",
      "Needs a real endpoint",
    ], { env: s.env });
    assert.equal(review.code, 0, review.stderr);
    assert.equal(review.stdout, "Weather Desk is now rejected.\n");
    const inspect = await cli(["registry", "a2a", "inspect", s.card.identifier], { env: s.env });
    assert.match(inspect.stdout, /^State: +rejected$/m);
    for (const out of [search.stdout, shown.stdout, inspect.stdout]) {
      assert.doesNotMatch(out, /\bPENDING\b|TASK_STATE_|obs:lifecycle/);
    }
  } finally {
    await s.close();
  }
});
