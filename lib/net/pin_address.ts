import { ObservalError } from "../core/mod.ts";
import { bareHost, canonicalHost, isIpHost } from "./_host.ts";
import { clip } from "./_http_url.ts";
import { systemResolve } from "./_resolve.ts";
import { isMetadataHost } from "./check_endpoint_url.ts";
import { isBlockedAddress } from "./is_blocked_address.ts";
import { isBlockedHostname } from "./is_blocked_hostname.ts";

/** Resolves a host name to every address it has. */
export type Resolve = (hostname: string) => Promise<string[]>;

/** Options for {@linkcode pinAddress}. */
export interface PinAddressOptions {
  /**
   * Hosts an administrator trusts (the `discovery.a2a_private_hosts` setting): exact host
   * names or IP literals, no port, compared lower-cased. They may use plain http and are
   * connected as usual, without the address checks.
   */
  allowPrivateHosts: readonly string[];
  /** Resolves a host name. @default node:dns lookup, all answers, verbatim */
  resolve?: Resolve;
  /** Abandons a lookup that takes too long; the promise then rejects with its reason. */
  signal?: AbortSignal;
}

/**
 * The SSRF gate for a URL about to be connected to: decides the one address to connect
 * to, so that what was checked is what gets called (DNS rebinding cannot move it).
 *
 * Cloud metadata hosts are refused outright. A host in `allowPrivateHosts` is trusted and
 * gets `undefined` (connect as usual). Anything else must be https, must not be a blocked
 * name (`localhost`, `*.internal`, single labels) or a private, loopback or reserved IP
 * literal, and a name is resolved once: it is refused when the lookup fails, answers
 * nothing, or ANY answer is a blocked address; otherwise the first answer is returned.
 *
 * @param url The URL to connect to.
 * @param options The allowlist, the resolver and a signal.
 * @returns The checked address to connect to, or `undefined` for an allowlisted host.
 * @throws {ObservalError} `UNSAFE_URL` when the host or an address is refused; `NETWORK`
 *   when the name does not resolve.
 *
 * @example
 * ```ts ignore
 * const address = await pinAddress(new URL("https://agents.example.com/a2a"), {
 *   allowPrivateHosts: [],
 * });
 * await nodeRequest({ url, address, headers: {}, signal });
 * ```
 */
export async function pinAddress(
  url: URL,
  options: PinAddressOptions,
): Promise<string | undefined> {
  const host = bareHost(url.hostname);
  const allowed = options.allowPrivateHosts.some((entry) =>
    (canonicalHost(entry.trim()) ?? entry.trim().toLowerCase()) === host
  );
  if (allowed) {
    // Metadata services hold credentials: no allowlist entry can make them callable.
    if (isMetadataHost(host)) {
      throw new ObservalError("UNSAFE_URL", `Refused ${host}: it is a cloud metadata service`, {
        remediation: "Use a public https URL; metadata services are never called, even when " +
          "listed in discovery.a2a_private_hosts",
        resource: url.href,
      });
    }
    return undefined;
  }

  if (isBlockedHostname(host)) throw privateAddress(url, host, undefined);
  if (url.protocol !== "https:") {
    throw new ObservalError("UNSAFE_URL", `Refused plain http to ${host}: https is required`, {
      remediation: `Use ${url.href.replace(/^http:/, "https:")}, or ${allowHint(host)}`,
      resource: url.href,
    });
  }
  if (isIpHost(host)) return host;

  let addresses: string[];
  try {
    addresses = await raceAbort((options.resolve ?? systemResolve)(host), options.signal);
  } catch (err) {
    if (options.signal?.aborted) throw err;
    throw unresolved(url, host, err);
  }
  if (addresses.length === 0) throw unresolved(url, host, undefined);
  const blocked = addresses.filter((address) => isBlockedAddress(address));
  // Fail closed: one private answer is enough to refuse, since any answer may be used.
  if (blocked.length > 0) throw privateAddress(url, host, blocked);
  return addresses[0];
}

function privateAddress(url: URL, host: string, blocked: string[] | undefined): ObservalError {
  const message = blocked !== undefined
    ? `Refused ${host}: it resolves to the private or reserved address ${
      blocked.slice(0, 3).map((a) => clip(a, 50)).join(", ")
    }`
    : isIpHost(host)
    ? `Refused ${host}: it is a private, loopback or reserved address`
    : `Refused ${host}: it is a local-only or cloud metadata host name`;
  return new ObservalError("UNSAFE_URL", message, {
    remediation: `Use a public https URL, or, if this host is trusted, ${allowHint(host)}`,
    resource: url.href,
  });
}

function unresolved(url: URL, host: string, cause: unknown): ObservalError {
  const reason = cause instanceof Error ? `: ${cause.message}` : " (no addresses)";
  return new ObservalError("NETWORK", `Cannot resolve the host ${host}${reason}`, {
    remediation: "Check the host name and DNS, then retry",
    resource: url.href,
    cause,
  });
}

function allowHint(host: string): string {
  return "an administrator can add it to the comma-separated discovery.a2a_private_hosts " +
    "setting, keeping any hosts already listed: " +
    `observal registry settings set discovery.a2a_private_hosts ${host}`;
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
