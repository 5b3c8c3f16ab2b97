/**
 * Entries are named by unique prefixes wherever an entry is taken: the UUID or slug at
 * the end of an identifier, or the identifier itself. Ambiguous prefixes are refused with
 * the candidates, too short ones with the minimum, unknown ones as not found.
 */
import assert from "node:assert/strict";
import { cli } from "../support/cli.ts";
import { insertCard, json, seed } from "./_registry_seed.ts";

/** The last part of an identifier: a UUID, or an imported card's slug. */
const tail = (identifier: string) => identifier.split(":").pop()!;

Deno.test("inspect, review, install and remove take a unique prefix of an entry's id", async () => {
  const s = await seed();
  try {
    const agentPrefix = tail(s.agent.identifier).slice(0, 6);
    const cardPrefix = tail(s.card.identifier).slice(0, 5);
    for (
      const [argv, identifier] of [
        [["registry", "inspect", agentPrefix], s.agent.identifier],
        [["registry", "inspect", s.agent.identifier.slice(0, -20)], s.agent.identifier],
        [["registry", "agent", "inspect", agentPrefix], s.agent.identifier],
        [["registry", "agent", "show", agentPrefix], s.agent.identifier],
        [["registry", "a2a", "inspect", cardPrefix], s.card.identifier],
        [["registry", "a2a", "inspect", cardPrefix.toUpperCase()], s.card.identifier],
      ] as Array<[string[], string]>
    ) {
      assert.equal((await json(argv, s.env)).identifier, identifier, argv.join(" "));
    }
    const reviewed = await json([
      "registry",
      "agent",
      "review",
      agentPrefix,
      "--approve",
      "--digest",
      String(s.agent["obs:artifactDigest"]),
    ], s.env);
    assert.equal(reviewed.identifier, s.agent.identifier);
    assert.equal(reviewed["obs:lifecycle"], "approved");
    const install = await json(
      ["registry", "agent", "install", agentPrefix, "--harness", "codex"],
      s.env,
    );
    assert.equal(install.harness, "codex");
    const card = await json([
      "registry",
      "a2a",
      "review",
      cardPrefix,
      "--approve",
      "--digest",
      String(s.card["obs:artifactDigest"]),
    ], s.env);
    assert.equal(card["obs:lifecycle"], "approved");
    const removed = await json(["registry", "a2a", "remove", cardPrefix, "--yes"], s.env);
    assert.deepEqual(removed, { identifier: s.card.identifier, removed: true });
    const gone = await cli(["registry", "a2a", "inspect", cardPrefix], { env: s.env });
    assert.equal(gone.code, 5);
  } finally {
    await s.close();
  }
});

Deno.test("an ambiguous prefix is refused, naming up to five of the entries it matches", async () => {
  const s = await seed();
  try {
    const db = s.reg.state.db;
    const two = ["deadbeef-one", "deadbeef-two"].map((t) => insertCard(db, t));
    const r = await cli(["registry", "inspect", "deadbeef"], { env: s.env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /"deadbeef" matches more than one entry/);
    for (const identifier of two) assert.ok(r.stderr.includes(identifier), r.stderr);
    assert.doesNotMatch(r.stderr, /and more/);
    assert.equal((await json(["registry", "inspect", "deadbeef-t"], s.env)).identifier, two[1]);

    for (let i = 0; i < 6; i++) insertCard(db, `feedface-${i}`);
    const many = await cli(["registry", "a2a", "inspect", "feedface", "--json"], { env: s.env });
    assert.equal(many.code, 2);
    const { error } = JSON.parse(many.stderr);
    assert.equal(error.errorCode, "INVALID_ARGUMENT");
    assert.equal(error.remediation.match(/urn:air:example\.com:a2a:feedface-/g).length, 5);
    assert.match(error.remediation, /\(and more\)/);
  } finally {
    await s.close();
  }
});

Deno.test("a prefix that is too short, or matches nothing, is refused before anything changes", async () => {
  const s = await seed();
  try {
    const short = await cli(["registry", "agent", "review", "abc", "--reject", "--reason", "x"], {
      env: s.env,
    });
    assert.equal(short.code, 2);
    assert.match(short.stderr, /"abc" is too short to name an entry/);
    assert.match(short.stderr, /at least 4 characters/);
    const none = await cli(["registry", "a2a", "remove", "zzzz", "--yes"], { env: s.env });
    assert.equal(none.code, 5);
    assert.match(none.stderr, /Entry not found/);
    const wrongKind = await cli(
      ["registry", "a2a", "remove", tail(s.agent.identifier).slice(0, 8), "--yes"],
      { env: s.env },
    );
    assert.equal(wrongKind.code, 2);
    assert.match(wrongKind.stderr, /is a registry Agent, not a remote A2A agent/);
    assert.match(wrongKind.stderr, /observal registry agent/);
    const still = await json(["registry", "agent", "list"], s.env);
    assert.equal(still.items[0].state, "pending", "the refused review changed nothing");
  } finally {
    await s.close();
  }
});

Deno.test("prefixes resolve only among entries the caller may see", async () => {
  const s = await seed();
  try {
    const db = s.reg.state.db;
    const mine = insertCard(db, "cafe0001-public");
    insertCard(db, "cafe0002-hidden", { visibility: "owner", owner: "someone-else" });
    const key = s.reg.user("vera").key;
    const client = s.reg.http(key);
    try {
      const doc = await client.resolveEntry("cafe");
      assert.equal(doc.identifier, mine, "the hidden entry makes no ambiguity");
      const hidden = await client.resolveEntry("cafe0002").catch((e) => e);
      assert.equal(hidden.code, "NOT_FOUND");
    } finally {
      client.close();
    }
    // The local admin sees both, so for it the same prefix is ambiguous.
    const r = await cli(["registry", "inspect", "cafe"], { env: s.env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /cafe0002-hidden/);
  } finally {
    await s.close();
  }
});
