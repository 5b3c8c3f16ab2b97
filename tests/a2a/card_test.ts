import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import { cardVersion, parseAgentCard } from "../../lib/a2a/mod.ts";

const V1_CARD = {
  name: "Route Planner",
  description: "Plans routes. Knows traffic.",
  version: "1.2.0",
  supportedInterfaces: [
    { url: "https://geo.example.com/a2a/v1", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
  ],
  provider: { organization: "Example Geo", url: "https://geo.example.com" },
  capabilities: { streaming: true, pushNotifications: false },
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "route", name: "Route", description: "Plans", tags: ["maps"], examples: ["Go"] }],
  "x-vendor": { kept: true },
};

const V03_CARD = {
  protocolVersion: "0.3.0",
  name: "Legacy",
  description: "Old agent",
  url: "http://localhost:41310/",
  version: "0.1.0",
  capabilities: { streaming: false, stateTransitionHistory: true },
  securitySchemes: { key: { type: "apiKey", in: "header", name: "X-API-Key" } },
  security: [{ key: [] }],
  defaultInputModes: ["text"],
  defaultOutputModes: ["text"],
  skills: [{ id: "s", name: "S", description: "d", tags: [] }],
};

function refusal(input: unknown, pattern: RegExp) {
  assert.throws(() => parseAgentCard(input), (err: unknown) => {
    assert.ok(err instanceof ObservalError);
    assert.equal(err.code, "INVALID_AGENT_CARD");
    assert.equal(err.httpStatus, 422);
    assert.match(err.message, pattern);
    assert.ok(err.remediation);
    assert.ok(!err.message.endsWith("."));
    return true;
  });
}

Deno.test("parseAgentCard() reads a v1.0 card and keeps unknown fields", () => {
  const card = parseAgentCard(structuredClone(V1_CARD));
  assert.equal(card.name, "Route Planner");
  assert.deepEqual(card["x-vendor"], { kept: true });
  assert.equal(cardVersion(card), "1.0");
  assert.deepEqual(card, V1_CARD);
});

Deno.test("parseAgentCard() reads a v0.3 card with its v0.3 security scheme", () => {
  const card = parseAgentCard(structuredClone(V03_CARD));
  assert.equal(cardVersion(card), "0.3");
  assert.deepEqual(card.securitySchemes?.key, { type: "apiKey", in: "header", name: "X-API-Key" });
  assert.deepEqual(card, V03_CARD);
});

Deno.test("parseAgentCard() accepts a minimal card that only names itself and an endpoint", () => {
  const card = parseAgentCard({ name: "Tiny", url: "https://tiny.example.com/rpc" });
  assert.equal(card.name, "Tiny");
});

Deno.test("parseAgentCard() refuses values that are not JSON objects", () => {
  for (const input of [null, "card", 42, [], [{ name: "x" }]]) refusal(input, /not a JSON object/);
});

Deno.test("parseAgentCard() refuses a card without a name", () => {
  refusal({ url: "https://a.example.com" }, /no name/);
  refusal({ name: "  ", url: "https://a.example.com" }, /no name/);
  refusal({ name: 7, url: "https://a.example.com" }, /no name/);
});

Deno.test("parseAgentCard() refuses a card without an http(s) endpoint", () => {
  refusal({ name: "x" }, /no http\(s\) endpoint/);
  refusal({ name: "x", supportedInterfaces: [] }, /no http\(s\) endpoint/);
  refusal({ name: "x", url: "ftp://a.example.com/" }, /no http\(s\) endpoint/);
  refusal(
    { name: "x", supportedInterfaces: [{ url: "grpc.example.com:443", protocolBinding: "GRPC" }] },
    /no http\(s\) endpoint/,
  );
});

Deno.test("parseAgentCard() refuses wrongly typed fields and names the field", () => {
  refusal({ ...V1_CARD, skills: "many" }, /field "skills" should be of type array/);
  refusal({ ...V1_CARD, capabilities: { streaming: "yes" } }, /capabilities\.streaming/);
  refusal(
    { ...V1_CARD, supportedInterfaces: [{ protocolBinding: "JSONRPC" }] },
    /supportedInterfaces\[0\]\.url/,
  );
});

Deno.test("parseAgentCard() refuses cards over the limits instead of trimming them", () => {
  const skill = (i: number) => ({ id: `s${i}`, name: "S", tags: [] });
  refusal({ ...V1_CARD, skills: Array.from({ length: 33 }, (_, i) => skill(i)) }, /more than 32/);
  refusal({ ...V1_CARD, description: "x".repeat(2001) }, /"description" has more than 2000 char/);
  refusal(
    { ...V1_CARD, skills: [{ id: "a", tags: Array.from({ length: 13 }, (_, i) => `t${i}`) }] },
    /skills\[0\]\.tags" has more than 12 entries/,
  );
  refusal(
    { ...V1_CARD, skills: [{ id: "a", examples: Array.from({ length: 7 }, () => "e") }] },
    /examples" has more than 6 entries/,
  );
  // Exactly at the limits is fine.
  parseAgentCard({
    ...V1_CARD,
    description: "x".repeat(2000),
    skills: Array.from({ length: 32 }, (_, i) => ({
      id: `s${i}`,
      tags: Array.from({ length: 12 }, () => "t"),
      examples: Array.from({ length: 6 }, () => "e"),
    })),
  });
});

Deno.test("cardVersion() treats a hybrid card with supportedInterfaces as v1.0", () => {
  assert.equal(
    cardVersion({ ...V03_CARD, supportedInterfaces: V1_CARD.supportedInterfaces }),
    "1.0",
  );
  assert.equal(cardVersion({ ...V03_CARD, supportedInterfaces: [] }), "0.3");
});
