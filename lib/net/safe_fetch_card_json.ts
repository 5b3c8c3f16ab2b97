import { ObservalError } from "../core/mod.ts";
import { clip } from "./_http_url.ts";
import { hostRequest } from "./host_request.ts";
import type { RawResponse, Requester } from "./requester.ts";
import { safeFetch, type SafeFetchOptions } from "./safe_fetch.ts";
import { parseJsonBody, type SafeJson } from "./safe_fetch_json.ts";

const DEFAULT_MAX_BYTES = 256 * 1024;

/**
 * {@linkcode safeFetchJson} for an Agent Card, telling apart whose fault a failure is.
 *
 * An answer that cannot be a card is the card's fault and is refused as
 * `INVALID_AGENT_CARD` (422 on the registry): a redirect (never followed), another 4xx or
 * 3xx status, a body over `maxBytes` (declared or streamed), a body that is not UTF-8
 * JSON. Failing to reach the host (DNS, connection, time limit, a 5xx answer) stays
 * `NETWORK`, and URLs the SSRF rules refuse stay `UNSAFE_URL`, exactly as safeFetch says.
 *
 * @param url The normalised card URL.
 * @param options As for {@linkcode safeFetch}; `label` defaults to "Agent Card".
 * @returns The URL, the parsed JSON (still to be validated as a card) and the raw bytes.
 * @throws {ObservalError} `INVALID_AGENT_CARD`, `NETWORK` or `UNSAFE_URL` as above.
 *
 * @example
 * ```ts ignore
 * const { json } = await safeFetchCardJson("https://agents.example.com/.well-known/agent-card.json", {
 *   allowPrivateHosts: [],
 * });
 * ```
 */
export async function safeFetchCardJson(
  url: string,
  options: SafeFetchOptions,
): Promise<SafeJson> {
  const label = options.label ?? "Agent Card";
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const response = await safeFetch(url, {
    ...options,
    label,
    maxBytes,
    request: capped(options.request ?? hostRequest, maxBytes, label),
  });
  const status = response.status;
  if (status !== 200) {
    if (status >= 500 || status < 300) {
      throw new ObservalError(
        "NETWORK",
        `Fetching the ${label} from ${response.url} returned HTTP ${status}`,
        {
          remediation: "The card's host failed to answer; retry later or ask its owner",
          resource: response.url,
        },
      );
    }
    const location = response.headers["location"];
    if (status < 400 && location !== undefined) {
      const target = URL.canParse(location, response.url)
        ? new URL(location, response.url).href
        : location;
      throw new ObservalError(
        "INVALID_AGENT_CARD",
        `The ${label} URL ${response.url} redirects (HTTP ${status}); redirects are not followed`,
        {
          remediation: `Import the URL the card is really served at (the redirect points to ${
            clip(target)
          })`,
          resource: response.url,
        },
      );
    }
    throw new ObservalError(
      "INVALID_AGENT_CARD",
      `Fetching the ${label} from ${response.url} returned HTTP ${status}`,
      {
        remediation: "Check the URL; a card is usually served at /.well-known/agent-card.json",
        resource: response.url,
      },
    );
  }
  return parseJsonBody(response, (reason, cause) => notJson(label, response.url, reason, cause));
}

/**
 * Wraps a requester so an oversize body fails as the card's fault before safeFetch's
 * own cap (which reports NETWORK) sees it: safeFetch passes our errors through as thrown.
 */
function capped(inner: Requester, maxBytes: number, label: string): Requester {
  return async (request) => {
    const response = await inner(request);
    const tooLarge = () =>
      new ObservalError(
        "INVALID_AGENT_CARD",
        `The ${label} at ${request.url.href} is larger than ${formatBytes(maxBytes)}`,
        {
          remediation: `Ask the agent's owner to serve a card of at most ${formatBytes(maxBytes)}`,
          resource: request.url.href,
        },
      );
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > maxBytes) {
      // Close the connection rather than drain a body we refuse.
      if (response.abort) response.abort();
      else response.body[Symbol.asyncIterator]().return?.()?.catch(() => {});
      throw tooLarge();
    }
    return { ...response, body: countBytes(response.body, maxBytes, tooLarge) };
  };
}

async function* countBytes(
  body: RawResponse["body"],
  maxBytes: number,
  tooLarge: () => ObservalError,
): AsyncGenerator<Uint8Array> {
  let size = 0;
  // Throwing inside for-await returns the inner iterator, which closes the connection.
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    yield chunk;
  }
}

function formatBytes(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

function notJson(label: string, url: string, reason: string, cause: unknown): ObservalError {
  return new ObservalError(
    "INVALID_AGENT_CARD",
    `The ${label} from ${url} is not valid JSON: ${reason}`,
    {
      remediation: "Check that the URL serves the card as a JSON document encoded as UTF-8",
      resource: url,
      cause,
    },
  );
}
