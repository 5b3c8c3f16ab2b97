import { ObservalError } from "../core/mod.ts";
import { bareHost, canonicalHost, isIpHost } from "./_host.ts";
import { clip, parseHttpUrl } from "./_http_url.ts";
import { systemResolve } from "./_resolve.ts";
import { isBlockedAddress } from "./is_blocked_address.ts";
import { isBlockedHostname } from "./is_blocked_hostname.ts";
import { nodeRequest } from "./node_request.ts";
import type { RawResponse, Requester } from "./requester.ts";

/** Options for {@linkcode safeFetch}. */
export interface SafeFetchOptions {
  /**
   * Hosts an administrator trusts (the `discovery.a2a_private_hosts` setting): exact host
   * names or IP literals, no port, compared lower-cased. They may use plain http and skip
   * the address checks; credentials, redirects, size and time limits still apply.
   */
  allowPrivateHosts: readonly string[];
  /** Resolves a host name to its addresses. @default node:dns lookup, all answers, verbatim */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Limit for the whole exchange: DNS, connect, headers and body. @default 10_000 */
  timeoutMs?: number;
  /** Largest body accepted, in bytes. @default 262_144 (256 KiB) */
  maxBytes?: number;
  /** The `Accept` header. @default "application/json" */
  accept?: string;
  /** What is fetched, for messages ("Agent Card", "signing keys"). @default "response" */
  label?: string;
  /** Cancels the fetch; it then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Performs the GET. Tests inject one; @default {@linkcode nodeRequest} */
  request?: Requester;
}

/** A fully read response. */
export interface SafeResponse {
  /** The URL fetched (fragment removed). */
  url: string;
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: Uint8Array;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 256 * 1024;

/**
 * Fetches a URL that came from outside (an Agent Card, signing keys) without letting it
 * reach internal services (SSRF).
 *
 * Unless the host is in `allowPrivateHosts`: the URL must be https; blocked host names and
 * IP literals are refused; a name is resolved exactly once and refused when the lookup
 * fails or ANY answer is a blocked address; the connection then goes to the first answer
 * with the original `Host` header and TLS server name, so a later DNS answer cannot
 * redirect it. Redirects are never followed (a 3xx is returned as is), the body is cut
 * at `maxBytes` and the whole exchange at `timeoutMs`.
 *
 * @param url The URL to GET.
 * @param options The allowlist and limits.
 * @returns The status, headers and body, whatever the status.
 * @throws {ObservalError} `UNSAFE_URL` when the URL or its addresses are refused;
 *   `NETWORK` when the lookup, connection, time limit or size limit fails.
 *
 * @example
 * ```ts ignore
 * const res = await safeFetch("https://agents.example.com/.well-known/agent-card.json", {
 *   allowPrivateHosts: [],
 * });
 * ```
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const target = parseHttpUrl(url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const label = options.label ?? "response";
  const request = options.request ?? nodeRequest;

  const controller = new AbortController();
  const timedOut = new Error(`Timed out after ${timeoutMs} ms`);
  const timer = setTimeout(() => controller.abort(timedOut), timeoutMs);
  const cancel = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) cancel();
  options.signal?.addEventListener("abort", cancel, { once: true });
  const signal = controller.signal;

  try {
    const address = await checkTarget(target, options, signal);
    const response = await raceAbort(
      request({
        url: target,
        address,
        headers: {
          accept: options.accept ?? "application/json",
          "accept-encoding": "identity",
          "user-agent": "observal",
        },
        signal,
      }),
      signal,
    );
    const body = await readBody(response, maxBytes, target, label, signal);
    return { url: target.href, status: response.status, headers: response.headers, body };
  } catch (err) {
    if (signal.aborted && signal.reason === timedOut) {
      throw new ObservalError(
        "NETWORK",
        `Fetching the ${label} from ${target.href} timed out after ${timeoutMs} ms`,
        {
          remediation: "Check that the server is reachable and answers promptly, then retry",
          resource: target.href,
        },
      );
    }
    if (signal.aborted && options.signal?.aborted) throw options.signal.reason;
    if (err instanceof ObservalError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new ObservalError(
      "NETWORK",
      `The ${label} could not be fetched from ${target.href}: ${reason}`,
      {
        remediation: "Check the URL and that the server is up and reachable, then retry",
        resource: target.href,
        cause: err,
      },
    );
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", cancel);
  }
}

/**
 * Applies the SSRF rules to `target` and returns the address to connect to, or
 * undefined for an allowlisted host (connected as usual).
 */
async function checkTarget(
  target: URL,
  options: SafeFetchOptions,
  signal: AbortSignal,
): Promise<string | undefined> {
  const host = bareHost(target.hostname);
  const allowed = options.allowPrivateHosts.some((entry) =>
    (canonicalHost(entry.trim()) ?? entry.trim().toLowerCase()) === host
  );
  if (allowed) return undefined;

  if (isBlockedHostname(host)) throw privateAddress(target, host, undefined);
  if (target.protocol !== "https:") {
    throw new ObservalError("UNSAFE_URL", `Refused plain http to ${host}: https is required`, {
      remediation: `Use ${target.href.replace(/^http:/, "https:")}, or ${allowHint(host)}`,
      resource: target.href,
    });
  }
  if (isIpHost(host)) return host;

  let addresses: string[];
  try {
    addresses = await raceAbort((options.resolve ?? systemResolve)(host), signal);
  } catch (err) {
    if (signal.aborted) throw err;
    throw unresolved(target, host, err);
  }
  if (addresses.length === 0) throw unresolved(target, host, undefined);
  const blocked = addresses.filter((address) => isBlockedAddress(address));
  // Fail closed: one private answer is enough to refuse, since any answer may be used.
  if (blocked.length > 0) throw privateAddress(target, host, blocked);
  return addresses[0];
}

function privateAddress(target: URL, host: string, blocked: string[] | undefined): ObservalError {
  const message = blocked !== undefined
    ? `Refused ${host}: it resolves to the private or reserved address ${
      blocked.slice(0, 3).map((a) => clip(a, 50)).join(", ")
    }`
    : isIpHost(host)
    ? `Refused ${host}: it is a private, loopback or reserved address`
    : `Refused ${host}: it is a local-only or cloud metadata host name`;
  return new ObservalError("UNSAFE_URL", message, {
    remediation: `Use a public https URL, or, if this host is trusted, ${allowHint(host)}`,
    resource: target.href,
  });
}

function unresolved(target: URL, host: string, cause: unknown): ObservalError {
  const reason = cause instanceof Error ? `: ${cause.message}` : " (no addresses)";
  return new ObservalError("NETWORK", `Cannot resolve the host ${host}${reason}`, {
    remediation: "Check the host name and DNS, then retry",
    resource: target.href,
    cause,
  });
}

function allowHint(host: string): string {
  return "an administrator can add it to the comma-separated discovery.a2a_private_hosts " +
    "setting, keeping any hosts already listed: " +
    `observal registry settings set discovery.a2a_private_hosts ${host}`;
}

/** Reads the body, refusing it as soon as it grows past `maxBytes`. */
async function readBody(
  response: RawResponse,
  maxBytes: number,
  target: URL,
  label: string,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const iterator = response.body[Symbol.asyncIterator]();
  let finished = false;
  try {
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(target, label, maxBytes);
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (true) {
      const step = await raceAbort(iterator.next(), signal);
      if (step.done) break;
      size += step.value.byteLength;
      if (size > maxBytes) throw tooLarge(target, label, maxBytes);
      chunks.push(step.value);
    }
    finished = true;
    const body = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return body;
  } finally {
    // Ending the iteration early closes the connection instead of draining it.
    if (!finished) iterator.return?.()?.catch(() => {});
  }
}

function tooLarge(target: URL, label: string, maxBytes: number): ObservalError {
  return new ObservalError(
    "NETWORK",
    `The ${label} from ${target.href} is larger than ${formatBytes(maxBytes)}`,
    {
      remediation: `Serve a smaller document (at most ${formatBytes(maxBytes)})`,
      resource: target.href,
    },
  );
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
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
