/** The typed registry wire: entries parsed at the client, and the one reader of a pinned endpoint. */
import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import {
  EntryDocumentSchema,
  pinnedEndpoint,
  RegistryClient,
  type Transport,
} from "../../lib/registry/mod.ts";

const CARD = {
  name: "Echo",
  description: "Echoes",
  version: "1.0.0",
  supportedInterfaces: [
    { url: "https://echo.example.com/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
  ],
  capabilities: { streaming: true },
  skills: [],
};

const IMPORTED = {
  identifier: "urn:air:echo.example.com:a2a:echo",
  displayName: "Echo",
  type: "application/a2a-agent-card+json",
  "obs:lifecycle": "approved",
  "obs:delegable": true,
  "obs:a2aInterface": {
    url: "https://echo.example.com/a2a",
    protocolBinding: "JSONRPC",
    protocolVersion: "1.0",
  },
  "obs:agentCard": CARD,
  "obs:reviewer": "kept as sent",
};

/** A client whose transport answers every request with `body` and `status`. */
function answering(body: unknown, status = 200): RegistryClient {
  const transport: Transport = () =>
    Promise.resolve({ status, headers: new Headers(), text: JSON.stringify(body) });
  return new RegistryClient({ transport, label: "a test" });
}

Deno.test("pinnedEndpoint() reads the pinned interface and the card as reviewed", () => {
  const pinned = pinnedEndpoint(EntryDocumentSchema.parse(IMPORTED));
  assert.ok(pinned);
  assert.equal(pinned.iface.url, "https://echo.example.com/a2a");
  assert.equal(pinned.iface.protocolBinding, "JSONRPC");
  assert.equal(pinned.card.name, "Echo");
});

Deno.test("pinnedEndpoint() is undefined for an entry that pins no endpoint", () => {
  const agent = EntryDocumentSchema.parse({
    identifier: "urn:air:observal.local:agent:0b0b0b0b-0000-4000-8000-000000000000",
    type: "application/vnd.observal.agent+json",
    "obs:supportedHarnesses": ["claude-code"],
  });
  assert.equal(pinnedEndpoint(agent), undefined);
});

Deno.test("pinnedEndpoint() refuses a pinned endpoint whose stored card does not parse", () => {
  const broken = EntryDocumentSchema.parse({ ...IMPORTED, "obs:agentCard": { name: 42 } });
  assert.throws(
    () => pinnedEndpoint(broken),
    (err: unknown) => err instanceof ObservalError && err.code === "INVALID_AGENT_CARD",
  );
});

Deno.test("RegistryClient.entry() returns the typed document and keeps unknown fields", async () => {
  const entry = await answering(IMPORTED).entry(IMPORTED.identifier);
  assert.equal(entry["obs:a2aInterface"]?.url, "https://echo.example.com/a2a");
  assert.equal(entry["obs:reviewer"], "kept as sent");
});

Deno.test("RegistryClient.entry() refuses an entry that does not fit, naming the route", async () => {
  const bad = { ...IMPORTED, "obs:a2aInterface": { url: 7 } };
  await assert.rejects(
    answering(bad).entry(IMPORTED.identifier),
    (err: unknown) =>
      err instanceof ObservalError && err.code === "NETWORK" &&
      /unexpected \/api\/v1\/ard\/entries\//.test(err.message),
  );
});

Deno.test("RegistryClient.installAgent() refuses an install response without a config snippet", async () => {
  const partial = { agent_id: "a", harness: "codex", version: "1.0.0", warnings: [], lock: {} };
  await assert.rejects(
    answering(partial).installAgent("a", { harness: "codex" }),
    (err: unknown) => err instanceof ObservalError && err.code === "NETWORK",
  );
});

Deno.test("RegistryClient reads an error envelope field by field", async () => {
  const err = await answering(
    { errorCode: "NOT_FOUND", message: "No such entry", remediation: 5 },
    404,
  ).entry("urn:air:x:a2a:y").catch((e) => e);
  assert.ok(err instanceof ObservalError);
  assert.equal(err.code, "NOT_FOUND");
  assert.equal(err.message, "No such entry");
  assert.equal(err.remediation, undefined);
});
