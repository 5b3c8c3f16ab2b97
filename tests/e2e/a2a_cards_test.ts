/**
 * Cards served by real @a2a-js/sdk agents (1.3.0 for A2A v1.0, 0.3.14 for v0.3) import,
 * pin the callable JSON-RPC interface, and search as delegable once approved.
 */
import assert from "node:assert/strict";
import { startV03Agent, startV1Agent, type TestAgent } from "../support/a2a_agents.ts";
import { startRegistry } from "../support/registry.ts";

const cases: Array<{ label: string; start: () => Promise<TestAgent>; version: RegExp }> = [
  {
    label: "v1.0 (sdk 1.3.0)",
    start: () => startV1Agent({ name: "Docs Summarizer" }),
    version: /^1\./,
  },
  {
    label: "v0.3 (sdk 0.3.14)",
    start: () => startV03Agent({ name: "Docs Summarizer" }),
    version: /^0\.3/,
  },
];

for (const { label, start, version } of cases) {
  Deno.test(`a2a import: a ${label} card pins its JSON-RPC interface and becomes delegable`, async () => {
    const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
    const agent = await start();
    try {
      const client = reg.embedded();
      const doc = await client.submitCard({ cardUrl: agent.cardUrl, visibility: "public" });
      const iface = doc["obs:a2aInterface"] as Record<string, string>;
      assert.equal(iface.url, agent.rpcUrl);
      assert.equal(iface.protocolBinding, "JSONRPC");
      assert.match(iface.protocolVersion, version);
      assert.deepEqual(doc["obs:agentCard"], agent.card, "the reviewed card is stored verbatim");
      assert.equal(doc["obs:signature"] !== undefined, true);
      assert.equal(agent.requests.filter((r) => r.path.includes("agent-card")).length, 1);
      assert.equal(
        agent.requests.filter((r) => r.rpcMethod).length,
        0,
        "importing never calls the agent",
      );

      const before = await client.search({ query: { text: "docs summarizer" } });
      assert.equal(before.results[0]?.["obs:delegable"], false);
      await client.reviewImport(String(doc.identifier), {
        action: "approve",
        digest: String(doc["obs:artifactDigest"]),
      });
      const after = await client.search({
        query: {
          text: "summarizer",
          filter: { type: "application/a2a-agent-card+json", "obs:lifecycle": "approved" },
        },
      });
      assert.equal(after.results.length, 1);
      assert.equal(after.results[0].identifier, doc.identifier);
      assert.equal(after.results[0]["obs:delegable"], true);
      assert.ok((after.results[0].score ?? 0) > 0);
    } finally {
      await agent.close();
      await reg.close();
    }
  });
}

Deno.test("a2a import: a card on a host that is not allowlisted is refused and nothing is stored", async () => {
  const reg = await startRegistry();
  const agent = await startV1Agent();
  try {
    const client = reg.embedded();
    const err = await client.submitCard({ cardUrl: agent.cardUrl }).catch((e) => e);
    assert.equal(err.code, "UNSAFE_URL");
    assert.match(err.remediation ?? err.message, /a2a_private_hosts/);
    assert.equal(agent.requests.length, 0, "the card was never fetched");
    assert.equal((await client.listImports()).total, 0);
  } finally {
    await agent.close();
    await reg.close();
  }
});
