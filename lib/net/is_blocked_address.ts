import { parseIPv4, parseIPv6 } from "./_ip.ts";

/** IPv4 ranges that must never be fetched from: [first address, prefix length]. */
const BLOCKED_V4: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.88.99.0", 24], // deprecated 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

const V4_RANGES = BLOCKED_V4.map(([base, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (parseIPv4(base)! & mask) >>> 0, mask };
});

/**
 * True when an IP address must not be fetched from: private, loopback, link-local,
 * shared, multicast, reserved, documentation and benchmarking ranges, in IPv4 or IPv6.
 *
 * IPv6 forms that carry an IPv4 address (v4-mapped `::ffff:a.b.c.d`, IPv4-compatible
 * `::a.b.c.d`, 6to4 `2002::/16`, NAT64 `64:ff9b::/96`) are judged by that IPv4 address.
 * Outside those, only global unicast (`2000::/3`) may pass. Text that does not parse as a
 * plain address (including zone ids such as `fe80::1%eth0`) counts as blocked.
 *
 * @param ip An address as a resolver returns it; IPv6 may be wrapped in brackets.
 * @returns Whether connecting to `ip` must be refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isBlockedAddress } from "./mod.ts";
 * assert.equal(isBlockedAddress("10.1.2.3"), true);
 * assert.equal(isBlockedAddress("::ffff:7f00:1"), true);
 * assert.equal(isBlockedAddress("8.8.8.8"), false);
 * ```
 */
export function isBlockedAddress(ip: string): boolean {
  const text = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const v4 = parseIPv4(text);
  if (v4 !== null) return isBlockedV4(v4);
  const groups = parseIPv6(text);
  if (groups === null) return true;
  return isBlockedV6(groups);
}

function isBlockedV4(value: number): boolean {
  return V4_RANGES.some(({ base, mask }) => ((value & mask) >>> 0) === base);
}

function isBlockedV6(g: readonly number[]): boolean {
  const embedded = (hi: number, lo: number) => isBlockedV4(((hi << 16) | lo) >>> 0);
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);

  // ::/96 holds :: and ::1 (blocked via 0.0.0.0/8) and IPv4-compatible ::a.b.c.d.
  if (zeroUpTo(6)) return embedded(g[6], g[7]);
  // ::ffff:0:0/96, IPv4-mapped.
  if (zeroUpTo(5) && g[5] === 0xffff) return embedded(g[6], g[7]);
  // 64:ff9b::/96, well-known NAT64 prefix.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return embedded(g[6], g[7]);
  }
  // 2002::/16, 6to4: the IPv4 address sits in bits 16-47.
  if (g[0] === 0x2002) return embedded(g[1], g[2]);

  // Everything else outside global unicast 2000::/3 is blocked: the rest of ::/8
  // (incl. IPv4-translated ::ffff:0:0:0/96), 64:ff9b:1::/48 local NAT64, 100::/64
  // discard, fc00::/7 ULA, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast.
  if ((g[0] & 0xe000) !== 0x2000) return true;
  // 2001::/23 IETF protocol assignments (Teredo 2001::/32, benchmarking, ORCHID).
  if (g[0] === 0x2001 && g[1] < 0x200) return true;
  // 2001:db8::/32 and 3fff::/20, documentation.
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true;
  if (g[0] === 0x3fff && g[1] < 0x1000) return true;
  return false;
}
