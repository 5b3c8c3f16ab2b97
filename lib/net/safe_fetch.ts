import { startTimer } from "../core/system/mod.ts";
import { concatBytes, errorMessage, ObservalError } from "../core/mod.ts";
import { parseHttpUrl } from "./_http_url.ts";
import { hostRequest } from "./host_request.ts";
import { pinAddress, raceAbort } from "./pin_address.ts";
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
  /** Performs the GET. Tests inject one; @default {@linkcode hostRequest} */
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
  const request = options.request ?? hostRequest;

  const controller = new AbortController();
  const timedOut = new Error(`Timed out after ${timeoutMs} ms`);
  const stopTimer = startTimer(timeoutMs, () => controller.abort(timedOut));
  const cancel = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) cancel();
  options.signal?.addEventListener("abort", cancel, { once: true });
  const signal = controller.signal;

  try {
    const address = await pinAddress(target, { ...options, signal });
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
    const reason = errorMessage(err);
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
    stopTimer();
    options.signal?.removeEventListener("abort", cancel);
  }
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
    return concatBytes(chunks, size);
  } finally {
    // Ending early closes the connection instead of draining it.
    if (!finished) {
      if (response.abort) response.abort();
      else iterator.return?.()?.catch(() => {});
    }
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
