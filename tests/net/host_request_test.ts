/**
 * hostRequest(), the default requester: a plain-http request to an IP address goes
 * through the runtime's own fetch when it can be pinned there (Deno), everything else
 * through node:http(s). Both ways must keep the requester's contract: the checked address
 * only, the URL's host as `Host`, no redirect followed, no proxy, the body as it arrives.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { hostRequest, nodeRequest, type RawResponse } from "../../lib/net/mod.ts";
import { startServer, startSniServer } from "./_servers.ts";

async function text(res: RawResponse): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of res.body) chunks.push(chunk);
  return new TextDecoder().decode(await new Blob(chunks as BlobPart[]).arrayBuffer());
}

Deno.test("hostRequest() POSTs to an IP address over http with the URL's host, body and length", async () => {
  let received = "";
  const server = await startServer((req, res) => {
    req.on("data", (c: Uint8Array) => received += new TextDecoder().decode(c));
    req.on("end", () => {
      res.setHeader("X-Answer", ["one", "two"]);
      res.end(`got ${req.method} ${req.headers["content-length"]}`);
    });
  });
  try {
    const res = await hostRequest({
      url: new URL(`${server.origin}/rpc?x=1`),
      method: "POST",
      body: new TextEncoder().encode('{"a":"é"}'),
      headers: { "content-type": "application/json", "accept-encoding": "identity" },
      signal: AbortSignal.timeout(5_000),
    });
    assert.equal(res.status, 200);
    assert.equal(await text(res), "got POST 10");
    assert.equal(received, '{"a":"é"}');
    assert.equal(res.headers["x-answer"], "one, two");
    assert.equal(server.requests[0].path, "/rpc?x=1");
    assert.equal(server.requests[0].headers.host, `127.0.0.1:${server.port}`);
    assert.equal(server.requests[0].headers["content-type"], "application/json");
  } finally {
    await server.close();
  }
});

Deno.test("hostRequest() hands back a redirect instead of following it", async () => {
  const server = await startServer((req, res) => {
    if (req.url === "/moved") {
      res.writeHead(302, { location: "/elsewhere" }).end();
    } else res.end("followed");
  });
  try {
    const res = await hostRequest({
      url: new URL(`${server.origin}/moved`),
      headers: {},
      signal: AbortSignal.timeout(5_000),
    });
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, "/elsewhere");
    res.abort?.();
    assert.deepEqual(server.requests.map((r) => r.path), ["/moved"]);
  } finally {
    await server.close();
  }
});

Deno.test("hostRequest() closes the connection when the reader stops early, and on the caller's abort", async () => {
  let closed = 0;
  const server = await startServer((_req, res) => {
    res.on("close", () => closed++);
    res.write("first");
    // The rest never comes: only the client can end this exchange.
  });
  try {
    const res = await hostRequest({
      url: new URL(`${server.origin}/`),
      headers: {},
      signal: AbortSignal.timeout(5_000),
    });
    for await (const _ of res.body) break;
    const controller = new AbortController();
    const reason = new Error("stopped by caller");
    const second = await hostRequest({
      url: new URL(`${server.origin}/`),
      headers: {},
      signal: controller.signal,
    });
    const reading = (async () => {
      for await (const _ of second.body) controller.abort(reason);
    })();
    await assert.rejects(reading);
    for (let i = 0; i < 100 && closed < 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(closed, 2, "both connections were closed by the client");
  } finally {
    await server.close();
  }
});

Deno.test("hostRequest() rejects with the caller's reason when aborted before the answer", async () => {
  const server = await startServer(() => {/* never answers */});
  try {
    const controller = new AbortController();
    const reason = new Error("gave up");
    setTimeout(() => controller.abort(reason), 50);
    await assert.rejects(
      hostRequest({ url: new URL(`${server.origin}/`), headers: {}, signal: controller.signal }),
      (err) => err === reason,
    );
  } finally {
    await server.close();
  }
});

Deno.test("hostRequest() says why a connection failed", async () => {
  const server = await startServer(() => {});
  const origin = server.origin;
  await server.close();
  await assert.rejects(
    hostRequest({ url: new URL(`${origin}/`), headers: {}, signal: AbortSignal.timeout(5_000) }),
    (err) => err instanceof Error && /refused/i.test(err.message),
  );
});

for (
  const [name, request] of [["hostRequest", hostRequest], ["nodeRequest", nodeRequest]] as const
) {
  Deno.test(`${name}() sends a pinned host name to the checked address, over http and as TLS SNI`, async () => {
    const server = await startServer((_req, res) => res.end("pinned"));
    const sni = await startSniServer();
    try {
      // card.test does not resolve: only a connection pinned to the address gets there.
      const res = await request({
        url: new URL(`http://card.test:${server.port}/card?x=1`),
        address: "127.0.0.1",
        headers: {},
        signal: AbortSignal.timeout(5_000),
      });
      assert.equal(await text(res), "pinned");
      assert.equal(server.requests[0].headers.host, `card.test:${server.port}`);
      assert.equal(server.requests[0].path, "/card?x=1");
      await assert.rejects(request({
        url: new URL(`https://card.test:${sni.port}/`),
        address: "127.0.0.1",
        headers: {},
        signal: AbortSignal.timeout(5_000),
      }));
      assert.deepEqual(sni.names, ["card.test"]);
    } finally {
      await server.close();
      await sni.close();
    }
  });
}

Deno.test("hostRequest() goes straight to the address even when a proxy is set in the environment", async () => {
  const server = await startServer((_req, res) => res.end("direct"));
  try {
    // A dead proxy: a request sent through it would fail.
    const module = JSON.stringify(new URL("../../lib/net/mod.ts", import.meta.url).href);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        "--ext=ts",
        `const { hostRequest } = await import(${module});
         const res = await hostRequest({ url: new URL(${JSON.stringify(`${server.origin}/`)}),
           headers: {}, signal: AbortSignal.timeout(5000) });
         let got = ""; for await (const c of res.body) got += new TextDecoder().decode(c);
         console.log(res.status, got);`,
      ],
      cwd: fileURLToPath(new URL("../../", import.meta.url)),
      env: { HTTP_PROXY: "http://127.0.0.1:9", http_proxy: "http://127.0.0.1:9", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "200 direct");
  } finally {
    await server.close();
  }
});

Deno.test("hostRequest(): abort() during a pending read ends it, and aborting again is harmless", async () => {
  const server = await startServer((_req, res) => void res.write("first"));
  try {
    const res = await hostRequest({
      url: new URL(`${server.origin}/`),
      headers: {},
      signal: AbortSignal.timeout(5_000),
    });
    const reader = res.body[Symbol.asyncIterator]();
    await reader.next();
    const pending = reader.next();
    res.abort!();
    res.abort!();
    // Ended, one way or the other, but never by a failure of the cleanup itself.
    await pending.then(
      (step) => assert.equal(step.done, true),
      (err) => assert.doesNotMatch(String(err), /resource/i),
    );
  } finally {
    await server.close();
  }
});
