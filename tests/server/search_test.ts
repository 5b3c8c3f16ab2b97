/** Search: relevance-only scores, filters, bound page tokens, archived entries, rate limits. */
import assert from "node:assert/strict";
import { relevance } from "../../lib/server/search.ts";
import { createRegistryApp } from "../../lib/server/mod.ts";
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
