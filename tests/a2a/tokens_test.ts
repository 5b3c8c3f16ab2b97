import assert from "node:assert/strict";
import {
  type AgentCard,
  credentialHeaders,
  declaresSecurity,
  isLoopbackHost,
  parseAgentCard,
  tokenVariable,
} from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";

/** A card that asks for a bearer token unless `extra` says otherwise. */
const card = (url: string, extra: Record<string, unknown> = {}): AgentCard =>
  parseAgentCard({
    name: "Echo",
    url,
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    ...extra,
  });

Deno.test("credentialHeaders() sends nothing to a card that declares no security scheme", () => {
  const url = "https://agents.acme.com/a2a";
  const env = { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "tok" };
  for (const securitySchemes of [undefined, {}]) {
    const out = credentialHeaders({ card: card(url, { securitySchemes }), url, env });
    assert.deepEqual(out.headers, {});
  }
  // Nor is a plain-http endpoint refused: there is no token to protect.
  const plain = "http://agent.test/a2a";
  const none = credentialHeaders({
    card: card(plain, { securitySchemes: {} }),
    url: plain,
    env: { OBSERVAL_A2A_TOKEN_AGENT_TEST: "tok" },
  });
  assert.deepEqual(none.headers, {});
});

Deno.test("tokenVariable() names the variable after the host", () => {
  const table: [string, string][] = [
    ["agents.acme.com", "OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM"],
    ["agents-acme.com", "OBSERVAL_A2A_TOKEN_AGENTS__ACME_COM"],
    ["localhost", "OBSERVAL_A2A_TOKEN_LOCALHOST"],
    ["127.0.0.1", "OBSERVAL_A2A_TOKEN_127_0_0_1"],
    ["a", "OBSERVAL_A2A_TOKEN_A"],
    ["my--agent.io", "OBSERVAL_A2A_TOKEN_MY____AGENT_IO"],
  ];
  for (const [host, variable] of table) assert.equal(tokenVariable(host), variable, host);
});

Deno.test("tokenVariable() treats upper and lower case hosts alike", () => {
  assert.equal(tokenVariable("Agents.ACME.com"), "OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM");
  assert.equal(tokenVariable("AGENTS-ACME.COM"), tokenVariable("agents-acme.com"));
});

Deno.test("tokenVariable() gives no variable to hosts it cannot name safely", () => {
  const refused = [
    "",
    "::1",
    "[::1]",
    "[2001:db8::1]",
    "fe80::1%eth0",
    "agents..acme.com",
    ".agents.acme.com",
    "agents.acme.com.",
    "-agents.acme.com",
    "agents.acme.com-",
    "agents_acme.com",
    "agents.acme.com:8443",
    "agents acme.com",
    "agénts.acme.com",
    "a-.b",
    "a.-b",
    "agents/acme",
  ];
  for (const host of refused) assert.equal(tokenVariable(host), undefined, JSON.stringify(host));
});

Deno.test("tokenVariable() keeps hyphen and dot hosts apart where a naive mapping collides", () => {
  // Mapping both "-" and "." to "_" would give A_B_C to all three.
  const hosts = ["a-b.c", "a.b-c", "a.b.c", "a--b.c", "a.b--c", "a-b-c"];
  const names = hosts.map(tokenVariable);
  assert.deepEqual(names, [
    "OBSERVAL_A2A_TOKEN_A__B_C",
    "OBSERVAL_A2A_TOKEN_A_B__C",
    "OBSERVAL_A2A_TOKEN_A_B_C",
    "OBSERVAL_A2A_TOKEN_A____B_C",
    "OBSERVAL_A2A_TOKEN_A_B____C",
    "OBSERVAL_A2A_TOKEN_A__B__C",
  ]);
  assert.equal(new Set(names).size, hosts.length);
  // "a-.b" and "a.-b" would both become A___B; such hosts get no variable at all.
  assert.equal(tokenVariable("a-.b"), undefined);
  assert.equal(tokenVariable("a.-b"), undefined);
});

Deno.test("credentialHeaders() sends a bearer token only to the host it is named after", () => {
  const env = { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "acme-token" };
  const acme = credentialHeaders({
    card: card("https://agents.acme.com/a2a"),
    url: "https://agents.acme.com/a2a",
    env,
  });
  assert.deepEqual(acme, {
    headers: { Authorization: "Bearer acme-token" },
    variable: "OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM",
  });
  const other = credentialHeaders({
    card: card("https://other.example/a2a"),
    url: "https://other.example/a2a",
    env,
  });
  assert.deepEqual(other, { headers: {}, variable: "OBSERVAL_A2A_TOKEN_OTHER_EXAMPLE" });
});

Deno.test("credentialHeaders() gives a look-alike suffix host only its own variable", () => {
  const url = "https://agents.acme.com.evil.example/a2a";
  const env = { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "acme-token" };
  const got = credentialHeaders({ card: card(url), url, env });
  assert.deepEqual(got, {
    headers: {},
    variable: "OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM_EVIL_EXAMPLE",
  });
  const own = credentialHeaders({
    card: card(url),
    url,
    env: { ...env, OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM_EVIL_EXAMPLE: "evil-token" },
  });
  assert.deepEqual(own.headers, { Authorization: "Bearer evil-token" });
});

Deno.test("credentialHeaders() does not cross hyphen and dot hosts", () => {
  const env = { OBSERVAL_A2A_TOKEN_A_B__C: "for-a.b-c" };
  for (const host of ["a-b.c", "a.b.c"]) {
    const url = `https://${host}/`;
    assert.deepEqual(credentialHeaders({ card: card(url), url, env }).headers, {}, host);
  }
  const url = "https://a.b-c/";
  assert.deepEqual(credentialHeaders({ card: card(url), url, env }).headers, {
    Authorization: "Bearer for-a.b-c",
  });
});

Deno.test("credentialHeaders() ignores the catch-all OBSERVAL_A2A_TOKEN", () => {
  const url = "https://agents.acme.com/a2a";
  const env = { OBSERVAL_A2A_TOKEN: "catch-all", OBSERVAL_A2A_TOKEN_: "empty-suffix" };
  assert.deepEqual(credentialHeaders({ card: card(url), url, env }), {
    headers: {},
    variable: "OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM",
  });
});

Deno.test("credentialHeaders() sends nothing when the token is empty or blank", () => {
  const url = "https://agents.acme.com/a2a";
  for (const value of ["", "   ", "\n"]) {
    const env = { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: value };
    assert.deepEqual(credentialHeaders({ card: card(url), url, env }).headers, {});
  }
});

Deno.test("credentialHeaders() reads a mixed-case host's token from the upper-case name", () => {
  const url = "https://Agents.Acme.COM/a2a";
  const env = { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "t" };
  assert.deepEqual(credentialHeaders({ card: card(url), url, env }).headers, {
    Authorization: "Bearer t",
  });
});

Deno.test("credentialHeaders() sends no token to IPv6 literal endpoints", () => {
  const url = "https://[2001:db8::1]/a2a";
  const env = { "OBSERVAL_A2A_TOKEN_2001_DB8__1": "t", OBSERVAL_A2A_TOKEN: "t" };
  assert.deepEqual(credentialHeaders({ card: card(url), url, env }), { headers: {} });
});

Deno.test("credentialHeaders() uses the first API-key header scheme of a v1.0 card", () => {
  const url = "https://agents.acme.com/a2a";
  const v1 = parseAgentCard({
    name: "Echo",
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } },
      query: { apiKeySecurityScheme: { location: "query", name: "key" } },
      key: { apiKeySecurityScheme: { location: "header", name: "X-Acme-Key" } },
      later: { apiKeySecurityScheme: { location: "header", name: "X-Later" } },
    },
  });
  const env = { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "k" };
  assert.deepEqual(credentialHeaders({ card: v1, url, env }).headers, { "X-Acme-Key": "k" });
});

Deno.test("credentialHeaders() uses a v0.3 apiKey scheme, defaulting the header name", () => {
  const url = "https://agents.acme.com/a2a";
  const env = { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "k" };
  const named = card(url, {
    securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } },
  });
  assert.deepEqual(credentialHeaders({ card: named, url, env }).headers, { "X-Key": "k" });
  const unnamed = card(url, { securitySchemes: { key: { type: "apiKey", in: "header" } } });
  assert.deepEqual(credentialHeaders({ card: unnamed, url, env }).headers, { "X-API-Key": "k" });
  const cookie = card(url, {
    securitySchemes: { key: { type: "apiKey", in: "cookie", name: "session" } },
  });
  assert.deepEqual(credentialHeaders({ card: cookie, url, env }).headers, {
    Authorization: "Bearer k",
  });
});

Deno.test("credentialHeaders() refuses a token over plain http to a non-loopback host", () => {
  const url = "http://agent.test/a2a";
  const env = { OBSERVAL_A2A_TOKEN_AGENT_TEST: "t" };
  assert.throws(
    () => credentialHeaders({ card: card(url), url, env }),
    (err: unknown) => {
      assert.ok(err instanceof ObservalError);
      assert.equal(err.code, "PERMISSION_DENIED");
      assert.match(err.message, /OBSERVAL_A2A_TOKEN_AGENT_TEST/);
      assert.match(err.message, /plain http/);
      assert.match(err.remediation ?? "", /https/);
      return true;
    },
  );
  // Without a token, plain http is fine.
  assert.deepEqual(credentialHeaders({ card: card(url), url, env: {} }), {
    headers: {},
    variable: "OBSERVAL_A2A_TOKEN_AGENT_TEST",
  });
});

Deno.test("credentialHeaders() allows a token over plain http to loopback names", () => {
  const env = { OBSERVAL_A2A_TOKEN_LOCALHOST: "l", OBSERVAL_A2A_TOKEN_127_0_0_1: "i" };
  for (const [url, token] of [["http://localhost:8080/", "l"], ["http://127.0.0.1:9/", "i"]]) {
    assert.deepEqual(credentialHeaders({ card: card(url), url, env }).headers, {
      Authorization: `Bearer ${token}`,
    });
  }
  assert.ok(isLoopbackHost("::1"));
  assert.ok(isLoopbackHost("[::1]"));
  assert.ok(isLoopbackHost("LOCALHOST"));
  assert.ok(!isLoopbackHost("localhost.evil.example"));
  assert.ok(!isLoopbackHost("127.0.0.2"));
});

Deno.test("credentialHeaders() follows the card's security requirement before declaration order", () => {
  const url = "https://agents.acme.com/a2a";
  const env = { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "t" };
  const key = { type: "apiKey", in: "header", name: "X-Key" };
  const bearer = { type: "http", scheme: "bearer" };
  // v0.3: an API key is declared first, but the requirement names bearer.
  const v03 = card(url, { securitySchemes: { key, bearer }, security: [{ bearer: [] }] });
  assert.deepEqual(credentialHeaders({ card: v03, url, env }).headers, {
    Authorization: "Bearer t",
  });
  // v1.0: bearer declared first, the requirement names the API key.
  const v1 = parseAgentCard({
    name: "Echo",
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } },
      key: { apiKeySecurityScheme: { location: "header", name: "X-Acme-Key" } },
    },
    securityRequirements: [{ schemes: { key: { list: [] } } }],
  });
  assert.deepEqual(credentialHeaders({ card: v1, url, env }).headers, { "X-Acme-Key": "t" });
  // A requirement one token cannot meet (two schemes at once, an unusable one) is passed
  // over for the next; with none left, the declared schemes decide.
  const skipped = card(url, {
    securitySchemes: {
      mtls: { type: "mutualTLS" },
      query: { type: "apiKey", in: "query", name: "k" },
      key,
      bearer,
    },
    security: [{ key: [], bearer: [] }, { mtls: [] }, { query: [] }, { bearer: [] }],
  });
  assert.deepEqual(credentialHeaders({ card: skipped, url, env }).headers, {
    Authorization: "Bearer t",
  });
  const none = card(url, { securitySchemes: { key, bearer }, security: [{ mtls: [] }] });
  assert.deepEqual(credentialHeaders({ card: none, url, env }).headers, { "X-Key": "t" });
});

Deno.test("credentialHeaders() reads the $case form @a2a-js/sdk 1.3.0 serves", () => {
  const url = "https://agents.acme.com/a2a";
  const env = { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "t" };
  const sdkCard = (schemes: Record<string, unknown>, required: string) =>
    parseAgentCard({
      name: "Echo",
      supportedInterfaces: [{
        url,
        protocolBinding: "JSONRPC",
        protocolVersion: "1.0",
        tenant: "",
      }],
      securitySchemes: schemes,
      securityRequirements: [{ schemes: { [required]: { list: [] } } }],
    });
  const apiKey = {
    scheme: {
      $case: "apiKeySecurityScheme",
      value: { description: "", location: "header", name: "X-Echo-Key" },
    },
  };
  const bearer = {
    scheme: {
      $case: "httpAuthSecurityScheme",
      value: { description: "", scheme: "Bearer", bearerFormat: "" },
    },
  };
  assert.deepEqual(credentialHeaders({ card: sdkCard({ apiKey }, "apiKey"), url, env }).headers, {
    "X-Echo-Key": "t",
  });
  assert.deepEqual(
    credentialHeaders({ card: sdkCard({ apiKey, bearer }, "bearer"), url, env }).headers,
    { Authorization: "Bearer t" },
  );
  assert.ok(declaresSecurity(sdkCard({ apiKey }, "apiKey")));
  assert.ok(!declaresSecurity(card(url, { securitySchemes: {} })));
});
