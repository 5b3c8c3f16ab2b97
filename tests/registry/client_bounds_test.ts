/**
 * What a registry sends back is bounded: a body past the cap (declared or streamed) and a
 * server that never answers both end the call with a clear error, on a real HTTP server.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ObservalError } from "../../lib/core/mod.ts";
import { httpTransport, RegistryClient } from "../../lib/registry/mod.ts";

async function serve(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

function clientFor(server: Server, timeoutMs?: number): RegistryClient {
  const { port } = server.address() as AddressInfo;
  return new RegistryClient({
    transport: httpTransport(`http://127.0.0.1:${port}`, (req) => fetch(req)),
    label: "a test registry",
    timeoutMs,
  });
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

Deno.test("RegistryClient refuses an answer that streams past 32 MiB, without holding it", async () => {
  let sent = 0;
  const server = await serve((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const push = () => {
      // Never ends on its own: only the client's refusal stops it.
      while (res.write(chunk)) sent += chunk.length;
      sent += chunk.length;
    };
    res.on("drain", push);
    res.on("error", () => {});
    push();
  });
  try {
    await assert.rejects(
      clientFor(server).manifest(),
      (err) =>
        err instanceof ObservalError && err.code === "NETWORK" &&
        /larger than 32 MiB/.test(err.message),
    );
    assert.ok(sent < 64 * 1024 * 1024, `the server was stopped early (sent ${sent} bytes)`);
  } finally {
    await close(server);
  }
});

Deno.test("RegistryClient refuses an answer whose declared length is past the cap, unread", async () => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": 8 * 1024 ** 3 });
    res.write("{");
  });
  try {
    await assert.rejects(
      clientFor(server).manifest(),
      (err) => err instanceof ObservalError && /larger than 32 MiB/.test(err.message),
    );
  } finally {
    await close(server);
  }
});

Deno.test("RegistryClient gives up on a registry that never answers, and says so", async () => {
  const server = await serve(() => {/* never answers */});
  try {
    const started = performance.now();
    await assert.rejects(
      clientFor(server, 300).manifest(),
      (err) =>
        err instanceof ObservalError && err.code === "NETWORK" &&
        /did not answer within 0\.3 s/.test(err.message),
    );
    assert.ok(performance.now() - started < 5000);
  } finally {
    await close(server);
  }
});
