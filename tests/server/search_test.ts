/**
 * Search: relevance-only scores and their order, filters, bound page tokens, archived
 * entries, rate limits, and the bounded index that picks the candidates.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { systemClock } from "../../lib/core/mod.ts";
import {
  CANDIDATE_BUDGET,
  COMBINED_SCAN,
  queryTokens,
  registerSearchFunctions,
  relevance,
  SCAN_LIMIT,
  searchEntries,
  type SqlParams,
} from "../../lib/server/search.ts";
import { ANONYMOUS, authenticate, localAdmin, type Viewer } from "../../lib/server/identity.ts";
import { createRegistryApp, MIGRATIONS, openRegistry, registryPath } from "../../lib/server/mod.ts";
import { type DatabaseSync, openDatabase, transaction } from "../../lib/sqlite/mod.ts";
import { startRegistry } from "../support/registry.ts";

function agentYaml(name: string, extra: Record<string, string> = {}) {
  const lines = [
    `name: ${name}`,
    "version: 1.0.0",
    `description: ${extra.description ?? "An agent"}`,
    "prompt: Do the work.",
    `tags: [${extra.tags ?? "general"}]`,
    `capabilities: [${extra.capabilities ?? "general help"}]`,
  ];
  return lines.join("\n") + "\n";
}

Deno.test("relevance() ranks exact over prefix over substring, and rewards coverage and phrases", () => {
  const exact = relevance(["review", "", "", ""], ["review"], "review");
  const prefix = relevance(["reviewer", "", "", ""], ["review"], "review");
  const sub = relevance(["peerreviewed", "", "", ""], ["review"], "review");
  assert.ok(exact > prefix && prefix > sub && sub > 0, `${exact} ${prefix} ${sub}`);
  const nameHit = relevance(["security", "", "", ""], ["security"], "security");
  const descHit = relevance(["", "", "", "security"], ["security"], "security");
  assert.ok(nameHit > descHit, "the name weighs more than the description");
  const both = relevance(["release notes", "", "", ""], ["release", "notes"], "release notes");
  const one = relevance(["release", "", "", ""], ["release", "notes"], "release notes");
  assert.ok(both > one);
  assert.equal(
    relevance(["x", "", "", ""], ["nothing"], "nothing"),
    1,
    "a candidate scores at least 1",
  );
  assert.equal(both, 100);
});

/** relevance() as the reference states it: split every field into words, then compare. */
function referenceRelevance(fields: string[], tokens: string[], phrase: string): number {
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const quality = (token: string, ws: string[]) => {
    let best = 0;
    for (const w of ws) {
      if (w === token) return 1;
      if (token.length >= 4 && w.startsWith(token)) best = Math.max(best, 0.7);
      else if (token.length >= 3 && w.includes(token)) best = Math.max(best, 0.4);
    }
    return best;
  };
  const weights = [1.0, 0.85, 0.7, 0.5];
  let total = 0;
  let covered = 0;
  for (const t of tokens) {
    const best = Math.max(...fields.map((f, i) => quality(t, words(f)) * weights[i]));
    total += best;
    if (best > 0) covered++;
  }
  const hit = phrase.includes(" ") && fields.some((f) => words(f).join(" ").includes(phrase));
  const score = 100 *
    (0.7 * (total / tokens.length) + 0.2 * (covered / tokens.length) + 0.1 * (hit ? 1 : 0));
  return Math.max(1, Math.min(100, Math.round(score)));
}

Deno.test("relevance() scores like splitting every field into words, for any text", () => {
  const pieces = [
    "review",
    "Reviewer",
    "peer",
    "REVIEWED",
    "notes",
    "release",
    "re",
    "rev",
    "é",
    "Café",
    "straße",
    "İstanbul",
    "ǅ",
    "日本",
    "42",
    "x1",
    "-",
    " ",
    ", ",
    "  ",
    "\n",
    "_",
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((p) => p.join(""));
  fc.assert(
    fc.property(fc.tuple(text, text, text, text), text, (fields, query) => {
      const tokens = queryTokens(query);
      if (tokens.length === 0) return;
      const phrase = (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
      assert.equal(relevance(fields, tokens, phrase), referenceRelevance(fields, tokens, phrase));
    }),
    { numRuns: 3000 },
  );
});

Deno.test("queryTokens() gives the distinct Unicode words of any query, at most 32", () => {
  const pieces = [
    "Review",
    "CODE",
    "é",
    "Café",
    "straße",
    "İstanbul",
    "日本",
    "42",
    "a1",
    " ",
    "-",
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 80 }).map((p) => p.join(""));
  fc.assert(
    fc.property(text, (query) => {
      const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      assert.deepEqual(queryTokens(query), [...new Set(words)].slice(0, 32));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("search filters by type, kind, tags, capabilities, publisher and lifecycle", async () => {
  const reg = await startRegistry();
  const c = reg.embedded();
  try {
    const ids: Record<string, string> = {};
    for (
      const [name, extra] of [
        ["security-reviewer", { tags: "security", capabilities: "code review" }],
        ["docs-writer", { tags: "docs", capabilities: "writing" }],
        ["test-writer", { tags: "testing", capabilities: "code review" }],
      ] as const
    ) {
      const doc = await c.publishAgent({ yaml: agentYaml(name, extra), visibility: "public" });
      ids[name] = String(doc.identifier);
      await c.reviewAgent(ids[name], {
        action: "approve",
        digest: String(doc["obs:artifactDigest"]),
      });
    }
    const names = async (filter: Record<string, string | string[]>, text = "writer reviewer") =>
      (await c.search({ query: { text, filter } })).results.map((r) => r.displayName).sort();
    assert.deepEqual(await names({}), ["docs-writer", "security-reviewer", "test-writer"]);
    assert.deepEqual(await names({ tags: "docs" }), ["docs-writer"]);
    assert.deepEqual(await names({ capabilities: ["code review"] }), [
      "security-reviewer",
      "test-writer",
    ]);
    assert.deepEqual(await names({ "obs:kind": "a2a" }), []);
    assert.deepEqual(await names({ kind: "agent", tags: ["security", "testing"] }), [
      "security-reviewer",
      "test-writer",
    ]);
    assert.deepEqual(await names({ publisher: "observal.local" }), [
      "docs-writer",
      "security-reviewer",
      "test-writer",
    ]);
    assert.deepEqual(await names({ publisher: "observal.loc" }), [], "publisher is a whole label");
    assert.deepEqual(await names({ type: "application/a2a-agent-card+json" }), []);

    // Archived entries appear only when asked for.
    reg.state.db.prepare("UPDATE entries SET lifecycle = 'archived' WHERE identifier = ?").run(
      ids["docs-writer"],
    );
    assert.deepEqual(await names({}), ["security-reviewer", "test-writer"]);
    assert.deepEqual(await names({ "obs:lifecycle": "archived" }), ["docs-writer"]);
    const archived = (await c.search({
      query: { text: "docs", filter: { "obs:lifecycle": "archived" } },
    })).results[0];
    assert.equal(archived["obs:availability"], "archived");
    assert.equal(archived["obs:delegable"], false);

    const bad = await c.search({ query: { text: "x", filter: { color: "red" } } }).catch((e) => e);
    assert.equal(bad.code, "INVALID_ARGUMENT");
    assert.match(bad.message, /color/);
  } finally {
    c.close();
    await reg.close();
  }
});

Deno.test("search page tokens are bound to the query and the caller", async () => {
  const reg = await startRegistry();
  const c = reg.embedded();
  try {
    for (const n of ["alpha-writer", "beta-writer", "gamma-writer"]) {
      const doc = await c.publishAgent({ yaml: agentYaml(n), visibility: "public" });
      await c.reviewAgent(String(doc.identifier), {
        action: "approve",
        digest: String(doc["obs:artifactDigest"]),
      });
    }
    const seen = new Set<string>();
    let token: string | undefined;
    do {
      const page = await c.search({ query: { text: "writer" }, pageSize: 1, pageToken: token });
      page.results.forEach((r) => seen.add(r.identifier));
      token = page.pageToken;
    } while (token);
    assert.equal(seen.size, 3, "paging visits every result once");
    const first = await c.search({ query: { text: "writer" }, pageSize: 1 });
    const other = await c.search({
      query: { text: "alpha" },
      pageSize: 1,
      pageToken: first.pageToken,
    }).catch((e) => e);
    assert.equal(other.code, "INVALID_ARGUMENT");
    const asOther = await reg.http(reg.user("eve").key).search({
      query: { text: "writer" },
      pageSize: 1,
      pageToken: first.pageToken,
    }).catch((e) => e);
    assert.equal(asOther.code, "INVALID_ARGUMENT", "another caller cannot reuse the token");
  } finally {
    c.close();
    await reg.close();
  }
});

Deno.test("search is limited to 60 requests a minute per caller", async () => {
  const reg = await startRegistry();
  try {
    const app = createRegistryApp(reg.state);
    const key = reg.user("busy").key;
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const res = await app.request("/api/v1/ard/search", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ query: { text: "x" } }),
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.equal(statuses.filter((s) => s === 200).length, 60);
    assert.equal(statuses[60], 429);
  } finally {
    await reg.close();
  }
});

Deno.test("search with many full matches pages through them once each, full matches first", async () => {
  const reg = await startRegistry();
  const c = reg.embedded();
  try {
    const insert = reg.state.db.prepare(
      `INSERT INTO entries (id, identifier, kind, source_kind, type, display_name, description,
         version, owner_id, visibility, lifecycle, native_ref, digest, delegable, harnesses,
         search_queries, search_capabilities, doc, created_at, updated_at)
       VALUES (?, ?, 'agent', 'native', 'application/vnd.observal.agent+json', ?, ?, '1.0.0', 'x',
         'public', 'approved', ?, 'sha256:0', 1, '[]', '', '', ?, 'now', 'now')`,
    );
    const add = (name: string, description: string) => {
      const id = crypto.randomUUID();
      const identifier = `urn:air:observal.local:agent:${id}`;
      insert.run(
        id,
        identifier,
        name,
        description,
        `bulk/${name}@1.0.0`,
        JSON.stringify({
          identifier,
          displayName: name,
          type: "application/vnd.observal.agent+json",
          url: "https://observal.local/x",
        }),
      );
      return identifier;
    };
    const full = new Set<string>();
    for (let i = 0; i < 230; i++) full.add(add(`helper-${i}`, "writes release notes"));
    const partial = add("release", "ships things");
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await c.search({
        query: { text: "release notes" },
        pageSize: 100,
        pageToken: token,
      });
      seen.push(...page.results.map((r) => r.identifier));
      token = page.pageToken;
    } while (token);
    assert.equal(new Set(seen).size, seen.length, "no entry twice");
    const fullSeen = seen.filter((id) => full.has(id));
    assert.ok(fullSeen.length >= 200, `${fullSeen.length} full matches listed`);
    const firstPartial = seen.indexOf(partial);
    if (firstPartial >= 0) assert.ok(firstPartial >= 200, "full matches come first");
  } finally {
    c.close();
    await reg.close();
  }
});

// ---- ranking and the bounded search index ------------------------------------------------

interface EntrySpec {
  name: string;
  description?: string;
  queries?: string;
  caps?: string;
  lifecycle?: string;
  visibility?: "public" | "team" | "owner";
  owner?: string;
  recommended?: boolean;
  id?: string;
}

/** Writes an entry row directly, as a bulk import would; the triggers index it. */
function insertEntry(db: DatabaseSync, spec: EntrySpec): string {
  const id = spec.id ?? crypto.randomUUID();
  const identifier = `urn:air:observal.local:agent:${id}`;
  db.prepare(
    `INSERT INTO entries (id, identifier, kind, source_kind, type, display_name, description,
       version, owner_id, visibility, lifecycle, native_ref, digest, delegable, recommended,
       harnesses, search_queries, search_capabilities, doc, created_at, updated_at)
     VALUES (?, ?, 'agent', 'native', 'application/vnd.observal.agent+json', ?, ?, '1.0.0', ?,
       ?, ?, ?, 'sha256:0', 1, ?, '[]', ?, ?, ?, 'now', 'now')`,
  ).run(
    id,
    identifier,
    spec.name,
    spec.description ?? "",
    spec.owner ?? "someone",
    spec.visibility ?? "public",
    spec.lifecycle ?? "approved",
    `bulk/${spec.name}-${id}@1.0.0`,
    spec.recommended ? 1 : 0,
    spec.queries ?? "",
    spec.caps ?? "",
    JSON.stringify({
      identifier,
      displayName: spec.name,
      type: "application/vnd.observal.agent+json",
      url: "https://observal.local/x",
    }),
  );
  return identifier;
}

function search(
  db: DatabaseSync,
  viewer: Viewer,
  text: string,
  options: { pageSize?: number; trace?: (sql: string, params: SqlParams) => void } = {},
) {
  return searchEntries(db, viewer, { text, filter: {}, pageSize: options.pageSize ?? 10 }, {
    publicRegistry: true,
    trace: options.trace,
  });
}

const admin = (db: DatabaseSync) => localAdmin(db, "2026-01-01T00:00:00Z");

Deno.test("searchEntries() ranks an exact name over a prefix of a name over a description", async () => {
  const reg = await startRegistry();
  try {
    const db = reg.state.db;
    insertEntry(db, { name: "helper", description: "Can deploy services" });
    insertEntry(db, { name: "deployment-bot" });
    insertEntry(db, { name: "deploy-bot" });
    insertEntry(db, { name: "unrelated", description: "Writes poems" });
    const out = search(db, admin(db), "deploy");
    assert.deepEqual(
      out.hits.map((h) => [h.row.display_name, h.score]),
      [["deploy-bot", 90], ["deployment-bot", 69], ["helper", 55]],
    );
    assert.deepEqual(out.hits[2].matchedOn, ["description"]);
  } finally {
    await reg.close();
  }
});

Deno.test("searchEntries() rewards covering every word and the whole phrase", async () => {
  const reg = await startRegistry();
  try {
    const db = reg.state.db;
    insertEntry(db, { name: "release", description: "Ships builds" });
    insertEntry(db, { name: "scribe", description: "Keeps notes on every release" });
    insertEntry(db, { name: "writer", description: "Writes release notes weekly" });
    insertEntry(db, { name: "tagger", caps: "release notes" });
    const out = search(db, admin(db), "Release notes");
    assert.deepEqual(
      out.hits.map((h) => [h.row.display_name, h.score]),
      // capabilities 0.7 with the phrase; description 0.5 with and without it; one word of two
      [["tagger", 79], ["writer", 65], ["scribe", 55], ["release", 45]],
    );
    // More words than get a walk of their own: every candidate still scores by the formula.
    const text = "writes release notes weekly keeps every ships builds";
    const many = search(db, admin(db), text).hits;
    assert.ok(many.length >= 3, `${many.length} hits`);
    assert.deepEqual(many.map((h) => h.score), many.map((h) => h.score).sort((a, b) => b - a));
    for (const { row, score } of many) {
      const fields = [
        row.display_name,
        row.search_queries,
        row.search_capabilities,
        row.description,
      ];
      assert.equal(score, relevance(fields, text.split(" "), text), row.display_name);
    }
  } finally {
    await reg.close();
  }
});

Deno.test("searchEntries() orders equal scores approved first, then recommended, name, identifier", async () => {
  const reg = await startRegistry();
  try {
    const db = reg.state.db;
    const description = "Summarizes long threads";
    const ids = {
      pending: insertEntry(db, { name: "aaa", description, lifecycle: "pending" }),
      recommended: insertEntry(db, { name: "zzz", description, recommended: true }),
      second: insertEntry(db, {
        name: "bbb",
        description,
        id: "00000000-0000-4000-8000-000000000002",
      }),
      first: insertEntry(db, {
        name: "bbb",
        description,
        id: "00000000-0000-4000-8000-000000000001",
      }),
      named: insertEntry(db, { name: "ccc", description }),
    };
    const order = search(db, admin(db), "summarizes threads").hits.map((h) => h.row.identifier);
    assert.deepEqual(order, [ids.recommended, ids.first, ids.second, ids.named, ids.pending]);
    // Recommending an entry later moves it up: the index follows the update.
    db.prepare("UPDATE entries SET recommended = 1 WHERE identifier = ?").run(ids.named);
    const again = search(db, admin(db), "summarizes threads").hits.map((h) => h.row.identifier);
    assert.deepEqual(again.slice(0, 2), [ids.named, ids.recommended]);
  } finally {
    await reg.close();
  }
});

/** EXPLAIN QUERY PLAN of every statement one search runs, with the parameters it ran with. */
function plans(db: DatabaseSync, viewer: Viewer, text: string) {
  const statements: Array<{ sql: string; params: SqlParams; plan: string }> = [];
  const out = search(db, viewer, text, {
    trace: (sql, params) =>
      statements.push({
        sql,
        params,
        plan: (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>)
          .map((r) => r.detail).join("\n"),
      }),
  });
  return { out, statements };
}

Deno.test("searchEntries() reads bounded runs of the index when thousands of entries match", async () => {
  const reg = await startRegistry();
  try {
    const db = reg.state.db;
    transaction(db, () => {
      for (let i = 0; i < 4000; i++) {
        insertEntry(db, {
          name: `common-helper-${i}`,
          description: i % 2 ? "Handles common chores and shared tasks" : "Handles common chores",
          lifecycle: i % 5 === 0 ? "pending" : "approved",
        });
      }
    });
    const viewers = { admin: admin(db), user: authenticate(db, reg.user("ursula").key) };
    for (const [who, viewer] of Object.entries(viewers)) {
      for (const text of ["common", "common shared", "helper common chores"]) {
        const { out, statements } = plans(db, viewer, text);
        const label = `${who}: ${text}`;
        assert.equal(out.hits.length, 10, label);
        assert.ok(out.hits.every((h) => h.score >= 60), label);
        const walks = statements.filter((s) => s.sql.includes("FROM search_terms WHERE term"));
        assert.ok(walks.length >= 1, label);
        for (const w of walks) {
          // The index is read in rank order under a LIMIT and streamed into the visibility
          // check: no scan of the entries table, never more rows than the limit.
          assert.match(w.plan, /CO-ROUTINE \w\nSEARCH search_terms USING PRIMARY KEY \(term=\?\)/);
          assert.match(w.plan, /SEARCH e USING COVERING INDEX entries_visibility \(rowid=\?/);
          assert.doesNotMatch(w.plan, /SCAN (e|entries)\b/, label);
          assert.ok(Number(w.params.k) <= CANDIDATE_BUDGET, label);
          if (w.sql.includes("weight")) {
            // Weighing by the other words: one lookup per word, a sort of the bounded window.
            assert.equal(w.params.scan, COMBINED_SCAN, label);
            assert.match(w.plan, /SEARCH q USING COVERING INDEX search_terms_word_entry/, label);
          } else {
            assert.equal(w.params.scan, SCAN_LIMIT, label);
            assert.doesNotMatch(w.plan, /TEMP B-TREE/, label);
          }
        }
        const combined = walks.filter((w) => w.sql.includes("weight")).length;
        assert.equal(combined, text.includes(" ") ? 1 : 0, `${label}: walks weighing all words`);
        const scoring = statements.find((s) => s.sql.includes("obs_relevance"))!;
        const scored = JSON.parse(String(scoring.params.ids)) as number[];
        assert.ok(scored.length <= CANDIDATE_BUDGET, `${label}: ${scored.length} scored`);
        assert.doesNotMatch(scoring.plan, /SCAN (e|entries)\b/, label);
      }
    }
    // A word nobody used costs a vocabulary lookup (and one for words it might prefix).
    const { out, statements } = plans(db, viewers.user, "nonexistentword");
    assert.equal(out.hits.length, 0);
    assert.ok(statements.length <= 2);
    for (const s of statements) assert.match(s.plan, /^SEARCH search_vocab USING PRIMARY KEY/);
  } finally {
    await reg.close();
  }
});

Deno.test("searchEntries() lists only what the caller may see, however many hidden entries match", async () => {
  const reg = await startRegistry();
  try {
    const db = reg.state.db;
    const vera = reg.user("vera");
    const other = reg.user("otto");
    transaction(db, () => {
      for (let i = 0; i < 600; i++) {
        insertEntry(db, { name: `secret-${i}`, visibility: "owner", owner: other.id });
        insertEntry(db, { name: `secret-draft-${i}`, lifecycle: "draft", owner: other.id });
      }
    });
    const visible = new Set([
      insertEntry(db, { name: "keeper", description: "Keeps a secret" }),
      insertEntry(db, {
        name: "mine",
        description: "My secret notes",
        visibility: "owner",
        owner: vera.id,
      }),
      insertEntry(db, {
        name: "my-draft",
        description: "secret",
        lifecycle: "draft",
        owner: vera.id,
      }),
    ]);
    insertEntry(db, { name: "archived-secret", lifecycle: "archived" });
    insertEntry(db, { name: "gone-secret", description: "removed" });
    db.prepare("UPDATE entries SET tombstoned = 1 WHERE display_name = 'gone-secret'").run();
    const seen = search(db, authenticate(db, vera.key), "secret", { pageSize: 50 }).hits;
    assert.deepEqual(new Set(seen.map((h) => h.row.identifier)), visible);
    const anonymous = search(db, ANONYMOUS, "secret", { pageSize: 50 }).hits;
    assert.deepEqual(anonymous.map((h) => h.row.display_name), ["keeper"]);
  } finally {
    await reg.close();
  }
});

/** The index as rows, for comparing an incremental index with a rebuilt one. */
function indexRows(db: DatabaseSync) {
  return {
    terms: db.prepare("SELECT term, rank, entry FROM search_terms ORDER BY term, rank, entry")
      .all(),
    vocab: db.prepare("SELECT term, entries FROM search_vocab WHERE entries > 0 ORDER BY term")
      .all(),
  };
}

Deno.test("the search index follows entries as they are published, reviewed and removed", async () => {
  const reg = await startRegistry();
  const c = reg.embedded();
  try {
    const db = reg.state.db;
    const yaml = (version: string, description: string) =>
      `name: indexed-agent\nversion: ${version}\ndescription: ${description}\nprompt: Do it.\n`;
    const names = async (text: string) =>
      (await c.search({ query: { text } })).results.map((r) => r.displayName);
    const first = await c.publishAgent({
      yaml: yaml("1.0.0", "Feeds the zebra"),
      visibility: "public",
    });
    assert.deepEqual(await names("zebra"), ["indexed-agent"]);
    await c.publishAgent({ yaml: yaml("1.1.0", "Feeds the yak"), visibility: "public" });
    assert.deepEqual(await names("zebra"), [], "words of the old version are gone");
    assert.deepEqual(await names("yak"), ["indexed-agent"]);
    const rowid = (db.prepare("SELECT rowid FROM entries WHERE identifier = ?").get(
      String(first.identifier),
    ) as { rowid: number }).rowid;
    const ranks = () =>
      (db.prepare("SELECT rank FROM search_terms WHERE entry = ? ORDER BY rank").all(
        rowid,
      ) as Array<
        { rank: number }
      >).map((r) => r.rank);
    assert.ok(ranks().every((r) => (r & 2) === 0), "pending: no approval bit");
    const doc = await c.agent(String(first.identifier));
    await c.reviewAgent(String(first.identifier), {
      action: "approve",
      digest: String(doc.digest),
    });
    assert.ok(ranks().length > 0 && ranks().every((r) => (r & 2) === 2), "approved");
    insertEntry(db, { name: "yak-shaver", description: "Shaves yaks" });

    // Rebuilding from scratch gives the same rows the triggers kept up to date.
    const incremental = indexRows(db);
    db.exec("DELETE FROM search_meta");
    registerSearchFunctions(db);
    assert.deepEqual(indexRows(db), incremental);

    db.prepare("DELETE FROM entries WHERE rowid = ?").run(rowid);
    assert.deepEqual(ranks(), []);
    const yak = db.prepare("SELECT entries FROM search_vocab WHERE term = 'yak'").get() as {
      entries: number;
    };
    assert.equal(yak.entries, 1, "the removed entry no longer counts");
    assert.deepEqual(await names("yak"), ["yak-shaver"]);

    // An index a newer version built is left alone rather than rebuilt back and forth.
    db.exec("UPDATE search_meta SET value = '999'; DELETE FROM search_vocab");
    registerSearchFunctions(db);
    assert.equal(
      (db.prepare("SELECT count(*) AS n FROM search_vocab").get() as { n: number }).n,
      0,
    );
  } finally {
    c.close();
    await reg.close();
  }
});

Deno.test("openRegistry() indexes entries written before the search index existed", () => {
  const home = Deno.makeTempDirSync({ prefix: "observal-search-" });
  try {
    const path = registryPath(home);
    const old = openDatabase(path, { migrations: MIGRATIONS.slice(0, 1) });
    insertEntry(old, { name: "legacy-linter", description: "Lints legacy code" });
    old.close();
    const state = openRegistry({ path, clock: systemClock, delegationCommand: ["observal"] });
    try {
      const hits = search(state.db, admin(state.db), "legacy").hits;
      assert.deepEqual(hits.map((h) => [h.row.display_name, h.score]), [["legacy-linter", 90]]);
      assert.equal(hits[0].row.agent_ref, `bulk/legacy-linter-${hits[0].row.id}`);
    } finally {
      state.close();
    }
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("searchEntries() counts the matches of every page, for text and for filters alone", async () => {
  const reg = await startRegistry();
  try {
    const db = reg.state.db;
    for (let i = 0; i < 7; i++) insertEntry(db, { name: `ledger-keeper-${i}` });
    insertEntry(db, { name: "unrelated" });
    const first = search(db, admin(db), "ledger", { pageSize: 3 });
    assert.equal(first.hits.length, 3);
    assert.equal(first.total, 7);
    const last = searchEntries(db, admin(db), {
      text: "ledger",
      filter: {},
      pageSize: 3,
      pageToken: searchEntries(db, admin(db), {
        text: "ledger",
        filter: {},
        pageSize: 3,
        pageToken: first.pageToken,
      }, { publicRegistry: true }).pageToken,
    }, { publicRegistry: true });
    assert.equal(last.hits.length, 1);
    assert.equal(last.total, 7);
    const filtered = (pageSize: number) =>
      searchEntries(db, admin(db), { text: "", filter: { "obs:kind": "agent" }, pageSize }, {
        publicRegistry: true,
      });
    assert.equal(filtered(3).total, 8, "a filter-only page with more after it is counted");
    assert.equal(filtered(20).total, 8, "one page is its own count");
  } finally {
    await reg.close();
  }
});
