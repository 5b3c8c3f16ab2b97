import { canonicalHost, isIpHost } from "./_host.ts";
import { isBlockedAddress } from "./is_blocked_address.ts";

/** Names that reach cloud metadata services or the local machine. */
const BLOCKED_NAMES: ReadonlySet<string> = new Set([
  "localhost",
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.tencentyun.com",
  "instance-data",
  "instance-data.ec2.internal",
  "169.254.169.254",
  "169.254.170.2",
  "fd00:ec2::254",
  "100.100.100.200",
]);

/** Suffixes reserved for local or private use; no public agent lives under them. */
const BLOCKED_SUFFIXES: readonly string[] = [".localhost", ".internal", ".local", ".home.arpa"];

/**
 * True when a host must not be fetched from whatever it resolves to: cloud metadata
 * names, `localhost` and `*.localhost`, private-use suffixes (`.internal`, `.local`,
 * `.home.arpa`), single-label names (resolved through local search domains), and IP
 * literals that {@linkcode isBlockedAddress} refuses.
 *
 * The host is first canonicalised the way a WHATWG URL does it, so numeric shorthands
 * (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) are judged as the address they mean.
 * A host that cannot be canonicalised is blocked.
 *
 * @param host A host name or IP literal, without port; IPv6 with or without brackets.
 * @returns Whether the host must be refused before any DNS lookup.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isBlockedHostname } from "./mod.ts";
 * assert.equal(isBlockedHostname("metadata.google.internal"), true);
 * assert.equal(isBlockedHostname("0x7f.1"), true);
 * assert.equal(isBlockedHostname("agents.example.com"), false);
 * ```
 */
export function isBlockedHostname(host: string): boolean {
  const canonical = canonicalHost(host);
  if (canonical === null || canonical === "") return true;
  if (isIpHost(canonical)) return BLOCKED_NAMES.has(canonical) || isBlockedAddress(canonical);
  if (BLOCKED_NAMES.has(canonical)) return true;
  if (BLOCKED_SUFFIXES.some((suffix) => canonical.endsWith(suffix))) return true;
  return !canonical.includes(".");
}
