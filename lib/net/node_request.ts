import type http from "node:http";
import type https from "node:https";
import type { LookupFunction } from "node:net";
import { nodeHttp, nodeHttps } from "../core/system/mod.ts";
import { bareHost, isIpHost } from "./_host.ts";
import type { PinnedRequest, RawResponse } from "./requester.ts";

/**
 * The real {@linkcode Requester}, on `node:http` / `node:https` (the same code runs on
 * Deno and Node). A GET unless `request.method` says POST, with `request.body` if any.
 *
 * When `request.address` is set, the socket connects to that address through a `lookup`
 * that answers only for the URL's host, while the `Host` header and the TLS server name
 * (SNI, and the name the certificate must match) stay the URL's host. A second DNS answer
 * therefore cannot move the connection elsewhere (DNS rebinding). No agent is shared, so
 * a pooled socket to another address is never reused. Redirects are not followed.
 *
 * @param request The request to perform.
 * @returns The status, headers and the unread body stream.
 *
 * @example
 * ```ts ignore
 * const res = await nodeRequest({
 *   url: new URL("https://agents.example.com/.well-known/agent-card.json"),
 *   address: "93.184.216.34",
 *   headers: { accept: "application/json" },
 *   signal: AbortSignal.timeout(10_000),
 * });
 * ```
 */
export function nodeRequest(request: PinnedRequest): Promise<RawResponse> {
  const { url, address, signal, body } = request;
  const headers = body === undefined
    ? request.headers
    : { ...request.headers, "content-length": String(body.byteLength) };
  const hostname = bareHost(url.hostname);
  const secure = url.protocol === "https:";
  const options: https.RequestOptions = {
    method: request.method ?? "GET",
    protocol: url.protocol,
    hostname,
    port: url.port === "" ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    agent: false,
  };
  if (address !== undefined) options.lookup = pinnedLookup(hostname, address);
  // SNI carries names only; for an IP literal the certificate is checked against the IP.
  if (secure && !isIpHost(hostname)) options.servername = hostname;

  return new Promise<RawResponse>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    // Loaded here, not at import: the A2A client loads this module, and under Deno these
    // start the Node layer, which a plain-http call never needs (see hostRequest).
    const req = (secure ? nodeHttps() : nodeHttp()).request(options, (res) => {
      const onAbortBody = () => res.destroy(signal.reason);
      signal.addEventListener("abort", onAbortBody, { once: true });
      res.once("close", () => signal.removeEventListener("abort", onAbortBody));
      resolve({
        status: res.statusCode ?? 0,
        headers: flattenHeaders(res.headers),
        body: res,
        abort: () => {
          res.destroy();
          req.destroy();
        },
      });
    });
    const onAbort = () => req.destroy(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    req.once("close", () => signal.removeEventListener("abort", onAbort));
    req.once("error", reject);
    req.end(body);
  });
}

/** A `lookup` that resolves `hostname` to the one checked address and nothing else. */
function pinnedLookup(hostname: string, address: string): LookupFunction {
  const family = address.includes(":") ? 6 : 4;
  return (name, options, callback) => {
    if (bareHost(name) !== hostname) {
      const err = Object.assign(new Error(`Unexpected lookup for ${name}`), { code: "ENOTFOUND" });
      return callback(err, "", 0);
    }
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
