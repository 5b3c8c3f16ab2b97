import { parseHttpUrl } from "./_http_url.ts";

/** Where A2A agents publish their card when the URL names only the host. */
const WELL_KNOWN_CARD_PATH = "/.well-known/agent-card.json";

/**
 * Normalises an Agent Card URL: http(s) with a host and no user info; an empty or `/`
 * path becomes `/.well-known/agent-card.json`; the query is kept, the fragment dropped,
 * the host lower-cased and a default port removed.
 *
 * This only checks the URL's shape; {@linkcode safeFetch} decides whether it may be
 * fetched.
 *
 * @param raw The URL as given by a user or a registry entry.
 * @returns The normalised URL.
 * @throws {ObservalError} `UNSAFE_URL` when the URL cannot be parsed, is not http(s),
 *   has no host or carries credentials.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeCardUrl } from "./mod.ts";
 * assert.equal(
 *   normalizeCardUrl("https://Agents.Example.com#top"),
 *   "https://agents.example.com/.well-known/agent-card.json",
 * );
 * ```
 */
export function normalizeCardUrl(raw: string): string {
  const url = parseHttpUrl(raw);
  if (url.pathname === "" || url.pathname === "/") url.pathname = WELL_KNOWN_CARD_PATH;
  return url.href;
}
