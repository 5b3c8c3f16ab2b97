/** Lookups on publish, import, review and install are indexed equalities, never scans. */
import assert from "node:assert/strict";
import { ENTRY_LOOKUPS, loadAgentByRef } from "../../lib/server/entries.ts";
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
