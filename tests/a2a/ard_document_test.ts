import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import {
  A2A_AGENT_CARD_MEDIA_TYPE,
  cardDigest,
  cardIdentifier,
  importedCardDocument,
  ImportedCardDocumentSchema,
  type ImportedCardInput,
  parseAgentCard,
} from "../../lib/a2a/mod.ts";

const schema = JSON.parse(
  readFileSync(new URL("../support/ard/ai-catalog.schema.json", import.meta.url), "utf8"),
);
// ajv-formats is CommonJS; its typings describe the default export as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(schema);
const validateEntry = ajv.getSchema(`${schema.$id}#/$defs/catalogEntry`)!;

function assertCatalogEntry(doc: unknown) {
  const ok = validateEntry(doc);
  assert.ok(ok, JSON.stringify(validateEntry.errors, null, 2));
}

const CARD_URL = "https://agents.acme.com/.well-known/agent-card.json";
const RAW = {
  name: "Release Notes Writer",
  description: "Turns a brief into release notes. Deterministic and quick.",
  version: "2.1.0",
  supportedInterfaces: [
    { url: "https://agents.acme.com/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    { url: "https://agents.acme.com/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
  ],
  provider: { organization: "Acme", url: "https://acme.com" },
  capabilities: { streaming: true, pushNotifications: true },
  securitySchemes: {
    zkey: { apiKeySecurityScheme: { location: "header", name: "X-Key" } },
    bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } },
  },
  skills: [
    {
      id: "notes",
      name: "Notes",
      description: "Writes release notes from a list of changes.",
      tags: ["release", "docs"],
      examples: ["Write release notes for 2.1", "Summarise these commits"],
    },
    { id: "tone", name: "Tone", description: "Adjusts tone.", tags: ["docs", "style"] },
  ],
};

function input(overrides: Partial<ImportedCardInput> = {}): ImportedCardInput {
  const card = parseAgentCard(structuredClone(RAW));
  return {
    card,
    cardUrl: CARD_URL,
    identifier: cardIdentifier(CARD_URL, card.name, {
      registryDomain: "observal.local",
      entryUuid: "6c1f4a2e-4b0d-4e55-9d52-3b1c5f8e7a90",
    }),
    lifecycle: "pending",
    visibility: "private",
    digest: cardDigest(RAW),
    updatedAt: new Date("2026-12-02T10:00:00.000Z"),
    ...overrides,
  };
}

Deno.test("importedCardDocument() builds every field of an imported card entry", () => {
  const doc = importedCardDocument(input({ reviewNote: "Looks fine" }));
  assert.deepEqual(doc["@context"], [
    "https://agenticresourcediscovery.org/context/v1",
    { obs: "https://observal.io/ns#" },
  ]);
  assert.equal(doc.identifier, "urn:air:agents.acme.com:a2a:release-notes-writer");
  assert.equal(doc.displayName, "Release Notes Writer");
  assert.equal(doc.type, A2A_AGENT_CARD_MEDIA_TYPE);
  assert.equal(doc.url, CARD_URL);
  assert.equal(doc.version, "2.1.0");
  assert.equal(doc.description, RAW.description);
  assert.deepEqual(doc.capabilities, [
    "a2a-skill:notes",
    "a2a-skill:tone",
    "binding:http+json",
    "binding:jsonrpc",
    "streaming",
    "push-notifications",
  ]);
  assert.deepEqual(doc.representativeQueries, [
    "Write release notes for 2.1",
    "Summarise these commits",
    "Turns a brief into release notes.",
    "Writes release notes from a list of changes.",
    "Adjusts tone.",
  ]);
  assert.deepEqual(doc.tags, ["a2a", "remote-agent", "release", "docs", "style"]);
  assert.deepEqual(doc.trustManifest, {
    identity: "https://agents.acme.com",
    identityType: "https",
  });
  assert.equal(doc["obs:kind"], "external");
  assert.equal(doc["obs:protocol"], "a2a");
  assert.equal(doc["obs:source"], "imported");
  assert.equal(doc["obs:lifecycle"], "pending");
  assert.equal(doc["obs:visibility"], "private");
  assert.equal(doc["obs:activatable"], false);
  assert.equal(doc["obs:delegable"], false);
  assert.equal(doc["obs:artifactDigest"], cardDigest(RAW));
  assert.equal(doc["obs:capabilitiesSource"], "publisher");
  assert.equal(doc["obs:representativeQueriesSource"], "publisher");
  assert.deepEqual(doc["obs:a2aInterface"], {
    url: "https://agents.acme.com/rpc",
    protocolBinding: "JSONRPC",
    protocolVersion: "1.0",
  });
  assert.deepEqual(doc["obs:a2aSecuritySchemes"], ["bearer", "zkey"]);
  assert.deepEqual(doc["obs:agentCard"], RAW);
  assert.equal(doc["obs:provider"], "Acme");
  assert.equal(doc["obs:reviewNote"], "Looks fine");
  assert.deepEqual(doc["obs:signature"], { status: "none" });
  assert.equal(doc.updatedAt, "2026-12-02T10:00:00.000Z");
  assertCatalogEntry(doc);
  assert.deepEqual(ImportedCardDocumentSchema.parse(JSON.parse(JSON.stringify(doc))), doc);
});

Deno.test("importedCardDocument() is delegable only when approved with a JSON-RPC interface", () => {
  assert.equal(importedCardDocument(input({ lifecycle: "approved" }))["obs:delegable"], true);
  assert.equal(importedCardDocument(input({ lifecycle: "rejected" }))["obs:delegable"], false);
  const restOnly = parseAgentCard({ ...RAW, supportedInterfaces: [RAW.supportedInterfaces[0]] });
  const doc = importedCardDocument(input({ card: restOnly, lifecycle: "approved" }));
  assert.equal(doc["obs:delegable"], false);
  assert.equal(doc["obs:a2aInterface"], undefined);
  assertCatalogEntry(doc);
});

Deno.test("importedCardDocument() omits representativeQueries when fewer than two exist", () => {
  const card = parseAgentCard({ name: "Bare", url: "http://127.0.0.1:9/rpc", description: "One." });
  const doc = importedCardDocument(
    input({
      card,
      cardUrl: "http://127.0.0.1:9/.well-known/agent-card.json",
      identifier: "urn:air:observal.local:a2a:6c1f4a2e-4b0d-4e55-9d52-3b1c5f8e7a90",
    }),
  );
  assert.equal(doc.representativeQueries, undefined);
  assert.equal(doc.version, "0.0.0");
  assert.deepEqual(doc.tags, ["a2a", "remote-agent"]);
  assert.deepEqual(doc.capabilities, ["binding:jsonrpc"]);
  assert.equal(doc["obs:provider"], undefined);
  assert.deepEqual(doc["obs:a2aSecuritySchemes"], []);
  assert.deepEqual(doc["obs:a2aInterface"]?.protocolVersion, "0.3.0");
  assert.deepEqual(doc.trustManifest, { identity: "https://127.0.0.1", identityType: "https" });
  assertCatalogEntry(doc);
});

Deno.test("importedCardDocument() caps queries, capabilities and tags", () => {
  const skills = Array.from({ length: 30 }, (_, i) => ({
    id: `s${i}`,
    description: `Skill number ${i} ${"x".repeat(200)}`,
    tags: Array.from({ length: 12 }, (_, j) => `t${i}-${j}`),
    examples: [`Example ${i}`],
  }));
  const card = parseAgentCard({ ...RAW, skills });
  const doc = importedCardDocument(input({ card }));
  assert.equal(doc.capabilities.length, 24);
  assert.equal(doc.tags.length, 12);
  assert.equal(doc.representativeQueries?.length, 5);
  for (const q of doc.representativeQueries ?? []) assert.ok(q.length <= 120);
  assertCatalogEntry(doc);
});

Deno.test("importedCardDocument() cuts long queries to 120 characters", () => {
  const card = parseAgentCard({
    ...RAW,
    skills: [{ id: "a", description: "y".repeat(300), examples: ["z".repeat(500)] }],
  });
  const doc = importedCardDocument(input({ card }));
  assert.deepEqual(doc.representativeQueries?.map((q) => q.length), [120, 33, 120]);
});

Deno.test("importedCardDocument() records a verified signature with its key id", () => {
  const doc = importedCardDocument(input({ signature: { status: "verified", keyId: "k1" } }));
  assert.deepEqual(doc["obs:signature"], { status: "verified", keyId: "k1" });
  assertCatalogEntry(doc);
});

Deno.test("the catalogEntry schema check catches a bad identifier, url or date", () => {
  const doc = importedCardDocument(input());
  assert.equal(validateEntry({ ...doc, identifier: "urn:air:bad host:a2a:x" }), false);
  assert.equal(validateEntry({ ...doc, url: "not a url" }), false);
  assert.equal(validateEntry({ ...doc, updatedAt: "yesterday" }), false);
  assert.equal(validateEntry({ ...doc, representativeQueries: ["only one"] }), false);
});
