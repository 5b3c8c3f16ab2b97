/** Every route answers bad input with a 4xx error envelope and writes nothing. */
import assert from "node:assert/strict";
import { validate } from "../support/ard_schema.ts";
import { startRegistry } from "../support/registry.ts";

const HUGE = "x".repeat(600 * 1024);
const LONG = "y".repeat(5000);

type Case = [label: string, method: string, path: string, body?: unknown, raw?: string];

const cases: Case[] = [
  ["search: not JSON", "POST", "/api/v1/ard/search", undefined, "{nope"],
  ["search: body is an array", "POST", "/api/v1/ard/search", []],
  ["search: no query", "POST", "/api/v1/ard/search", {}],
  ["search: text is a number", "POST", "/api/v1/ard/search", { query: { text: 5 } }],
  ["search: text too long", "POST", "/api/v1/ard/search", { query: { text: LONG } }],
  ["search: unknown key", "POST", "/api/v1/ard/search", { query: { text: "a" }, extra: 1 }],
  ["search: unknown query key", "POST", "/api/v1/ard/search", { query: { text: "a", q: 1 } }],
  ["search: pageSize 0", "POST", "/api/v1/ard/search", { query: { text: "a" }, pageSize: 0 }],
  ["search: pageSize 1000", "POST", "/api/v1/ard/search", { query: { text: "a" }, pageSize: 1000 }],
  ["search: pageSize string", "POST", "/api/v1/ard/search", {
    query: { text: "a" },
    pageSize: "5",
  }],
  ["search: bad federation", "POST", "/api/v1/ard/search", {
    query: { text: "a" },
    federation: "all",
  }],
  ["search: unknown filter", "POST", "/api/v1/ard/search", {
    query: { text: "a", filter: { color: "red" } },
  }],
  ["search: filter value object", "POST", "/api/v1/ard/search", {
    query: { text: "a", filter: { type: { a: 1 } } },
  }],
  ["search: garbage pageToken", "POST", "/api/v1/ard/search", {
    query: { text: "a" },
    pageToken: "!!!not-a-token",
  }],
  ["search: forged pageToken", "POST", "/api/v1/ard/search", {
    query: { text: "a" },
    pageToken: Buffer.from(JSON.stringify({ o: 10, f: "forged" })).toString("base64url"),
  }],
  [
    "search: huge body",
    "POST",
    "/api/v1/ard/search",
    undefined,
    JSON.stringify({ query: { text: HUGE } }),
  ],
  ["list: pageSize -1", "GET", "/api/v1/ard/agents?pageSize=-1"],
  ["list: pageSize text", "GET", "/api/v1/ard/agents?pageSize=ten"],
  ["list: bad filter", "GET", "/api/v1/ard/agents?filter=drop%20table"],
  ["list: bad orderBy", "GET", "/api/v1/ard/agents?orderBy=secret"],
  ["list: unknown param", "GET", "/api/v1/ard/agents?color=red"],
  ["list: bad pageToken", "GET", "/api/v1/ard/agents?pageToken=abc"],
  ["entries: unknown", "GET", "/api/v1/ard/entries/urn:air:nowhere:a2a:none"],
  ["entries: traversal", "GET", "/api/v1/ard/entries/..%2F..%2Fetc%2Fpasswd"],
  ["import: no body", "POST", "/api/v1/ard/imports/a2a", undefined, ""],
  ["import: cardUrl number", "POST", "/api/v1/ard/imports/a2a", { cardUrl: 42 }],
  ["import: cardUrl too short", "POST", "/api/v1/ard/imports/a2a", { cardUrl: "http:/" }],
  ["import: cardUrl huge", "POST", "/api/v1/ard/imports/a2a", {
    cardUrl: `https://a.example/${LONG}`,
  }],
  ["import: unknown key", "POST", "/api/v1/ard/imports/a2a", {
    cardUrl: "https://agents.example.com/card.json",
    owner: "me",
  }],
  ["import: bad visibility", "POST", "/api/v1/ard/imports/a2a", {
    cardUrl: "https://agents.example.com/card.json",
    visibility: "world",
  }],
  ["import: teamId not uuid", "POST", "/api/v1/ard/imports/a2a", {
    cardUrl: "https://agents.example.com/card.json",
    visibility: "team",
    teamId: "core",
  }],
  ["import: team without teamId", "POST", "/api/v1/ard/imports/a2a", {
    cardUrl: "https://agents.example.com/card.json",
    visibility: "team",
  }],
  ["import: file scheme", "POST", "/api/v1/ard/imports/a2a", { cardUrl: "file:///etc/passwd" }],
  ["import: private address", "POST", "/api/v1/ard/imports/a2a", {
    cardUrl: "https://169.254.169.254/latest",
  }],
  ["review: bad action", "POST", "/api/v1/ard/imports/urn:air:x:a2a:y/review", { action: "maybe" }],
  ["review: reason number", "POST", "/api/v1/ard/imports/urn:air:x:a2a:y/review", {
    action: "reject",
    reason: 5,
  }],
  ["review: digest too long", "POST", "/api/v1/ard/imports/urn:air:x:a2a:y/review", {
    action: "approve",
    digest: LONG,
  }],
  ["review: unknown entry", "POST", "/api/v1/ard/imports/urn:air:x:a2a:y/review", {
    action: "approve",
    digest: "sha256:00",
  }],
  ["remove: unknown entry", "DELETE", "/api/v1/ard/imports/urn:air:x:a2a:y"],
  ["publish: not YAML", "POST", "/api/v1/agents", { yaml: "{{{{" }],
  ["publish: YAML without prompt", "POST", "/api/v1/agents", { yaml: "name: a\nversion: 1.0.0\n" }],
  ["publish: yaml number", "POST", "/api/v1/agents", { yaml: 3 }],
  ["publish: unknown key", "POST", "/api/v1/agents", { yaml: "name: a", sneaky: true }],
  ["agent: unknown", "GET", "/api/v1/agents/00000000-0000-4000-8000-000000000000"],
  [
    "install: unknown agent",
    "POST",
    "/api/v1/agents/00000000-0000-4000-8000-000000000000/install",
    {
      harness: "claude-code",
    },
  ],
  ["install: harness missing", "POST", "/api/v1/agents/x/install", {}],
  ["install: bad scope", "POST", "/api/v1/agents/x/install", {
    harness: "kiro",
    options: { scope: "global" },
  }],
  ["explore", "POST", "/api/v1/ard/explore", {}],
  ["admin: not admin", "GET", "/api/v1/admin/users"],
  ["admin: create user as non-admin", "POST", "/api/v1/admin/users", { handle: "mallory" }],
  ["unknown route", "GET", "/api/v1/nothing"],
];

Deno.test("every route answers bad input with 4xx and the error envelope, writing nothing", async () => {
  const reg = await startRegistry();
  try {
    const key = reg.user("carol").key;
    const admin = reg.user("root", "admin").key;
    const changes = () =>
      (reg.state.db.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
    const before = changes();
    for (const [label, method, path, body, raw] of cases) {
      const res = await fetch(`${reg.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      assert.ok(
        res.status >= 400 && res.status < 500 || res.status === 501,
        `${label}: ${res.status}`,
      );
      const json = await res.json();
      assert.deepEqual(validate("Error", json), [], label);
      assert.ok(json.message.length > 0, label);
    }
    // Admin routes with bad bodies, as an admin.
    for (
      const [path, body] of [
        ["/api/v1/admin/users", { handle: "Bad Handle" }],
        ["/api/v1/admin/users", { handle: "ok", role: "god" }],
        ["/api/v1/admin/teams", { handle: "" }],
      ] as const
    ) {
      const res = await fetch(`${reg.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 400, path);
    }
    const setting = await fetch(`${reg.url}/api/v1/admin/settings/no.such.key`, {
      method: "PUT",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ value: "x" }),
    });
    assert.equal(setting.status, 400);
    // A wrong key is refused even where anonymity is allowed.
    const badKey = await fetch(`${reg.url}/.well-known/ard.json`, {
      headers: { authorization: "Bearer obs_wrong" },
    });
    assert.equal(badKey.status, 401);
    assert.equal(changes(), before, "no bad request wrote to the database");
    const counts = reg.state.db.prepare(
      "SELECT (SELECT COUNT(*) FROM entries) AS e, (SELECT COUNT(*) FROM agent_versions) AS v",
    ).get() as { e: number; v: number };
    assert.deepEqual({ ...counts }, { e: 0, v: 0 });
  } finally {
    await reg.close();
  }
});

Deno.test("a body past the limit is refused with its size and the limit", async () => {
  const reg = await startRegistry();
  try {
    const key = reg.user("carol").key;
    const body = JSON.stringify({ query: { text: HUGE } });
    const res = await fetch(`${reg.url}/api/v1/ard/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
    });
    assert.equal(res.status, 400);
    const answer = await res.json();
    assert.equal(
      answer.message,
      `The request body is ${body.length} bytes, larger than the 512 KiB allowed`,
    );
  } finally {
    await reg.close();
  }
});
