/** Entry lookups (publish, import, review, install, prefixes, lists) read indexes, never scan. */
import assert from "node:assert/strict";
import {
  ENTRY_LOOKUPS,
  entryPrefixLookup,
  getVisibleEntry,
  loadAgentByRef,
  visibleSql,
} from "../../lib/server/entries.ts";
import { ANONYMOUS, authenticate, localAdmin } from "../../lib/server/identity.ts";
import { listingSql } from "../../lib/server/list_entries.ts";
import { startRegistry } from "../support/registry.ts";

Deno.test("ENTRY_LOOKUPS find an entry through an index, never by reading the table", async () => {
  const reg = await startRegistry();
  try {
    const db = reg.state.db;
    const plan = (sql: string, ...params: string[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
        .map((r) => r.detail).join("\n");
    const expected: Record<keyof typeof ENTRY_LOOKUPS, RegExp> = {
      byIdentifierOrId: /MULTI-INDEX OR[\s\S]*\(identifier=\?\)[\s\S]*\(id=\?\)/,
      byAgentRef: /SEARCH entries USING INDEX entries_agent_ref \(agent_ref=\?\)/,
      bySourceUrl: /SEARCH entries USING INDEX entries_source_url \(source_url=\?\)/,
    };
    for (const [name, sql] of Object.entries(ENTRY_LOOKUPS)) {
      const detail = plan(sql, ...sql.split("?").slice(1).map(() => "x"));
      assert.match(detail, expected[name as keyof typeof ENTRY_LOOKUPS], name);
      assert.doesNotMatch(detail, /SCAN entries/, name);
    }
  } finally {
    await reg.close();
  }
});

Deno.test("loadAgentByRef() finds an agent by namespace/name whatever its version", async () => {
  const reg = await startRegistry();
  const c = reg.embedded();
  try {
    const yaml = (name: string, version: string) =>
      `name: ${name}\nversion: ${version}\nprompt: Do it.\n`;
    await c.publishAgent({ yaml: yaml("note_taker", "1.0.0"), visibility: "public" });
    const other = await c.publishAgent({ yaml: yaml("note-taker", "1.0.0"), visibility: "public" });
    await c.publishAgent({ yaml: yaml("note-taker", "2.0.0"), visibility: "public" });
    const db = reg.state.db;
    const row = loadAgentByRef(db, "local/note-taker");
    assert.equal(row?.identifier, other.identifier);
    assert.equal(row?.native_ref, "local/note-taker@2.0.0");
    assert.equal(loadAgentByRef(db, "local/note"), undefined, "no prefix matches");
    assert.equal(loadAgentByRef(db, "local/note%"), undefined, "no patterns");
    const detail = await c.agent("local/note_taker");
    assert.equal(detail.qualified_name, "local/note_taker");
  } finally {
    c.close();
    await reg.close();
  }
});

Deno.test("prefix lookups and kind listings read one index range, never the whole table", async () => {
  const reg = await startRegistry();
  try {
    const db = reg.state.db;
    const viewers = {
      admin: localAdmin(db, "2026-01-01T00:00:00Z"),
      user: authenticate(db, reg.user("ursula").key),
      anonymous: ANONYMOUS,
    };
    for (const [who, viewer] of Object.entries(viewers)) {
      const vis = visibleSql(viewer, { publicRegistry: true });
      const plan = (sql: string, params: Record<string, string | number>) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ ...vis.params, ...params }) as Array<
          { detail: string }
        >).map((r) => r.detail).join("\n");
      const byTail = plan(entryPrefixLookup("5f2c", vis.sql), { lo: "5f2c", hi: "5f2d", limit: 6 });
      assert.match(
        byTail,
        /SEARCH e USING INDEX entries_identifier_tail \(identifier_tail>\? AND identifier_tail<\?\)/,
        who,
      );
      const byUrn = plan(entryPrefixLookup("urn:air:x", vis.sql), {
        lo: "urn:air:x",
        hi: "urn:air:y",
        limit: 6,
      });
      assert.match(byUrn, /SEARCH e USING INDEX \w+ \(identifier>\? AND identifier<\?\)/, who);
      const listing = listingSql(vis.sql);
      for (const sql of [listing.rows, listing.count]) {
        assert.match(plan(sql, { kind: "native" }), /SEARCH e USING INDEX entries_listing/, who);
      }
      for (const detail of [byTail, byUrn, plan(listing.rows, { kind: "native" })]) {
        assert.doesNotMatch(detail, /SCAN (e|entries)\b|TEMP B-TREE/, who);
      }
    }
  } finally {
    await reg.close();
  }
});

Deno.test("getVisibleEntry() takes a unique prefix of the UUID or slug, or of the identifier", async () => {
  const reg = await startRegistry();
  const c = reg.embedded();
  try {
    const doc = await c.publishAgent({ yaml: "name: tidy\nversion: 1.0.0\nprompt: Tidy up.\n" });
    const uuid = doc.identifier.split(":").pop()!;
    const admin = localAdmin(reg.state.db, "2026-01-01T00:00:00Z");
    const get = (ref: string) =>
      getVisibleEntry(reg.state.db, admin, ref, { publicRegistry: false }).identifier;
    for (const ref of [uuid, uuid.slice(0, 4), uuid.toUpperCase().slice(0, 9), doc.identifier]) {
      assert.equal(get(ref), doc.identifier, ref);
    }
    assert.equal(get(doc.identifier.slice(0, -30)), doc.identifier);
    assert.equal(get(doc.identifier.replace("urn:air:", "urn:ai:").slice(0, -3)), doc.identifier);
    assert.throws(() => get(uuid.slice(0, 3)), /too short/);
    assert.throws(() => get(`${uuid.slice(0, 8)}x`), /Entry not found/);
    assert.equal(get("urn:"), doc.identifier, "any prefix that matches one entry names it");
  } finally {
    c.close();
    await reg.close();
  }
});
