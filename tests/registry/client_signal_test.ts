/**
 * RegistryClient.withSignal: a call under way ends when the signal aborts, with the
 * signal's reason (not a NETWORK error), and its connection is closed; the client it came
 * from is not bound by the signal, and closing the bound client closes nothing. Against a
 * real HTTP server on 127.0.0.1 that takes the request and never answers.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { ObservalError } from "../../lib/core/mod.ts";
import { httpTransport, RegistryClient } from "../../lib/registry/mod.ts";

interface Silent {
  server: Server;
  /** Resolves with the socket of the next request to arrive. */
  nextRequest(): Promise<Socket>;
  requests: number;
}

/** An HTTP server that answers only `/api/v1/me`, and every other route never. */
async function silentServer(): Promise<Silent> {
  const waiting: Array<(socket: Socket) => void> = [];
  const arrived: Socket[] = [];
  const silent: Silent = {
    server: createServer((req, res) => {
      silent.requests++;
      if (req.url === "/api/v1/me") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: "u1", handle: "ana", role: "user", teams: [] }));
        return;
      }
      const next = waiting.shift();
      if (next) next(req.socket);
      else arrived.push(req.socket);
    }),
    nextRequest: () =>
      arrived.length > 0
        ? Promise.resolve(arrived.shift()!)
        : new Promise((resolve) => waiting.push(resolve)),
    requests: 0,
  };
  await new Promise<void>((resolve) => silent.server.listen(0, "127.0.0.1", resolve));
  return silent;
}

function clientFor(silent: Silent, onClose?: () => void): RegistryClient {
  const { port } = silent.server.address() as AddressInfo;
  return new RegistryClient({
    transport: httpTransport(`http://127.0.0.1:${port}`, (req) => fetch(req)),
    label: "a test registry",
    onClose,
  });
}

async function close(silent: Silent): Promise<void> {
  silent.server.closeAllConnections();
  await new Promise((resolve) => silent.server.close(resolve));
}

const isAbort = (err: unknown) => err instanceof Error && err.name === "AbortError";

Deno.test("withSignal(): an abort ends the call under way with its reason and closes the connection", async () => {
  const silent = await silentServer();
  try {
    const stop = new AbortController();
    const call = clientFor(silent).withSignal(stop.signal).search({ query: { text: "review" } });
    const socket = await silent.nextRequest();
    const closed = new Promise((resolve) => socket.once("close", resolve));
    stop.abort();
    await assert.rejects(call, (err) => isAbort(err) && !(err instanceof ObservalError));
    await closed;
  } finally {
    await close(silent);
  }
});

Deno.test("withSignal(): an aborted signal refuses a call without sending it", async () => {
  const silent = await silentServer();
  try {
    const stop = new AbortController();
    stop.abort(new DOMException("Interrupted", "AbortError"));
    await assert.rejects(clientFor(silent).withSignal(stop.signal).me(), isAbort);
    assert.equal(silent.requests, 0);
  } finally {
    await close(silent);
  }
});

Deno.test("withSignal(): the original client is not bound, and closing the bound one closes nothing", async () => {
  const silent = await silentServer();
  let closes = 0;
  try {
    const client = clientFor(silent, () => closes++);
    const stop = new AbortController();
    const bound = client.withSignal(stop.signal);
    stop.abort();
    await assert.rejects(bound.me(), isAbort);
    bound.close();
    assert.equal(closes, 0);
    assert.equal((await client.me()).id, "u1");
    // Bound twice: either signal ends the call.
    const other = new AbortController();
    const twice = client.withSignal(new AbortController().signal).withSignal(other.signal);
    const call = twice.entry("urn:air:acme:agent:x");
    await silent.nextRequest();
    other.abort();
    await assert.rejects(call, isAbort);
    client.close();
    assert.equal(closes, 1);
  } finally {
    await close(silent);
  }
});
