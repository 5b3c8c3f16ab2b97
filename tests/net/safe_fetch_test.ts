import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import { type PinnedRequest, type Requester, safeFetch, safeFetchJson } from "../../lib/net/mod.ts";
import { startServer } from "./_servers.ts";

const CARD = { name: "Reviewer", url: "https://agents.example.com/a2a" };

/** A requester that records what it was asked and answers with `body`. */
function recordingRequester(body: string, status = 200): {
  request: Requester;
  seen: PinnedRequest[];
} {
  const seen: PinnedRequest[] = [];
  const request: Requester = (req) => {
    seen.push(req);
    return Promise.resolve({
      status,
      headers: { "content-type": "application/json" },
      body: (async function* () {
        yield new TextEncoder().encode(body);
      })(),
    });
  };
  return { request, seen };
}

Deno.test("safeFetchJson() reads JSON from an allowlisted 127.0.0.1 server over http", async () => {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(CARD));
  });
  try {
    const result = await safeFetchJson(`${server.origin}/.well-known/agent-card.json#x`, {
      allowPrivateHosts: ["127.0.0.1"],
    });
    assert.deepEqual(result.json, CARD);
    assert.equal(result.url, `${server.origin}/.well-known/agent-card.json`);
    assert.equal(new TextDecoder().decode(result.bytes), JSON.stringify(CARD));
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].path, "/.well-known/agent-card.json");
    assert.equal(server.requests[0].headers.accept, "application/json");
    assert.equal(server.requests[0].headers.host, `127.0.0.1:${server.port}`);
  } finally {
    await server.close();
  }
});

Deno.test("safeFetch() matches allowlist entries case-insensitively and on the host only", async () => {
  const server = await startServer((_req, res) => res.end("{}"));
  try {
    const res = await safeFetch(`${server.origin}/x?q=1`, {
      allowPrivateHosts: [" 127.0.0.1 ", "OTHER.example"],
      accept: "application/jwk-set+json",
    });
    assert.equal(res.status, 200);
    assert.equal(server.requests[0].path, "/x?q=1");
    assert.equal(server.requests[0].headers.accept, "application/jwk-set+json");
    // An entry with a port is not a host, so it allows nothing.
    await assert.rejects(
      safeFetch(`${server.origin}/x`, { allowPrivateHosts: [`127.0.0.1:${server.port}`] }),
      (err) => err instanceof ObservalError && err.code === "UNSAFE_URL",
    );
  } finally {
    await server.close();
  }
});

Deno.test("safeFetch() pins a public name to its first checked address, keeping the host", async () => {
  const { request, seen } = recordingRequester(JSON.stringify(CARD));
  const lookups: string[] = [];
  const result = await safeFetchJson("https://Agents.Example.com/.well-known/agent-card.json", {
    allowPrivateHosts: [],
    resolve: (name) => {
      lookups.push(name);
      return Promise.resolve(["93.184.216.34", "2606:4700::1"]);
    },
    request,
  });
  assert.deepEqual(result.json, CARD);
  assert.deepEqual(lookups, ["agents.example.com"]);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].address, "93.184.216.34");
  assert.equal(seen[0].url.hostname, "agents.example.com");
  assert.equal(seen[0].url.protocol, "https:");
  assert.equal(seen[0].headers.accept, "application/json");
});

Deno.test("safeFetch() connects to a public IP literal without a DNS lookup", async () => {
  const { request, seen } = recordingRequester("{}");
  await safeFetch("https://[2606:4700::1]:8443/card", {
    allowPrivateHosts: [],
    resolve: () => Promise.reject(new Error("must not resolve an IP literal")),
    request,
  });
  assert.equal(seen[0].address, "2606:4700::1");
  assert.equal(seen[0].url.host, "[2606:4700::1]:8443");
});

Deno.test("safeFetch() leaves an allowlisted host unpinned", async () => {
  const { request, seen } = recordingRequester("{}");
  await safeFetch("http://registry.corp.example/card", {
    allowPrivateHosts: ["registry.corp.example"],
    resolve: () => Promise.reject(new Error("must not resolve an allowlisted host")),
    request,
  });
  assert.equal(seen[0].address, undefined);
  assert.equal(seen[0].url.href, "http://registry.corp.example/card");
});

Deno.test("safeFetch() reports a refused connection as NETWORK", async () => {
  const server = await startServer(() => {});
  const origin = server.origin;
  await server.close();
  await assert.rejects(
    safeFetch(`${origin}/`, { allowPrivateHosts: ["127.0.0.1"] }),
    (err) => {
      assert.ok(err instanceof ObservalError);
      assert.equal(err.code, "NETWORK");
      assert.match(err.message, /could not be fetched/);
      assert.equal(err.resource, `${origin}/`);
      return true;
    },
  );
});

Deno.test("safeFetch() honours a smaller maxBytes and names the label", async () => {
  const { request } = recordingRequester("x".repeat(11));
  await assert.rejects(
    safeFetch("https://agents.example.com/", {
      allowPrivateHosts: [],
      resolve: () => Promise.resolve(["93.184.216.34"]),
      request,
      maxBytes: 10,
      label: "Agent Card",
    }),
    /The Agent Card from https:\/\/agents\.example\.com\/ is larger than 10 bytes/,
  );
});

Deno.test("safeFetch() accepts a body of exactly maxBytes", async () => {
  const { request } = recordingRequester("x".repeat(10));
  const res = await safeFetch("https://agents.example.com/", {
    allowPrivateHosts: [],
    resolve: () => Promise.resolve(["93.184.216.34"]),
    request,
    maxBytes: 10,
  });
  assert.equal(res.body.byteLength, 10);
});

Deno.test("safeFetch() rejects with the caller's reason when its signal aborts", async () => {
  const server = await startServer(() => {});
  try {
    const controller = new AbortController();
    const reason = new Error("stopped by caller");
    setTimeout(() => controller.abort(reason), 50);
    await assert.rejects(
      safeFetch(`${server.origin}/`, {
        allowPrivateHosts: ["127.0.0.1"],
        signal: controller.signal,
      }),
      (err) => err === reason,
    );
  } finally {
    await server.close();
  }
});

Deno.test("safeFetchJson() refuses a non-200 status", async () => {
  const { request } = recordingRequester("{}", 404);
  await assert.rejects(
    safeFetchJson("https://agents.example.com/", {
      allowPrivateHosts: [],
      resolve: () => Promise.resolve(["93.184.216.34"]),
      request,
    }),
    (err) => err instanceof ObservalError && err.code === "NETWORK" && /HTTP 404/.test(err.message),
  );
});

Deno.test("safeFetchJson() refuses a body that is not JSON", async () => {
  const server = await startServer((_req, res) => res.end("<html>not json</html>"));
  try {
    await assert.rejects(
      safeFetchJson(server.origin, { allowPrivateHosts: ["127.0.0.1"], label: "Agent Card" }),
      (err) =>
        err instanceof ObservalError && err.code === "NETWORK" &&
        /The Agent Card from .* is not valid JSON/.test(err.message),
    );
  } finally {
    await server.close();
  }
});

Deno.test("safeFetchJson() refuses a body that is not UTF-8", async () => {
  const server = await startServer((_req, res) =>
    res.end(new Uint8Array([0x22, 0xff, 0xfe, 0x22]))
  );
  try {
    await assert.rejects(
      safeFetchJson(server.origin, { allowPrivateHosts: ["127.0.0.1"] }),
      /not valid JSON: it is not valid UTF-8/,
    );
  } finally {
    await server.close();
  }
});
