import { type DirectFetch, directFetch } from "../core/system/mod.ts";
import { bareHost, isIpHost } from "./_host.ts";
import { nodeRequest } from "./node_request.ts";
import type { PinnedRequest, RawResponse } from "./requester.ts";

/**
 * The {@linkcode Requester} for the runtime we run on, and the default everywhere. Under
 * Deno, a plain-http request to an IP address (an agent on this machine or an allowed
 * private one) goes through Deno's own fetch, so a worker that calls such an agent never
 * starts Deno's Node layer (7–15 ms): with the address in the URL there is no name to
 * pin. Everything else (host names, https, a proxy in the environment, Node) goes
 * through {@linkcode nodeRequest}, which pins a name to its checked address; Deno's fetch
 * cannot, short of sending every request as if to a proxy.
 *
 * Either way the request connects only to the checked address, sends the URL's host as
 * `Host`, follows no redirect, uses no proxy and shares no connection.
 *
 * @param request The request to perform.
 * @returns The status, headers and the unread body stream.
 */
export function hostRequest(request: PinnedRequest): Promise<RawResponse> {
  const { url, address } = request;
  const host = bareHost(url.hostname);
  const direct = url.protocol === "http:" && isIpHost(host) &&
    (address === undefined || address === host);
  const fetcher = direct ? directFetch() : undefined;
  return fetcher ? fetchRequest(request, fetcher) : nodeRequest(request);
}

/** Performs `request` with the runtime's fetch; closes the client when done. */
async function fetchRequest(request: PinnedRequest, direct: DirectFetch): Promise<RawResponse> {
  const { signal } = request;
  // Our own controller, so `abort()` can end the exchange without touching the caller's.
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  let open = true;
  // Reached from the body's end, from `abort()` and from a read that abort() cut short.
  const done = () => {
    if (!open) return;
    open = false;
    signal.removeEventListener("abort", onAbort);
    direct.close();
  };
  let response: Response;
  try {
    response = await direct.fetch(request.url, {
      method: request.method ?? "GET",
      headers: request.headers,
      body: request.body as BodyInit | undefined,
      redirect: "manual",
      signal: controller.signal,
    });
  } catch (err) {
    done();
    if (signal.aborted) throw signal.reason;
    // Deno says only "fetch failed"; what failed (refused, reset, ...) is in the cause.
    const cause = (err as { cause?: unknown }).cause;
    throw cause instanceof Error ? new Error(cause.message, { cause: err }) : err;
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const stream = response.body;
  // Canceling through the reader works while it holds the stream's lock (the stream's own
  // cancel then fails), and closes the connection even when the abort raced the answer's
  // arrival, where aborting the fetch's signal alone may leave the body open.
  const reader = stream?.getReader();
  return {
    status: response.status,
    headers,
    body: (async function* () {
      try {
        for (;;) {
          const step = await reader?.read();
          if (!step || step.done) return;
          yield step.value;
        }
      } finally {
        // Leaving early (the consumer stopped, or a read failed) closes the connection.
        void reader?.cancel().catch(() => {});
        done();
      }
    })(),
    abort: () => {
      controller.abort();
      void reader?.cancel().catch(() => {});
      done();
    },
  };
}
