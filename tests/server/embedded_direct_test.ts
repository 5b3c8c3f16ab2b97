/**
 * The embedded registry answers searches and entry reads without HTTP. Its answers must be
 * the app's, byte for byte, and its refusals the app's refusals: the same requests go to
 * both paths over one registry and are compared.
 */
import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import {
  httpTransport,
  type RegistryAnswer,
  type RegistryCall,
  RegistryClient,
  type Transport,
} from "../../lib/registry/mod.ts";
import { createRegistryApp, embeddedTransport } from "../../lib/server/mod.ts";
import { startRegistry, type TestRegistry } from "../support/registry.ts";
import { startCardHost } from "./_card_host.ts";

const SEARCH = "/api/v1/ard/search";

function agentYaml(i: number): string {
  const topic = ["review", "release notes", "security audit", "refactor"][i % 4];
  return [
    `name: agent-${i}`,
    "version: 1.0.0",
    `description: Helps with ${topic} number ${i}`,
    "prompt: Do the work.",
    `tags: [${i % 2 ? "python" : "go"}]`,
    `capabilities: [${topic}]`,
  ].join("\n") + "\n";
}

/** A registry with 12 agents, 9 approved, and both paths into it as the local admin. */
async function setUp(): Promise<
  { reg: TestRegistry; direct: Transport; app: Transport; close(): Promise<void> }
> {
  const reg = await startRegistry();
  const seed = reg.embedded();
  for (let i = 0; i < 12; i++) {
    const doc = await seed.publishAgent({ yaml: agentYaml(i), visibility: "public" });
    if (i % 4 === 3) continue;
    await seed.reviewAgent(String(doc.identifier), {
      action: "approve",
      digest: String(doc["obs:artifactDigest"]),
    });
  }
  const embeddedApp = createRegistryApp(reg.state, { localAdmin: true, rateLimit: false });
  return {
    reg,
    direct: embeddedTransport(reg.state),
    app: httpTransport("http://observal.local", async (r) => await embeddedApp.fetch(r)),
    close: () => reg.close(),
  };
}

/** What a path made of a call: its answer, or the error it became for the client. */
async function outcome(transport: Transport, body: unknown) {
  const client = new RegistryClient({ transport, label: "the embedded registry" });
  try {
    return { ok: await client.searchCounted(body as never) };
  } catch (err) {
    assert.ok(err instanceof ObservalError, String(err));
    return { error: { code: err.code, message: err.message, remediation: err.remediation } };
  }
}

function call(body: string, headers: Record<string, string> = {}): RegistryCall {
  return {
    method: "POST",
    path: SEARCH,
    headers: { "content-type": "application/json", ...headers },
    body,
    timeoutMs: 5_000,
  };
}

/** A transport's answer or error, as the client reads it. */
async function raw(transport: Transport, c: RegistryCall) {
  const answer: RegistryAnswer | ObservalError = await transport(c).catch((e) => e);
  if (answer instanceof ObservalError) {
    return { code: answer.code, message: answer.message, remediation: answer.remediation };
  }
  const json = JSON.parse(answer.text);
  return answer.status === 200
    ? { total: answer.headers.get("X-Total-Count"), json }
    : { code: json.errorCode, message: json.message, remediation: json.remediation };
}

Deno.test("embedded search answers exactly as the registry app does", async () => {
  const t = await setUp();
  try {
    const requests: unknown[] = [
      { query: { text: "review" } },
      { query: { text: "review" }, pageSize: 2 },
      { query: { text: "release notes security" }, pageSize: 5 },
      { query: { text: "agent" }, pageSize: 100 },
      { query: { text: "rev" } },
      { query: { text: "nothing-matches-this" } },
      { query: { text: "", filter: { tags: "python" } } },
      { query: { text: "helps", filter: { "obs:lifecycle": ["pending"] } } },
      { query: { text: "helps", filter: { "obs:supportedHarnesses": "claude-code" } } },
      { query: { text: "helps" }, federation: "referrals" },
      // Refusals: each must be the same error on both paths.
      { query: { text: "   " } },
      { query: { text: "x", filter: { color: "red" } } },
      { query: { text: "x" }, pageSize: 0 },
      { query: { text: "x" }, pageToken: "not-a-token" },
      { query: { text: "x" }, extra: true },
      { query: { text: "x".repeat(2001) } },
    ];
    for (const request of requests) {
      const [direct, app] = [await outcome(t.direct, request), await outcome(t.app, request)];
      assert.deepEqual(direct, app, JSON.stringify(request));
    }
    const refused = await outcome(t.direct, { query: { text: "x" }, pageSize: 0 });
    assert.equal(refused.error?.code, "INVALID_ARGUMENT", "the direct path still checks requests");

    // A page token from one path is good on the other, and pages walk the same results.
    const first = await outcome(t.direct, { query: { text: "helps" }, pageSize: 3 });
    const token = first.ok?.response.pageToken;
    assert.ok(token, "a first page of 3 has a next page");
    const next = { query: { text: "helps" }, pageSize: 3, pageToken: token };
    assert.deepEqual(await outcome(t.direct, next), await outcome(t.app, next));
    assert.equal(first.ok?.total, 12, "the local admin sees all 12, the 3 pending too");

    // A public URL changes result links on both paths alike.
    t.reg.setting("deployment.public_url", "https://registry.example.com/");
    const linked = await outcome(t.direct, { query: { text: "review" } });
    assert.equal(linked.ok?.response.results[0].source, "https://registry.example.com/api/v1/ard");
    assert.deepEqual(linked, await outcome(t.app, { query: { text: "review" } }));
  } finally {
    await t.close();
  }
});

Deno.test("embedded search refuses bodies the app refuses, and leaves signed calls to the app", async () => {
  const t = await setUp();
  try {
    const bodies = [
      "{not json",
      "",
      JSON.stringify({ query: { text: "review" }, pad: "x".repeat(600 * 1024) }),
      // Under the limit in characters, over it in UTF-8 bytes: the limit counts bytes.
      JSON.stringify({ query: { text: "review" }, pad: "é".repeat(300 * 1024) }),
    ];
    for (const body of bodies) {
      // With the length every HTTP client sends (the app reads a too large body's size there).
      const c = call(body, { "content-length": String(new TextEncoder().encode(body).length) });
      const [direct, app] = [await raw(t.direct, c), await raw(t.app, c)];
      assert.equal(direct.code, "INVALID_ARGUMENT", body.slice(0, 20));
      assert.ok(direct.remediation, `no next step for ${body.slice(0, 20)}`);
      assert.deepEqual(direct, app, body.slice(0, 20));
    }
    // A call with an API key is authenticated by the app, never taken as the local admin.
    const signed = call(JSON.stringify({ query: { text: "review" } }), {
      authorization: "Bearer not-a-key",
    });
    const [direct, app] = [await raw(t.direct, signed), await raw(t.app, signed)];
    assert.equal(direct.code, "UNAUTHENTICATED");
    assert.deepEqual(direct, app);
  } finally {
    await t.close();
  }
});

Deno.test("an unexpected failure in embedded search is an INTERNAL error, not an unreachable registry", async () => {
  const t = await setUp();
  try {
    t.reg.state.db.exec("DROP TABLE search_terms");
    const client = new RegistryClient({ transport: t.direct, label: "the embedded registry" });
    const err = await client.search({ query: { text: "review" } }).catch((e) => e);
    assert.ok(err instanceof ObservalError);
    assert.equal(err.code, "INTERNAL", err.message);
  } finally {
    await t.close();
  }
});

Deno.test("embedded entry reads answer exactly as the registry app does, pinned cards included", async () => {
  const t = await setUp();
  const host = await startCardHost();
  try {
    // An imported card whose pinned endpoint is on an allowed private host.
    t.reg.setting("discovery.a2a_private_hosts", "127.0.0.1");
    host.route("/card.json", {
      name: "Pinned",
      version: "1.0.0",
      supportedInterfaces: [
        { url: `${host.origin}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      ],
    });
    const client = new RegistryClient({ transport: t.direct, label: "the embedded registry" });
    const card = await client.submitCard({ cardUrl: `${host.origin}/card.json` });
    const cardId = String(card.identifier);
    const agentId = String(
      (await client.search({ query: { text: "agent" } })).results[0].identifier,
    );
    const refs = [
      cardId,
      agentId,
      agentId.split(":").pop()!,
      agentId.split(":").pop()!.slice(0, 8),
      "urn:air:observal.local:agent:00000000-0000-0000-0000-000000000000",
      "ab",
      "a/b",
      "%E0%A4%A",
      "urn:air:observal.local:agent:",
    ];
    for (const ref of refs) {
      const path = `/api/v1/ard/entries/${ref.startsWith("%") ? ref : encodeURIComponent(ref)}`;
      const get = { method: "GET", path, headers: {}, timeoutMs: 5_000 };
      assert.deepEqual(await raw(t.direct, get), await raw(t.app, get), ref);
    }
    const pinned = await raw(t.direct, {
      method: "GET",
      path: `/api/v1/ard/entries/${encodeURIComponent(cardId)}`,
      headers: {},
      timeoutMs: 5_000,
    });
    assert.equal(pinned.json?.["obs:a2aPrivateHost"], true, "the private host is judged now");
    assert.equal(pinned.json?.["obs:a2aInterface"]?.url, `${host.origin}/a2a`);
  } finally {
    await host.close();
    await t.close();
  }
});

Deno.test("embedded Agent detail and install answer exactly as the registry app does, refusals included", async () => {
  const t = await setUp();
  try {
    const client = new RegistryClient({ transport: t.direct, label: "the embedded registry" });
    const approved = String(
      (await client.search({ query: { text: "agent" } })).results[0].identifier,
    );
    // Published, never reviewed: its detail shows, its install is refused.
    const pending = await t.reg.embedded().publishAgent({
      yaml: agentYaml(99),
      visibility: "public",
    });
    const ids = [
      approved,
      approved.split(":").pop()!,
      String(pending.identifier),
      "urn:air:observal.local:agent:00000000-0000-0000-0000-000000000000",
      "nobody",
    ];
    const get = (path: string): RegistryCall => ({
      method: "GET",
      path,
      headers: {},
      timeoutMs: 5_000,
    });
    const post = (path: string, body: string): RegistryCall => ({
      method: "POST",
      path,
      headers: { "content-type": "application/json" },
      body,
      timeoutMs: 5_000,
    });
    const install = JSON.stringify({
      harness: "claude-code",
      options: { scope: "project", local_name: "fixer" },
      platform: "linux",
      supported_features: [],
    });
    const bodies = [
      install,
      JSON.stringify({ harness: "no-such-harness" }),
      JSON.stringify({ harness: "codex", extra: 1 }),
      JSON.stringify({ options: {} }),
      "{not json",
      JSON.stringify({ harness: "codex", platform: "x".repeat(600 * 1024) }),
    ];
    let answered = 0;
    for (const id of ids) {
      const path = `/api/v1/agents/${encodeURIComponent(id)}`;
      const detail = await raw(t.direct, get(path));
      assert.deepEqual(detail, await raw(t.app, get(path)), id);
      for (const body of bodies) {
        const direct = await raw(t.direct, post(`${path}/install`, body));
        const app = await raw(t.app, post(`${path}/install`, body));
        // Past the limit the app stops reading, so only the direct path can say the size.
        if (body.length > 512 * 1024 && "message" in direct && "message" in app) {
          assert.match(String(direct.message), /^The request body is \d+ bytes, larger than/);
          direct.message = app.message;
        }
        assert.deepEqual(direct, app, `${id} ${body.slice(0, 40)}`);
        if ("json" in direct) answered++;
      }
    }
    // The approved Agent installs, by identifier and by UUID; nothing else does.
    assert.equal(answered, 2);
    const malformed = get("/api/v1/agents/%E0%A4%A");
    assert.deepEqual(await raw(t.direct, malformed), await raw(t.app, malformed));
  } finally {
    await t.close();
  }
});
