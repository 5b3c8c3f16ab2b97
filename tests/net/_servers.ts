/**
 * Loopback servers for the net tests: an HTTP server that counts requests, and a raw
 * TCP server that records the TLS server name (SNI) a client sends, then hangs up.
 * @module
 */
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";

/** A running loopback HTTP server. */
export interface TestServer {
  port: number;
  origin: string;
  /** Requests received so far (method, path and headers). */
  requests: { path: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** Starts an HTTP server on 127.0.0.1, port 0. */
export async function startServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<TestServer> {
  const requests: TestServer["requests"] = [];
  const server = http.createServer((req, res) => {
    requests.push({ path: req.url ?? "", headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A raw TCP server that reads one TLS ClientHello per connection. */
export interface SniServer {
  port: number;
  /** Server names seen, one per connection (null when the hello carried none). */
  names: (string | null)[];
  close(): Promise<void>;
}

/** Starts a TCP server on 127.0.0.1 that records the SNI of each ClientHello. */
export async function startSniServer(): Promise<SniServer> {
  const names: (string | null)[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffered = new Uint8Array(0);
    socket.on("data", (chunk: Uint8Array) => {
      const next = new Uint8Array(buffered.length + chunk.length);
      next.set(buffered);
      next.set(chunk, buffered.length);
      buffered = next;
      // TLS record header: type(1) version(2) length(2).
      if (buffered.length < 5) return;
      const length = (buffered[3] << 8) | buffered[4];
      if (buffered.length < 5 + length) return;
      names.push(readServerName(buffered.subarray(5, 5 + length)));
      socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    names,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Reads the server_name extension out of a ClientHello handshake message. */
function readServerName(hello: Uint8Array): string | null {
  const view = new DataView(hello.buffer, hello.byteOffset, hello.byteLength);
  if (hello[0] !== 1) return null; // not a ClientHello
  let at = 4 + 2 + 32; // handshake header, client version, random
  at += 1 + hello[at]; // session id
  at += 2 + view.getUint16(at); // cipher suites
  at += 1 + hello[at]; // compression methods
  const end = at + 2 + view.getUint16(at);
  at += 2;
  while (at + 4 <= end) {
    const type = view.getUint16(at);
    const size = view.getUint16(at + 2);
    at += 4;
    if (type === 0) {
      // server_name_list: length(2), then entries of type(1) length(2) name.
      const nameLength = view.getUint16(at + 3);
      return new TextDecoder().decode(hello.subarray(at + 5, at + 5 + nameLength));
    }
    at += size;
  }
  return null;
}
