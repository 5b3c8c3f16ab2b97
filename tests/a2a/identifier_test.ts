import assert from "node:assert/strict";
import { cardIdentifier, isRealDomain, slugify } from "../../lib/a2a/mod.ts";

const OPTIONS = {
  registryDomain: "registry.example.org",
  entryUuid: "0f8b7c1e-6a4d-4e2b-9c3a-1d2e3f4a5b6c",
};

Deno.test("isRealDomain() accepts dotted DNS names only", () => {
  const table: [string, boolean][] = [
    ["agents.acme.com", true],
    ["Agents.ACME.com", true],
    ["a-b.example.io", true],
    ["xn--caf-dma.example", true],
    ["localhost", false],
    ["0.0.0.0", false],
    ["127.0.0.1", false],
    ["10.1.2.3", false],
    ["intranet", false],
    ["[::1]", false],
    ["-bad.example.com", false],
    ["bad-.example.com", false],
    ["a..b.com", false],
    ["under_score.example.com", false],
    ["", false],
  ];
  for (const [host, expected] of table) assert.equal(isRealDomain(host), expected, host);
});

Deno.test("slugify() lower-cases, dashes runs of other characters and trims", () => {
  assert.equal(slugify("Release Notes Writer!"), "release-notes-writer");
  assert.equal(slugify("  --Hello__World--  "), "hello-world");
  assert.equal(slugify("Café Agent"), "caf-agent");
  assert.equal(slugify("!!!"), "agent");
  assert.equal(slugify(""), "agent");
  const long = slugify(`${"a".repeat(63)} b`);
  assert.equal(long, "a".repeat(63));
  assert.ok(slugify("x".repeat(100)).length <= 64);
});

Deno.test("cardIdentifier() uses the card host as publisher when it is a real domain", () => {
  assert.equal(
    cardIdentifier(
      "https://Agents.Acme.com:8443/.well-known/agent-card.json",
      "Notes Bot",
      OPTIONS,
    ),
    "urn:air:agents.acme.com:a2a:notes-bot",
  );
});

Deno.test("cardIdentifier() falls back to the registry domain and entry uuid", () => {
  for (
    const url of [
      "http://127.0.0.1:4000/.well-known/agent-card.json",
      "http://localhost/.well-known/agent-card.json",
      "http://[::1]:9/card",
      "http://intranet/card",
    ]
  ) {
    assert.equal(
      cardIdentifier(url, "Notes Bot", OPTIONS),
      `urn:air:registry.example.org:a2a:${OPTIONS.entryUuid}`,
      url,
    );
  }
});

Deno.test("cardIdentifier() results match the ARD identifier pattern", () => {
  const pattern = /^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$/;
  assert.match(cardIdentifier("https://a.example.com", "¿Qué?", OPTIONS), pattern);
  assert.match(cardIdentifier("http://127.0.0.1", "x", OPTIONS), pattern);
});
