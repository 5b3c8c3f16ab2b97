import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AgentCard,
  type CardInterface,
  parseAgentCard,
  RemoteRpcError,
} from "../../../lib/a2a/mod.ts";
import { createRemoteClient, type RemoteClient } from "../../../lib/a2a/client/mod.ts";
import { type Env, ObservalError } from "../../../lib/core/mod.ts";
import type { PinnedRequest, Requester } from "../../../lib/net/mod.ts";

/** One request a scripted server saw. */
interface Seen {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

type Script = (seen: Seen, res: ServerResponse) => void;

/** A loopback HTTP server that answers every POST with `script`, for failure modes. */
async function withServer(
  script: Script,
  fn: (url: string, seen: Seen[]) => Promise<void>,
): Promise<void> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => raw += chunk);
    req.on("end", () => {
      const entry: Seen = {
        path: req.url ?? "/",
        headers: req.headers,
        body: raw ? JSON.parse(raw) : {},
      };
      seen.push(entry);
      script(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await fn(`http://127.0.0.1:${port}/rpc`, seen);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function v1Card(url: string, extra: Record<string, unknown> = {}): AgentCard {
  return parseAgentCard({
    name: "Scripted",
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
    ...extra,
  });
}

function client(
  url: string,
  options: { iface?: Partial<CardInterface>; card?: AgentCard; env?: Env; timeoutMs?: number } = {},
): RemoteClient {
  return createRemoteClient({
    iface: { url, protocolBinding: "JSONRPC", protocolVersion: "1.0", ...options.iface },
    card: options.card ?? v1Card(url, { capabilities: { streaming: true } }),
    env: options.env ?? {},
    allowPrivateHosts: ["127.0.0.1"],
    requestTimeoutMs: options.timeoutMs,
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function isNetwork(pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof ObservalError, String(err));
    assert.equal(err.code, "NETWORK");
    assert.match(err.message, pattern);
    assert.ok(err.remediation);
    return true;
  };
}

async function drain(snapshots: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const snap of snapshots) out.push(snap);
  return out;
}

Deno.test("createRemoteClient() refuses an interface it cannot call", () => {
  const card = v1Card("https://agents.acme.com/a2a");
  const bad: CardInterface[] = [
    { url: "ftp://agents.acme.com/a2a", protocolBinding: "JSONRPC" },
    { url: "not a url", protocolBinding: "JSONRPC" },
    { url: "https://agents.acme.com/a2a", protocolBinding: "GRPC" },
    { url: "https://agents.acme.com/a2a", protocolBinding: "HTTP+JSON" },
  ];
  for (const iface of bad) {
    assert.throws(
      () => createRemoteClient({ iface, card, env: {}, allowPrivateHosts: [] }),
      (err: unknown) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.match(err.message, /JSON-RPC endpoint/);
        return true;
      },
      JSON.stringify(iface),
    );
  }
});

Deno.test("createRemoteClient() refuses to send a token over plain http to agent.test", () => {
  const url = "http://agent.test/a2a";
  const request: Requester = () => {
    throw new Error("no request may be made");
  };
  assert.throws(
    () =>
      createRemoteClient({
        iface: { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        card: v1Card(url),
        env: { OBSERVAL_A2A_TOKEN_AGENT_TEST: "secret" },
        allowPrivateHosts: ["agent.test"],
        request,
      }),
    (err: unknown) => {
      assert.ok(err instanceof ObservalError);
      assert.equal(err.code, "PERMISSION_DENIED");
      assert.match(err.message, /OBSERVAL_A2A_TOKEN_AGENT_TEST/);
      return true;
    },
  );
});

Deno.test("RemoteClient calls only the pinned https URL at its checked address, with version, tenant and token", async () => {
  // TLS cannot be served here, so this one case records what would go on the wire.
  const url = "https://agents.acme.com/a2a/v1?x=1";
  const calls: PinnedRequest[] = [];
  const request: Requester = (req) => {
    calls.push(req);
    const body = JSON.parse(new TextDecoder().decode(req.body));
    const answer = JSON.stringify({
      jsonrpc: "2.0",
      id: body.id,
      result: { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_SUBMITTED" } } },
    });
    return Promise.resolve({
      status: 200,
      headers: { "content-type": "application/json" },
      body: (async function* () {
        yield new TextEncoder().encode(answer);
      })(),
    });
  };
  const lookups: string[] = [];
  const remote = createRemoteClient({
    iface: { url, protocolBinding: "JSONRPC", protocolVersion: "1.0.3", tenant: "acme" },
    card: v1Card(url),
    env: { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "tok" },
    allowPrivateHosts: [],
    resolve: (host) => {
      lookups.push(host);
      return Promise.resolve(["93.184.216.34"]);
    },
    request,
  });
  assert.equal(remote.version, "1.0");
  const snap = await remote.send({ text: "hi", contextId: "c0" });
  assert.equal(snap.taskId, "t1");
  await remote.get("t1");
  await remote.cancel("t1");
  assert.deepEqual(lookups, ["agents.acme.com"], "the host is resolved once");
  assert.deepEqual(calls.map((c) => [c.url.href, c.address, c.method]), [
    [url, "93.184.216.34", "POST"],
    [url, "93.184.216.34", "POST"],
    [url, "93.184.216.34", "POST"],
  ]);
  const [send, get, cancel] = calls.map((c) => ({
    headers: c.headers,
    body: JSON.parse(new TextDecoder().decode(c.body)),
  }));
  assert.equal(send.headers["A2A-Version"], "1.0");
  assert.equal(send.headers.Authorization, "Bearer tok");
  assert.equal(send.headers["content-type"], "application/json");
  assert.equal(send.body.method, "SendMessage");
  assert.equal(send.body.params.tenant, "acme");
  assert.equal(send.body.params.message.contextId, "c0");
  assert.equal(send.body.params.message.taskId, undefined);
  assert.deepEqual(get.body.params, { id: "t1", tenant: "acme" });
  assert.equal(get.body.method, "GetTask");
  assert.deepEqual(cancel.body.params, { id: "t1", tenant: "acme" });
  assert.equal(cancel.body.method, "CancelTask");
});

Deno.test("RemoteClient speaks v0.3 without a version header when the card is 0.3", async () => {
  await withServer((seen, res) => {
    json(res, 200, {
      jsonrpc: "2.0",
      id: seen.body.id,
      result: { kind: "task", id: "t", contextId: "c", status: { state: "working" } },
    });
  }, async (url, seen) => {
    const card = parseAgentCard({ name: "Old", url, protocolVersion: "0.3.0" });
    const remote = createRemoteClient({
      iface: { url, protocolBinding: "JSONRPC" },
      card,
      env: {},
      allowPrivateHosts: ["127.0.0.1"],
    });
    assert.equal(remote.version, "0.3");
    assert.equal((await remote.get("t")).state, "TASK_STATE_WORKING");
    assert.equal(seen[0].body.method, "tasks/get");
    assert.equal(seen[0].headers["a2a-version"], undefined);
  });
});

Deno.test("RemoteClient reports an unreachable agent as a network error", async () => {
  let closedUrl = "";
  await withServer(() => {}, (url) => {
    closedUrl = url;
    return Promise.resolve();
  });
  await assert.rejects(client(closedUrl).get("t"), isNetwork(/could not be reached/));
});

Deno.test("RemoteClient maps HTTP and JSON-RPC failures to network errors", async () => {
  const cases: { name: string; script: Script; want: RegExp }[] = [
    {
      name: "non-JSON body",
      script: (_s, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>"),
      want: /HTTP 200 without JSON/,
    },
    {
      name: "server error",
      script: (_s, res) => res.writeHead(502).end("bad gateway"),
      want: /answered HTTP 502/,
    },
    {
      name: "JSON that is not JSON-RPC",
      script: (_s, res) => json(res, 200, { hello: "world" }),
      want: /malformed JSON-RPC response/,
    },
    {
      name: "a JSON-RPC array",
      script: (_s, res) => json(res, 200, [{ jsonrpc: "2.0", id: 1, result: {} }]),
      want: /malformed JSON-RPC response/,
    },
    {
      name: "an answer to another request",
      script: (_s, res) => json(res, 200, { jsonrpc: "2.0", id: "other", result: {} }),
      want: /different request/,
    },
    {
      name: "a null result",
      script: (s, res) => json(res, 200, { jsonrpc: "2.0", id: s.body.id, result: null }),
      want: /without a task or a message/,
    },
    {
      name: "a forbidden status",
      script: (_s, res) => res.writeHead(403).end(),
      want: /OBSERVAL_A2A_TOKEN_127_0_0_1 is not set/,
    },
  ];
  for (const { name, script, want } of cases) {
    await withServer(script, async (url) => {
      await assert.rejects(client(url).get("t"), (err: unknown) => {
        assert.ok(err instanceof ObservalError, name);
        assert.match(err.message, want, name);
        assert.equal(err.code, name === "a forbidden status" ? "UNAUTHENTICATED" : "NETWORK");
        return true;
      });
    });
  }
});

Deno.test("RemoteClient reports a JSON-RPC error sent with an HTTP error status", async () => {
  const long = "x".repeat(400);
  await withServer((s, res) => {
    json(res, 400, { jsonrpc: "2.0", id: s.body.id, error: { code: -32602, message: long } });
  }, async (url) => {
    await assert.rejects(client(url).send({ text: "hi" }), (err: unknown) => {
      assert.ok(err instanceof RemoteRpcError);
      assert.equal(err.rpcCode, -32602);
      assert.ok(err.message.includes("x".repeat(300) + "…"));
      assert.ok(!err.message.includes("x".repeat(301)));
      return true;
    });
  });
});

Deno.test("RemoteClient does not follow a redirect", async () => {
  await withServer((s, res) => {
    if (s.path === "/moved") return json(res, 200, { jsonrpc: "2.0", id: s.body.id, result: {} });
    res.writeHead(307, { location: "/moved" }).end();
  }, async (url, seen) => {
    await assert.rejects(client(url).get("t"), isNetwork(/redirect \(HTTP 307\)/));
    assert.deepEqual(seen.map((s) => s.path), ["/rpc"]);
  });
});

Deno.test("RemoteClient gives up after the request timeout", async () => {
  await withServer(() => {/* never answers */}, async (url) => {
    await assert.rejects(
      client(url, { timeoutMs: 100 }).get("t"),
      isNetwork(/did not answer within 0.1 seconds/),
    );
  });
});

Deno.test("RemoteClient passes the caller's abort through as it is", async () => {
  await withServer(() => {/* never answers */}, async (url) => {
    const controller = new AbortController();
    const reason = new Error("stop now");
    const pending = client(url).get("t", controller.signal);
    setTimeout(() => controller.abort(reason), 20);
    await assert.rejects(pending, (err: unknown) => err === reason);
  });
});

Deno.test("RemoteClient.stream() reports a JSON error envelope instead of a stream", async () => {
  await withServer((s, res) => {
    json(res, 200, { jsonrpc: "2.0", id: s.body.id, error: { code: -32001, message: "gone" } });
  }, async (url, seen) => {
    await assert.rejects(drain(client(url).stream({ text: "hi" })), (err: unknown) => {
      assert.ok(err instanceof RemoteRpcError);
      assert.equal(err.rpcCode, -32001);
      assert.match(err.message, /gone/);
      return true;
    });
    assert.equal(seen[0].body.method, "SendStreamingMessage");
    assert.equal(seen[0].headers.accept, "text/event-stream");
  });
});

Deno.test("RemoteClient.stream() reads chunked CRLF events and multi-line data", async () => {
  await withServer((s, res) => {
    const id = s.body.id;
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    const task = JSON.stringify({
      jsonrpc: "2.0",
      id,
      result: { task: { id: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } },
    });
    const done = JSON.stringify({
      jsonrpc: "2.0",
      id,
      result: { statusUpdate: { taskId: "t", status: { state: "TASK_STATE_COMPLETED" } } },
    });
    // Split the second event's JSON where a newline is only whitespace.
    const split = done.indexOf(",") + 1;
    const wire = `: comment\r\nevent: message\r\ndata: ${task}\r\n\r\n` +
      `data: ${done.slice(0, split)}\ndata: ${done.slice(split)}\n\n`;
    // Split mid-line and between "\r" and "\n" to exercise reassembly.
    const cut1 = wire.indexOf("\r\n\r\n") + 1;
    res.write(wire.slice(0, 7));
    res.write(wire.slice(7, cut1));
    res.end(wire.slice(cut1));
  }, async (url) => {
    const snaps = await drain(client(url).stream({ text: "hi" }));
    assert.deepEqual(snaps.map((s) => (s as { state: string }).state), [
      "TASK_STATE_WORKING",
      "TASK_STATE_COMPLETED",
    ]);
  });
});

Deno.test("RemoteClient.stream() maps an error event inside the stream", async () => {
  await withServer((s, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const error = { jsonrpc: "2.0", id: s.body.id, error: { code: -32603, message: "boom" } };
    res.end(`data: ${JSON.stringify(error)}\n\n`);
  }, async (url) => {
    await assert.rejects(
      drain(client(url).stream({ text: "hi" })),
      (err: unknown) => err instanceof RemoteRpcError && err.rpcCode === -32603,
    );
  });
});

Deno.test("RemoteClient.stream() refuses when the card does not offer streaming", async () => {
  const url = "https://agents.acme.com/a2a";
  const request: Requester = () => {
    throw new Error("no request may be made");
  };
  const remote = createRemoteClient({
    iface: { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    card: v1Card(url),
    env: {},
    allowPrivateHosts: [],
    request,
  });
  assert.equal(remote.streaming, false);
  await assert.rejects(drain(remote.stream({ text: "hi" })), (err: unknown) => {
    assert.ok(err instanceof ObservalError);
    assert.equal(err.code, "FAILED_PRECONDITION");
    return true;
  });
});

Deno.test("RemoteClient refuses an endpoint that resolves to a private address, sending nothing", async () => {
  const url = "https://agents.acme.com/a2a";
  for (const address of ["127.0.0.1", "10.0.0.8", "169.254.169.254", "fd00::1"]) {
    const calls: PinnedRequest[] = [];
    const remote = createRemoteClient({
      iface: { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      card: v1Card(url, { capabilities: { streaming: true } }),
      env: {},
      allowPrivateHosts: ["127.0.0.1"],
      resolve: () => Promise.resolve(["93.184.216.34", address]),
      request: (req) => {
        calls.push(req);
        return Promise.reject(new Error("no request may be made"));
      },
    });
    for (
      const call of [() => remote.send({ text: "hi" }), () => drain(remote.stream({ text: "hi" }))]
    ) {
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof ObservalError, String(err));
        assert.equal(err.code, "UNSAFE_URL");
        assert.match(
          err.message,
          /Refused agents\.acme\.com: it resolves to the private or reserved/,
        );
        assert.ok(err.message.includes(address), err.message);
        return true;
      }, address);
    }
    assert.equal(calls.length, 0, address);
  }
});

Deno.test("RemoteClient refuses plain http and local names unless the host is allowlisted", async () => {
  for (
    const url of ["http://agents.acme.com/a2a", "https://localhost/a2a", "https://10.2.3.4/a2a"]
  ) {
    const remote = createRemoteClient({
      iface: { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      card: v1Card(url),
      env: {},
      allowPrivateHosts: ["127.0.0.1"],
      resolve: () => Promise.resolve(["93.184.216.34"]),
      request: () => Promise.reject(new Error("no request may be made")),
    });
    await assert.rejects(remote.get("t"), (err: unknown) => {
      assert.ok(err instanceof ObservalError);
      assert.equal(err.code, "UNSAFE_URL", url);
      return true;
    });
  }
});
