import { parseIPv4, parseIPv6 } from "./_ip.ts";

/**
 * An IP address as eight 16-bit groups. IPv4 is held in its IPv4-mapped IPv6 form
 * (`::ffff:a.b.c.d`), so one comparison covers a peer reported either way.
 */
export type IpGroups = readonly number[];

/** An IP network: its first address and how many leading bits an address must share. */
export interface IpRange {
  /** The network address (host bits cleared), IPv4 mapped into IPv6. */
  readonly groups: IpGroups;
  /** Leading bits that must match, counted on the IPv6 form (IPv4 `/8` is 104). */
  readonly prefix: number;
}

const PREFIX = /^(?:0|[1-9][0-9]{0,2})$/;

/**
 * Parses an IP address literal: dotted-quad IPv4 or RFC 4291 IPv6 text, optionally in
 * brackets. Zone ids, ports and numeric shorthands such as `127.1` are refused.
 *
 * @param text The address as a socket or a header reports it.
 * @returns Eight 16-bit groups (IPv4 as `::ffff:a.b.c.d`), or null when it is no address.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseIpAddress } from "./mod.ts";
 * assert.deepEqual(parseIpAddress("10.0.0.1"), parseIpAddress("::ffff:10.0.0.1"));
 * assert.equal(parseIpAddress("10.0.0.1:80"), null);
 * ```
 */
export function parseIpAddress(text: string): IpGroups | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseIPv4(bare);
  if (v4 !== null) return [0, 0, 0, 0, 0, 0xffff, v4 >>> 16, v4 & 0xffff];
  return parseIPv6(bare.toLowerCase());
}

/**
 * Parses an IP literal or a CIDR block (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`).
 * Host bits below the prefix are ignored, so `10.1.2.3/8` means `10.0.0.0/8`.
 *
 * @param text One address or block, without spaces.
 * @returns The range, or null when `text` is neither.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ipInRange, parseIpAddress, parseIpRange } from "./mod.ts";
 * const proxies = parseIpRange("10.0.0.0/8")!;
 * assert.equal(ipInRange(parseIpAddress("10.2.3.4")!, proxies), true);
 * assert.equal(ipInRange(parseIpAddress("11.2.3.4")!, proxies), false);
 * ```
 */
export function parseIpRange(text: string): IpRange | null {
  const slash = text.indexOf("/");
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const groups = parseIpAddress(addressText);
  if (groups === null) return null;
  const isV4 = parseIPv4(addressText) !== null;
  let prefix = 128;
  if (slash >= 0) {
    const prefixText = text.slice(slash + 1);
    if (!PREFIX.test(prefixText)) return null;
    const bits = Number(prefixText);
    if (bits > (isV4 ? 32 : 128)) return null;
    prefix = isV4 ? bits + 96 : bits;
  }
  return { groups: mask(groups, prefix), prefix };
}

/**
 * True when `address` lies inside `range`.
 *
 * @param address From {@linkcode parseIpAddress}.
 * @param range From {@linkcode parseIpRange}.
 * @returns Whether the first `range.prefix` bits agree.
 */
export function ipInRange(address: IpGroups, range: IpRange): boolean {
  const masked = mask(address, range.prefix);
  return masked.every((group, i) => group === range.groups[i]);
}

/** True for an address held as IPv4-mapped, i.e. one that was IPv4. */
export function isMappedIpv4(address: IpGroups): boolean {
  return address.slice(0, 5).every((g) => g === 0) && address[5] === 0xffff;
}

function mask(groups: IpGroups, prefix: number): number[] {
  return groups.map((group, i) => {
    const bits = Math.max(0, Math.min(16, prefix - i * 16));
    return bits === 0 ? 0 : group & ((0xffff << (16 - bits)) & 0xffff);
  });
}
