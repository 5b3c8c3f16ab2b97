/**
 * The answer to `POST /api/v1/ard/search`, whole: request checks, the search, and the ARD
 * results. The HTTP route and the embedded registry's direct path both call it, so a search
 * answers the same however it arrives.
 * @module
 */
import { ObservalError } from "../core/mod.ts";
import { SearchRequestSchema } from "../registry/schemas.ts";
import { invalid } from "./_body.ts";
import type { Viewer } from "./identity.ts";
import { searchEntries } from "./search.ts";
import { searchResult } from "./serialize.ts";
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
