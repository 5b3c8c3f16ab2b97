/**
 * Serving HTTP for the server commands (`registry serve`, `a2a serve`): listening with a
 * clear error, stopping on Ctrl-C or SIGTERM, and telling a loopback address from one
 * other machines reach.
 * @module
 */
import type { Server } from "node:http";
import process from "node:process";
import { ObservalError } from "../core/mod.ts";
import { ipInRange, parseIpAddress, parseIpRange } from "../net/mod.ts";

/** A listening server. */
export interface Listening {
  /** `http://host:port`, with an IPv6 host in brackets. */
  url: string;
  port: number;
  /**
   * Resolves once Ctrl-C or SIGTERM has arrived and the server has stopped taking
   * connections; `beforeClose` runs first (and is awaited).
   */
  stopped(beforeClose?: () => Promise<void>): Promise<void>;
}

/**
 * Serves `fetch` on host:port. Signals are handled before this resolves, so a supervisor
 * that stops the server as soon as it reads the URL is heard.
 *
 * @throws {ObservalError} UNAVAILABLE when the address cannot be listened on
 */
export async function listen(
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
  host: string,
  port: number,
): Promise<Listening> {
  const { serve } = await import("@hono/node-server");
  // Plain HTTP/1.1: serve() makes an http.Server when no HTTP/2 factory is given.
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch, hostname: host, port }, () => resolve(s as Server));
    s.once("error", (err: Error) =>
      reject(
        new ObservalError("UNAVAILABLE", `Cannot listen on ${host}:${port}: ${err.message}`, {
          remediation: "Choose another --port, or stop whatever uses it",
        }),
      ));
  });
  let before: (() => Promise<void>) | undefined;
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void (async () => {
        try {
          await before?.();
        } finally {
          // Answers still being written get a short grace; then every connection is cut.
          // Kept-alive idle ones would otherwise hold close() open: under Deno, 1000 of
          // them held it for 180 s even after closeIdleConnections().
          const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
          server.close(() => {
            clearTimeout(cut);
            resolve();
          });
          server.closeIdleConnections();
        }
      })();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  const address = server.address();
  const actual = typeof address === "object" && address ? address.port : port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${actual}`,
    port: actual,
    stopped(beforeClose) {
      before = beforeClose;
      return stopped;
    },
  };
}

/** How long answers still being written may take once the server stops. */
const CLOSE_GRACE_MS = 2000;

const LOOPBACK = [parseIpRange("127.0.0.0/8")!, parseIpRange("::1")!];

/** True when only this machine can connect: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopback(host: string): boolean {
  if (host.toLowerCase() === "localhost") return true;
  const address = parseIpAddress(host);
  return address !== null && LOOPBACK.some((range) => ipInRange(address, range));
}
