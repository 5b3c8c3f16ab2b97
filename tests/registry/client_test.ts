/**
 * One client suite, two transports: HTTP to a served registry, and the embedded registry
 * called in process. Both must behave the same.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { RegistryClient } from "../../lib/registry/mod.ts";
import { startRegistry, type TestRegistry } from "../support/registry.ts";

const AGENT_YAML = readFileSync(
  new URL("../../examples/agent/observal-agent.yaml", import.meta.url),
  "utf8",
);

const transports: Array<[string, (reg: TestRegistry) => RegistryClient]> = [
  ["http", (reg) => reg.http(reg.user("root", "admin").key)],
  ["embedded", (reg) => reg.embedded()],
];

for (const [name, open] of transports) {
  Deno.test(`RegistryClient (${name}) publishes, reviews, searches and installs an agent`, async () => {
    const reg = await startRegistry();
    const client = open(reg);
    try {
      const doc = await client.publishAgent({ yaml: AGENT_YAML, visibility: "public" });
      const id = String(doc.identifier);
      assert.match(id, /^urn:air:observal\.local:agent:[0-9a-f-]{36}$/);
      assert.equal(doc["obs:lifecycle"], "pending");
      assert.match(String(doc["obs:nativeRef"]), /^[a-z0-9_-]+\/[a-z0-9_-]+@\d+\.\d+\.\d+/);

      const notYet = await client.installAgent(id, { harness: "claude-code" }).catch((e) => e);
      assert.equal(notYet.code, "NOT_FOUND", "an unapproved agent does not install");

      const stale = await client.reviewAgent(id, {
        action: "approve",
        digest: `sha256:${"0".repeat(64)}`,
      })
        .catch((e) => e);
      assert.equal(stale.code, "FAILED_PRECONDITION");
      const approved = await client.reviewAgent(id, {
        action: "approve",
        digest: String(doc["obs:artifactDigest"]),
      });
      assert.equal(approved["obs:lifecycle"], "approved");
      assert.equal(approved["obs:delegable"], true);

      const res = await client.search({ query: { text: "review pull request" } });
      const hit = res.results.find((r) => r.identifier === id);
      assert.ok(hit, "the approved agent is found");
      assert.equal(hit["obs:kind"], "agent");
      assert.equal(hit["obs:delegable"], true);
      assert.ok(Array.isArray(hit["obs:supportedHarnesses"]));

      const unsupported = await client.search({
        query: { text: "review", filter: { "obs:harness": "goose" } },
      });
      const u = unsupported.results.find((r) => r.identifier === id);
      assert.equal(u?.["obs:availability"], "unsupported-in-harness");

      const detail = await client.agent(id);
      assert.equal(detail.identifier, id);
      assert.equal(detail.latest_approved_version, doc.version);
      const byRef = await client.agent(String(detail.qualified_name));
      assert.equal(byRef.id, detail.id);

      const install = await client.installAgent(id, { harness: "claude-code" });
      assert.equal(install.harness, "claude-code");
      const snippet = install.config_snippet as Record<string, unknown>;
      assert.ok(snippet.agent_profile, "an agent profile is rendered");
      assert.ok(
        JSON.stringify(snippet).includes("observal-agents"),
        "delegation MCP entry present by default",
      );
      await client.admin("PUT", "/settings/discovery.delegation_enabled", { value: "false" });
      const without = await client.installAgent(id, { harness: "claude-code" });
      assert.ok(!JSON.stringify(without.config_snippet).includes("observal-agents"));

      const missing = await client.entry("urn:air:observal.local:agent:nope").catch((e) => e);
      assert.equal(missing.code, "NOT_FOUND");
      assert.equal(missing.message, "Entry not found");

      const dup = await client.publishAgent({ yaml: AGENT_YAML }).catch((e) => e);
      assert.equal(dup.code, "ALREADY_EXISTS");
      const bumped = AGENT_YAML.replace(/^version: .*$/m, "version: 9.9.9");
      const v2 = await client.publishAgent({ yaml: bumped, visibility: "public" });
      assert.equal(v2.identifier, id, "a new version keeps the identifier");
      assert.equal(v2["obs:lifecycle"], "pending", "and waits for review again");
      const stillInstalls = await client.installAgent(id, { harness: "claude-code" });
      assert.equal(stillInstalls.version, doc.version, "installs keep the approved version");
    } finally {
      client.close();
      await reg.close();
    }
  });
}
