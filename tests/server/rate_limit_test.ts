/**
 * Rate limits of the served registry (@hono/node-server on 127.0.0.1, limits on): keyed on
 * the socket's peer, X-Forwarded-For honoured only from deployment.trusted_proxies, and
 * failed sign-ins budgeted per key and, more loosely, per client address.
 */
import assert from "node:assert/strict";
import { serve } from "@hono/node-server";
import { createRegistryApp } from "../../lib/server/mod.ts";
import { startRegistry, type TestRegistry } from "../support/registry.ts";

interface Served {
  url: string;
  close(): Promise<void>;
}

/** Serves a rate-limited app over the test registry's database. */
function serveLimited(reg: TestRegistry): Promise<Served> {
  return serveApp(createRegistryApp(reg.state));
}

async function serveApp(app: ReturnType<typeof createRegistryApp>): Promise<Served> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function search(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/v1/ard/search`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query: { text: "anything" } }),
  });
  const body = await res.json();
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body };
}

let counter = 0;
/** A different documentation-range address on every call. */
function rotating(): string {
  counter++;
  return `203.0.${(counter >> 8) & 255}.${counter & 255}`;
}

Deno.test("rate limits ignore X-Forwarded-For from a peer that is not a trusted proxy", async () => {
  const reg = await startRegistry();
  const served = await serveLimited(reg);
  try {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 61; i++) {
      last = await search(served.url, { "x-forwarded-for": rotating() });
      statuses.push(last.status);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 60);
    assert.equal(statuses[60], 429);
    assert.equal(last!.body.errorCode, "RESOURCE_EXHAUSTED");
    assert.ok(Number(last!.retryAfter) >= 1 && Number(last!.retryAfter) <= 60, last!.retryAfter!);
  } finally {
    await served.close();
    await reg.close();
  }
});

Deno.test("a trusted proxy's X-Forwarded-For keys rate limits per forwarded client", async () => {
  const reg = await startRegistry();
  reg.setting("deployment.trusted_proxies", "127.0.0.1");
  const served = await serveLimited(reg);
  try {
    // Seventy clients behind the proxy, one request each: none is limited.
    for (let i = 0; i < 70; i++) {
      const { status } = await search(served.url, { "x-forwarded-for": rotating() });
      assert.equal(status, 200, `client ${i}`);
    }
    // One client: the right-most untrusted hop counts, whatever it wrote to the left.
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const forged = rotating();
      const { status } = await search(served.url, {
        "x-forwarded-for": `${forged}, 198.51.100.7, 127.0.0.1`,
      });
      statuses.push(status);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 60);
    assert.equal(statuses[60], 429);
    // Another client behind the same proxy still has its budget.
    assert.equal((await search(served.url, { "x-forwarded-for": "198.51.100.8" })).status, 200);
  } finally {
    await served.close();
    await reg.close();
  }
});

Deno.test("a bad key locks out only itself; a valid key from the same address still works", async () => {
  const reg = await startRegistry();
  reg.setting("deployment.trusted_proxies", "127.0.0.0/8");
  const served = await serveLimited(reg);
  try {
    const good = reg.user("val").key;
    const office = { "x-forwarded-for": "198.51.100.66" };
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await search(served.url, { ...office, authorization: "Bearer obs_stale" });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [...Array(10).fill(401), 429, 429]);
    const locked = await search(served.url, { ...office, authorization: "Bearer obs_stale" });
    assert.match(locked.body.message, /failed sign-ins with this API key/);
    assert.ok(Number(locked.retryAfter) >= 1 && Number(locked.retryAfter) <= 60);
    // The same address with a valid key, or another bad key, is not locked out.
    for (let i = 0; i < 3; i++) {
      const ok = await search(served.url, { ...office, authorization: `Bearer ${good}` });
      assert.equal(ok.status, 200, "a valid key from the address of a bad one still works");
    }
    assert.equal(
      (await search(served.url, { ...office, authorization: "Bearer obs_other" })).status,
      401,
    );
    // A malformed header is a key of its own.
    assert.equal((await search(served.url, { ...office, authorization: "Basic x" })).status, 401);
  } finally {
    await served.close();
    await reg.close();
  }
});

Deno.test("guessing with many keys spends the address's budget, then even a valid key waits", async () => {
  const reg = await startRegistry();
  reg.setting("deployment.trusted_proxies", "127.0.0.0/8");
  const app = createRegistryApp(reg.state, {
    rateLimit: { authFailures: 10, authFailuresPerAddress: 30 },
  });
  const served = await serveApp(app);
  try {
    const good = reg.user("val").key;
    const attacker = { "x-forwarded-for": "198.51.100.66" };
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const res = await search(served.url, {
        ...attacker,
        authorization: `Bearer obs_guess_${i}`,
      });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [...Array(30).fill(401), 429]);
    const locked = await search(served.url, { ...attacker, authorization: `Bearer ${good}` });
    assert.equal(locked.status, 429, "a right key is refused too, so guessing learns nothing");
    assert.match(locked.body.message, /failed sign-ins from your address/);

    // Another client is unaffected, with a good key or a bad one.
    const other = { "x-forwarded-for": "198.51.100.67" };
    assert.equal(
      (await search(served.url, { ...other, authorization: `Bearer ${good}` })).status,
      200,
    );
    assert.equal(
      (await search(served.url, { ...other, authorization: "Bearer obs_no" })).status,
      401,
    );
    // Signed-in requests do not spend the failure budgets.
    for (let i = 0; i < 12; i++) {
      const ok = await search(served.url, { ...other, authorization: `Bearer ${good}` });
      assert.equal(ok.status, 200);
    }
  } finally {
    await served.close();
    await reg.close();
  }
});

Deno.test("in process, where there is no socket, every anonymous caller shares one budget", async () => {
  const reg = await startRegistry();
  try {
    const app = createRegistryApp(reg.state);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const res = await app.request("/api/v1/ard/search", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": rotating() },
        body: JSON.stringify({ query: { text: "x" } }),
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    assert.equal(statuses.filter((s) => s === 200).length, 60);
    assert.equal(statuses[60], 429);
  } finally {
    await reg.close();
  }
});
