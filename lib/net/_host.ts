import { parseIPv4 } from "./_ip.ts";

/**
 * The host as a WHATWG URL would canonicalise it (lower case, punycode, IPv4 shorthand
 * such as `0x7f.1` expanded to `127.0.0.1`), without brackets or trailing dots, or null
 * when it is not a valid host on its own (ports, paths and user info are not).
 */
export function canonicalHost(host: string): string | null {
  if (host.length === 0 || /[\s/\\?#@]/.test(host)) return null;
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  let hostname: string;
  try {
    hostname = new URL(`http://${bracketed}/`).hostname;
  } catch {
    return null;
  }
  return bareHost(hostname);
}

/** A URL hostname without IPv6 brackets or trailing dots, lower-cased. */
export function bareHost(hostname: string): string {
  const inner = hostname.startsWith("[") && hostname.endsWith("]")
    ? hostname.slice(1, -1)
    : hostname;
  return inner.replace(/\.+$/, "").toLowerCase();
}

/** True for a canonical host that is an IP literal rather than a name. */
export function isIpHost(host: string): boolean {
  return host.includes(":") || parseIPv4(host) !== null;
}
