import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import { normalizeCardUrl } from "../../lib/net/mod.ts";

const WELL_KNOWN = "/.well-known/agent-card.json";

const CASES: [string, string][] = [
  ["https://agents.example.com", `https://agents.example.com${WELL_KNOWN}`],
  ["https://agents.example.com/", `https://agents.example.com${WELL_KNOWN}`],
  ["HTTPS://Agents.EXAMPLE.com/", `https://agents.example.com${WELL_KNOWN}`],
  ["https://agents.example.com:443/", `https://agents.example.com${WELL_KNOWN}`],
  ["https://agents.example.com:8443", `https://agents.example.com:8443${WELL_KNOWN}`],
  ["https://agents.example.com/?tenant=a", `https://agents.example.com${WELL_KNOWN}?tenant=a`],
  ["https://agents.example.com/#frag", `https://agents.example.com${WELL_KNOWN}`],
  ["https://agents.example.com/cards/a.json", "https://agents.example.com/cards/a.json"],
  ["https://agents.example.com/cards/?v=2#x", "https://agents.example.com/cards/?v=2"],
  ["  https://agents.example.com/card.json  ", "https://agents.example.com/card.json"],
  ["http://127.0.0.1:8080", `http://127.0.0.1:8080${WELL_KNOWN}`],
  ["https://[2606:4700::1]/", `https://[2606:4700::1]${WELL_KNOWN}`],
];

for (const [raw, expected] of CASES) {
  Deno.test(`normalizeCardUrl() turns ${JSON.stringify(raw)} into ${expected}`, () => {
    assert.equal(normalizeCardUrl(raw), expected);
  });
}

const REFUSED: [string, RegExp][] = [
  ["file:///etc/passwd", /only http and https/],
  ["ftp://agents.example.com/", /only http and https/],
  ["gopher://agents.example.com/", /only http and https/],
  ["data:application/json,{}", /only http and https/],
  ["javascript:alert(1)", /only http and https/],
  ["agents.example.com", /only http and https|Cannot parse/],
  ["", /Cannot parse/],
  ["https://", /Cannot parse/],
  ["https://user:pw@agents.example.com/", /user name or password/],
  ["https://user@agents.example.com/", /user name or password/],
];

for (const [raw, message] of REFUSED) {
  Deno.test(`normalizeCardUrl() refuses ${JSON.stringify(raw)}`, () => {
    assert.throws(() => normalizeCardUrl(raw), (err) => {
      assert.ok(err instanceof ObservalError);
      assert.equal(err.code, "UNSAFE_URL");
      assert.match(err.message, message);
      assert.ok(err.remediation);
      return true;
    });
  });
}
