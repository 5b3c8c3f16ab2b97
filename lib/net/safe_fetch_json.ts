import { ObservalError } from "../core/mod.ts";
import { clip } from "./_http_url.ts";
import { safeFetch, type SafeFetchOptions } from "./safe_fetch.ts";

/** A JSON document fetched by {@linkcode safeFetchJson}. */
export interface SafeJson {
  /** The URL fetched (fragment removed). */
  url: string;
  /** The parsed document, still to be validated by the caller. */
  json: unknown;
  /** The exact bytes received, e.g. for a digest. */
  bytes: Uint8Array;
}

/**
 * {@linkcode safeFetch} for a JSON document: the status must be 200 (a redirect is
 * refused, not followed) and the body valid UTF-8 JSON.
 *
 * @param url The URL to GET.
 * @param options As for {@linkcode safeFetch}.
 * @returns The URL, the parsed JSON and the raw bytes.
 * @throws {ObservalError} As {@linkcode safeFetch}; also `NETWORK` for a status other
 *   than 200 or a body that is not UTF-8 JSON.
 *
 * @example
 * ```ts ignore
 * const { json } = await safeFetchJson("https://agents.example.com", {
 *   allowPrivateHosts: [],
 *   label: "Agent Card",
 * });
 * ```
 */
export async function safeFetchJson(url: string, options: SafeFetchOptions): Promise<SafeJson> {
  const label = options.label ?? "response";
  const response = await safeFetch(url, options);
  if (response.status !== 200) {
    const location = response.headers["location"];
    const redirect = response.status >= 300 && response.status < 400 && location !== undefined;
    throw new ObservalError(
      "NETWORK",
      `Fetching the ${label} from ${response.url} returned HTTP ${response.status}`,
      {
        remediation: redirect
          ? `Redirects are not followed; use the final URL instead (the server points to ${
            clip(location)
          })`
          : "Check the URL and that the server serves the document there, then retry",
        resource: response.url,
      },
    );
  }
  return parseJsonBody(response, (reason, cause) => notJson(label, response.url, reason, cause));
}

/**
 * A 200 answer's body as JSON: UTF-8 (strict) and parseable, or the error `refuse` makes
 * from the reason.
 */
export function parseJsonBody(
  response: { url: string; body: Uint8Array },
  refuse: (reason: string, cause: unknown) => ObservalError,
): SafeJson {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(response.body);
  } catch (err) {
    throw refuse("it is not valid UTF-8", err);
  }
  try {
    return { url: response.url, json: JSON.parse(text), bytes: response.body };
  } catch (err) {
    throw refuse((err as Error).message, err);
  }
}

function notJson(label: string, url: string, reason: string, cause: unknown): ObservalError {
  return new ObservalError("NETWORK", `The ${label} from ${url} is not valid JSON: ${reason}`, {
    remediation: "Check that the URL serves a JSON document encoded as UTF-8",
    resource: url,
    cause,
  });
}
