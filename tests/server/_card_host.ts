/**
 * A loopback HTTP server for import tests: each path answers with a scripted response
 * (a card, a redirect, an oversize or broken body), and every request is counted.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** What one path answers. `chunks` streams the body without a Content-Length. */
export interface Scripted {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  chunks?: Uint8Array[];
}

/** A running card host on 127.0.0.1. */
export interface CardHost {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Paths requested so far, in order. */
  requests: string[];
  /** Sets what `path` answers; a plain object is served as JSON. */
  route(path: string, answer: Scripted | Record<string, unknown>): void;
  close(): Promise<void>;
}

/** Starts a card host on 127.0.0.1, port 0. Unknown paths answer 404. */
export async function startCardHost(): Promise<CardHost> {
  const routes = new Map<string, Scripted>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    requests.push(path);
    const answer = routes.get(path) ?? { status: 404, body: "not here" };
    res.writeHead(answer.status ?? 200, answer.headers ?? {});
    if (answer.chunks) {
      for (const chunk of answer.chunks) res.write(chunk);
      res.end();
    } else {
      res.end(answer.body ?? "");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    route(path, answer) {
      const scripted = "status" in answer || "body" in answer || "chunks" in answer;
      routes.set(
        path,
        scripted ? answer as Scripted : {
          headers: { "content-type": "application/json" },
          body: JSON.stringify(answer),
        },
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
