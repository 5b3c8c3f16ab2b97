/** The manifest, search and list responses validate against the ARD schemas. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { validate } from "../support/ard_schema.ts";
import { startV1Agent } from "../support/a2a_agents.ts";
import { startRegistry } from "../support/registry.ts";

const AGENT_YAML = readFileSync(
  new URL("../../examples/agent/observal-agent.yaml", import.meta.url),
  "utf8",
);

Deno.test("ARD responses validate against ai-catalog.schema.json and ard.openapi.yaml", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const agent = await startV1Agent({ name: "Schema Checker" });
  try {
    reg.setting("deployment.public_registry_enabled", true);
    const admin = reg.embedded();
    const published = await admin.publishAgent({ yaml: AGENT_YAML, visibility: "public" });
    await admin.reviewAgent(String(published.identifier), {
      action: "approve",
      digest: String(published["obs:artifactDigest"]),
    });
    const imported = await admin.submitCard({ cardUrl: agent.cardUrl, visibility: "public" });
    await admin.reviewImport(String(imported.identifier), {
      action: "approve",
      digest: String(imported["obs:artifactDigest"]),
    });

    const anon = reg.http();
    const manifest = await anon.manifest();
    assert.deepEqual(validate("manifest", manifest), []);
    const entries = manifest.entries as Array<Record<string, unknown>>;
    assert.equal(entries[0].type, "application/ai-registry+json");
    assert.ok(entries.some((e) => e.identifier === published.identifier));
    assert.ok(
      !entries.some((e) => e.identifier === imported.identifier),
      "imported cards never appear in the manifest",
    );

    for (const client of [anon, admin]) {
      const res = await client.search({
        query: { text: "review schema checker code" },
        pageSize: 1,
      });
      assert.deepEqual(validate("SearchResponse", res), []);
      assert.equal(res.results.length, 1);
      assert.ok(res.pageToken, "a second page exists");
      const next = await client.search({
        query: { text: "review schema checker code" },
        pageSize: 1,
        pageToken: res.pageToken,
      });
      assert.deepEqual(validate("SearchResponse", next), []);
      assert.notEqual(next.results[0].identifier, res.results[0].identifier);
      for (const r of [...res.results, ...next.results]) {
        assert.ok(r.score! >= 0 && r.score! <= 100);
      }
      const list = await client.listAgents({ pageSize: 1 });
      assert.deepEqual(validate("ListResponse", list), []);
      assert.equal(list.total, 2);
      const entry = await client.entry(String(imported.identifier));
      assert.deepEqual(validate("catalogEntry", entry), []);
      const native = await client.entry(String(published.identifier));
      assert.deepEqual(validate("catalogEntry", native), []);
    }
    const explore = await fetch(`${reg.url}/api/v1/ard/explore`, { method: "POST", body: "{}" });
    assert.equal(explore.status, 501);
    assert.deepEqual(validate("Error", await explore.json()), []);
  } finally {
    await agent.close();
    await reg.close();
  }
});

Deno.test("anonymous callers see nothing while the public registry is off", async () => {
  const reg = await startRegistry();
  try {
    const admin = reg.embedded();
    const published = await admin.publishAgent({ yaml: AGENT_YAML, visibility: "public" });
    await admin.reviewAgent(String(published.identifier), {
      action: "approve",
      digest: String(published["obs:artifactDigest"]),
    });
    const anon = reg.http();
    assert.equal((await anon.search({ query: { text: "review" } })).results.length, 0);
    const manifest = await anon.manifest();
    assert.equal((manifest.entries as unknown[]).length, 1, "only the registry entry");
    assert.deepEqual(validate("manifest", manifest), []);
    const err = await anon.entry(String(published.identifier)).catch((e) => e);
    assert.equal(err.code, "NOT_FOUND");
  } finally {
    await reg.close();
  }
});
