/**
 * Whole answers of the registry's hot read routes, searching and reading one entry: the
 * request checks, the work and the body. The HTTP routes and the embedded registry's direct
 * path both call them, so these answer the same however a call arrives.
 * @module
 */
import { ObservalError } from "../core/mod.ts";
import { SearchRequestSchema } from "../registry/schemas.ts";
import { invalid } from "./_body.ts";
import type { Viewer } from "./identity.ts";
import { getVisibleEntry } from "./entries.ts";
import { searchEntries } from "./search.ts";
import { fullDocument, searchResult } from "./serialize.ts";
import { publicBaseUrl } from "./settings.ts";
import type { RegistryState } from "./state.ts";

/** The response body, and how many entries match in all pages (sent as `X-Total-Count`). */
export interface SearchAnswer {
  body: Record<string, unknown>;
  total: number;
}

/**
 * Answers one search request.
 *
 * @param state the open registry
 * @param viewer who asks: results hold only what they may see
 * @param json the request body as parsed JSON (checked here)
 * @param origin the origin the request arrived at, for result `source` links when no
 *   public URL is configured
 * @throws {ObservalError} INVALID_ARGUMENT for a malformed or empty query, or a bad page token
 */
export function answerSearch(
  state: RegistryState,
  viewer: Viewer,
  json: unknown,
  origin: string,
): SearchAnswer {
  const parsed = SearchRequestSchema.safeParse(json);
  if (!parsed.success) throw invalid(parsed.error);
  const request = parsed.data;
  if (!request.query.text.trim() && !request.query.filter) {
    throw new ObservalError("INVALID_ARGUMENT", "query.text is empty", {
      remediation: "Describe what the agent should do",
    });
  }
  const settings = state.settings();
  const out = searchEntries(state.db, viewer, {
    text: request.query.text,
    filter: request.query.filter ?? {},
    pageSize: request.pageSize ?? 10,
    pageToken: request.pageToken,
  }, { publicRegistry: settings["deployment.public_registry_enabled"] });
  const source = `${publicBaseUrl(settings, origin)}/api/v1/ard`;
  const body: Record<string, unknown> = {
    results: out.hits.map((h) => searchResult(h.row, h, { source, harness: out.harness })),
  };
  if (out.pageToken) body.pageToken = out.pageToken;
  if (request.federation === "referrals") body.referrals = [];
  return { body, total: out.total };
}

/**
 * Answers `GET /api/v1/ard/entries/{identifier}`: the entry document with the registry's
 * current verdict on it.
 *
 * @param state the open registry
 * @param viewer who asks: an entry they may not see is NOT_FOUND
 * @param identifier the entry's identifier, UUID or unique prefix, as the caller wrote it
 */
export function answerEntry(
  state: RegistryState,
  viewer: Viewer,
  identifier: string,
): Record<string, unknown> {
  const settings = state.settings();
  const row = getVisibleEntry(state.db, viewer, identifier, {
    publicRegistry: settings["deployment.public_registry_enabled"],
  });
  const doc = fullDocument(row);
  // Whether the pinned endpoint's host is allowed to be private, decided now: a worker
  // of any user (not only an admin, who may read the setting) then applies the SSRF
  // gate as the registry's admins set it, and removing a host takes effect at once.
  const iface = doc["obs:a2aInterface"] as { url?: unknown } | undefined;
  if (typeof iface?.url === "string" && URL.canParse(iface.url)) {
    const host = new URL(iface.url).hostname.toLowerCase().replace(/^\[|\]$/g, "");
    doc["obs:a2aPrivateHost"] = settings["discovery.a2a_private_hosts"].includes(host);
  }
  return doc;
}
