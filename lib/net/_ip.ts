/**
 * Strict parsers for textual IP addresses. They accept only the forms a resolver or a
 * WHATWG URL hands back (dotted-quad IPv4, RFC 4291 IPv6 text), so anything odd fails
 * to parse and the caller can refuse it.
 * @module
 */

const DECIMAL_OCTET = /^(?:0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/**
 * Parses `a.b.c.d` with decimal octets into an unsigned 32-bit number, or returns null.
 * Leading zeros are refused because some parsers read them as octal.
 */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!DECIMAL_OCTET.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/**
 * Parses IPv6 text (with `::` compression and an optional trailing dotted quad) into
 * eight 16-bit groups, or returns null. Zone ids (`%eth0`) are not accepted.
 */
export function parseIPv6(text: string): number[] | null {
  if (text.length === 0 || text.length > 45) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] === "" ? [] : halves[0].split(":");
  const tail = halves.length === 2 && halves[1] !== "" ? halves[1].split(":") : [];
  const compressed = halves.length === 2;

  // A dotted quad may only stand in for the last 32 bits.
  const last = compressed ? tail : head;
  if (last.length > 0 && last[last.length - 1].includes(".")) {
    const v4 = parseIPv4(last[last.length - 1]);
    if (v4 === null) return null;
    last.splice(last.length - 1, 1, (v4 >>> 16).toString(16), (v4 & 0xffff).toString(16));
  }

  const groups: number[] = [];
  for (const part of [...head, ...tail]) {
    if (!HEX_GROUP.test(part)) return null;
    groups.push(parseInt(part, 16));
  }
  if (compressed) {
    // `::` stands for at least one zero group.
    if (groups.length > 7) return null;
    const zeros = new Array<number>(8 - groups.length).fill(0);
    return [...groups.slice(0, head.length), ...zeros, ...groups.slice(head.length)];
  }
  return groups.length === 8 ? groups : null;
}

/** IPv4 number back to dotted-quad text. */
export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join(".");
}

/** True when `text` parses as an IPv4 or IPv6 address literal (no brackets, no zone). */
export function isIpLiteral(text: string): boolean {
  return parseIPv4(text) !== null || parseIPv6(text) !== null;
}
