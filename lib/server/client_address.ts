/**
 * Who is calling, for rate limits: the socket's peer address, or, when the peer is a
 * proxy the administrator listed in `deployment.trusted_proxies`, the right-most
 * address in `X-Forwarded-For` that is not itself a trusted proxy. A header from any
 * other peer is ignored, since anyone can write one.
 * @module
 */
import {
  type IpGroups,
  ipInRange,
  type IpRange,
  isMappedIpv4,
  parseIpAddress,
  parseIpRange,
} from "../net/addresses/mod.ts";

/** The key of callers that have no socket (the in-process `app.fetch` transport). */
export const LOCAL_CLIENT = "local";

/**
 * The peer address of a request served by `@hono/node-server` (its `c.env.incoming`),
 * or undefined when the app is called in process and there is no socket.
 *
 * @param env The Hono context's `env` bindings.
 * @returns The socket's remote address.
 */
export function peerAddress(env: unknown): string | undefined {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined)
    ?.incoming;
  const address = incoming?.socket?.remoteAddress;
  return typeof address === "string" && address !== "" ? address : undefined;
}

/**
 * Parses the `deployment.trusted_proxies` setting into ranges (entries were validated
 * when stored; anything unreadable is skipped, which trusts less, not more).
 */
export function trustedProxyRanges(entries: readonly string[]): IpRange[] {
  return entries.map((entry) => parseIpRange(entry)).filter((r): r is IpRange => r !== null);
}

/**
 * The rate-limit key of a caller: `local` without a socket; otherwise the client's
 * address, with IPv6 cut to its /64 (one subscriber usually holds a whole /64, so
 * rotating addresses inside it must not buy a fresh budget).
 *
 * @param peer From {@linkcode peerAddress}.
 * @param forwardedFor The `X-Forwarded-For` header, honoured only from trusted peers.
 * @param trusted From {@linkcode trustedProxyRanges}.
 * @returns A short key such as `203.0.113.9` or `2001:db8:1:2::/64`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientKey, trustedProxyRanges } from "./client_address.ts";
 * const proxies = trustedProxyRanges(["10.0.0.0/8"]);
 * assert.equal(clientKey("10.0.0.2", "198.51.100.7, 10.0.0.3", proxies), "198.51.100.7");
 * assert.equal(clientKey("192.0.2.1", "198.51.100.7", proxies), "192.0.2.1");
 * ```
 */
export function clientKey(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: readonly IpRange[],
): string {
  if (peer === undefined) return LOCAL_CLIENT;
  let client = parseIpAddress(peer);
  // A socket always reports an address; keep anything else distinct but bounded.
  if (client === null) return `peer:${peer.slice(0, 64)}`;
  const isTrusted = (address: IpGroups) => trusted.some((range) => ipInRange(address, range));
  if (forwardedFor && isTrusted(client)) {
    const hops = forwardedFor.split(",").map((hop) => hop.trim());
    // Walk from the nearest hop outwards; the first untrusted one is the client. An
    // unreadable hop stops the walk at the trusted proxy that passed it on.
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseIpAddress(stripPort(hops[i]));
      if (hop === null) break;
      client = hop;
      if (!isTrusted(hop)) break;
    }
  }
  return formatKey(client);
}

/** `1.2.3.4:5678` → `1.2.3.4`, `[2001:db8::1]:443` → `2001:db8::1` (some proxies add ports). */
function stripPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1];
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return v4 ? v4[1] : hop;
}

function formatKey(address: IpGroups): string {
  if (isMappedIpv4(address)) {
    return [address[6] >>> 8, address[6] & 0xff, address[7] >>> 8, address[7] & 0xff].join(".");
  }
  return `${address.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}
