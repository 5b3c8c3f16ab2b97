import { ObservalError } from "../core/mod.ts";
import { bareHost, canonicalHost, isIpHost } from "./_host.ts";
import { clip } from "./_http_url.ts";
import { ipInRange, parseIpAddress, parseIpRange } from "./ip_range.ts";
import { isBlockedHostname } from "./is_blocked_hostname.ts";

/** Names of cloud metadata services: never reachable through a card, allowlisted or not. */
const METADATA_NAMES: ReadonlySet<string> = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.tencentyun.com",
  "instance-data",
  "instance-data.ec2.internal",
]);

/** Metadata addresses: IPv4 link-local (AWS, GCP, Azure, ECS), Alibaba, AWS over IPv6. */
const METADATA_RANGES = ["169.254.0.0/16", "100.100.100.200", "fd00:ec2::254"].map((text) =>
  parseIpRange(text)!
);

/**
 * True for a host that names or addresses a cloud metadata service
 * (`metadata.google.internal`, `169.254.169.254`, anything in 169.254.0.0/16,
 * `fd00:ec2::254`, ...). Such hosts hold credentials and are refused even when an
 * administrator allowlisted them.
 *
 * @param host A host name or IP literal, without port; IPv6 with or without brackets.
 * @returns Whether the host is a metadata service.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isMetadataHost } from "./mod.ts";
 * assert.equal(isMetadataHost("169.254.169.254"), true);
 * assert.equal(isMetadataHost("agents.example.com"), false);
 * ```
 */
export function isMetadataHost(host: string): boolean {
  const canonical = canonicalHost(host);
  if (canonical === null) return false;
  if (METADATA_NAMES.has(canonical)) return true;
  const address = parseIpAddress(canonical);
  return address !== null && METADATA_RANGES.some((range) => ipInRange(address, range));
}

/** Options for {@linkcode checkEndpointUrl}. */
export interface CheckEndpointUrlOptions {
  /** Hosts an administrator trusts (`discovery.a2a_private_hosts`), as for safeFetch. */
  allowPrivateHosts: readonly string[];
  /** What the URL is, for messages ("the card's JSONRPC interface"). @default "URL" */
  label?: string;
}

/**
 * Applies the Agent Card URL rules to a URL taken from a card (an interface endpoint, a
 * `jku`) before it is stored or used, without resolving DNS: it must be http(s) with a
 * host and no user info; it must not name a cloud metadata service; unless its host is
 * allowlisted it must be https and its host must not be a private, loopback or reserved
 * IP literal, nor a local-only name (`localhost`, `*.internal`, single labels).
 *
 * Names are not resolved here: whoever connects later resolves them and checks the
 * addresses it connects to.
 *
 * @param url The URL as written in the card.
 * @param options The allowlist and a label for messages.
 * @returns The parsed URL.
 * @throws {ObservalError} `UNSAFE_URL`, naming the URL (credentials removed) and why.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkEndpointUrl } from "./mod.ts";
 * checkEndpointUrl("https://agents.example.com/a2a", { allowPrivateHosts: [] });
 * assert.throws(() => checkEndpointUrl("https://10.0.0.5/a2a", { allowPrivateHosts: [] }));
 * ```
 */
export function checkEndpointUrl(url: string, options: CheckEndpointUrlOptions): URL {
  const label = options.label ?? "URL";
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw refuse(label, clip(url), "it is not a valid URL", "Ask the agent's owner to fix it");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw refuse(label, clip(url), "only http(s) URLs are accepted", publicHint());
  }
  if (parsed.hostname === "") {
    throw refuse(label, clip(url), "it has no host", publicHint());
  }
  if (parsed.username !== "" || parsed.password !== "") {
    parsed.username = "";
    parsed.password = "";
    // Named without the credentials, so they are not echoed into logs and responses.
    throw refuse(
      label,
      clip(parsed.href),
      "it carries a user name or password (removed here)",
      "Ask the agent's owner to drop the credentials from the URL; credentials go in the " +
        "card's security schemes",
    );
  }
  const shown = clip(parsed.href);
  const host = bareHost(parsed.hostname);
  if (isMetadataHost(host)) {
    throw refuse(label, shown, `${host} is a cloud metadata service`, publicHint());
  }
  const allowed = options.allowPrivateHosts.some((entry) =>
    (canonicalHost(entry.trim()) ?? entry.trim().toLowerCase()) === host
  );
  if (allowed) return parsed;
  if (isBlockedHostname(host)) {
    const why = isIpHost(host)
      ? `${host} is a private, loopback or reserved address`
      : `${host} is a local-only host name`;
    throw refuse(label, shown, why, `${publicHint()}, or ${allowHint(host)}`);
  }
  if (parsed.protocol !== "https:") {
    throw refuse(
      label,
      shown,
      `plain http is allowed only for hosts in discovery.a2a_private_hosts`,
      `Ask the agent's owner for an https URL, or ${allowHint(host)}`,
    );
  }
  return parsed;
}

function refuse(label: string, url: string, why: string, remediation: string): ObservalError {
  return new ObservalError("UNSAFE_URL", `Refused ${label} ${url}: ${why}`, {
    remediation,
    resource: url,
  });
}

function publicHint(): string {
  return "Ask the agent's owner to publish a public https URL";
}

function allowHint(host: string): string {
  return "if the host is trusted, an administrator can add it to the comma-separated " +
    `discovery.a2a_private_hosts setting (keeping the hosts already listed): ${host}`;
}
