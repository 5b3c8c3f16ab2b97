/**
 * ARD discovery: the well-known manifest, search, the approved-entries list and one
 * entry, as the ARD spec names them.
 * @module
 */
import { Hono } from "hono";
import type { Context as HonoContext } from "hono";
import { ObservalError } from "../core/mod.ts";
import { answerEntry, answerSearch } from "./answers.ts";
import type { Limiters } from "./budgets.ts";
import { type EntryRow, visibleSql } from "./entries.ts";
import { spendBudget } from "./identify.ts";
import type { RegistryEnv } from "./registry_env.ts";
import { decodePageToken, encodePageToken, fingerprint } from "./search.ts";
import { entrySummary, fullDocument } from "./serialize.ts";
import { publicBaseUrl, publisherDomain } from "./settings.ts";
import type { RegistryState } from "./state.ts";
import { readJsonBody } from "./_body.ts";

/** The registry's public base URL as seen by this request. */
export function baseUrl(state: RegistryState, c: HonoContext): string {
  return publicBaseUrl(state.settings(), new URL(c.req.url).origin);
}

/** `/.well-known/ard.json` and `/.well-known/ai-catalog.json`; mount at `/`. */
export function manifestRoutes(state: RegistryState): Hono<RegistryEnv> {
  const routes = new Hono<RegistryEnv>();
  const manifest = (c: HonoContext) => {
    const base = baseUrl(state, c);
    const settings = state.settings();
    const domain = publisherDomain(settings);
    const registry = {
      identifier: `urn:air:${domain}:registry:observal`,
      displayName: "Observal Registry",
      type: "application/ai-registry+json",
      url: `${base}/api/v1/ard`,
      description: "Approved agents that coding agents can delegate work to",
      trustManifest: { identity: `https://${domain}`, identityType: "https" },
    };
    const entries: Record<string, unknown>[] = [registry];
    if (settings["deployment.public_registry_enabled"]) {
      // The manifest describes this publisher's own resources: imported cards never appear.
      const rows = state.db.prepare(
        `SELECT * FROM entries WHERE source_kind = 'native' AND tombstoned = 0
         AND visibility = 'public' AND lifecycle = 'approved'
         ORDER BY display_name, identifier LIMIT 5000`,
      ).all() as unknown as EntryRow[];
      for (const row of rows) {
        const doc = fullDocument(row);
        delete doc["@context"];
        entries.push(doc);
      }
    }
    c.header("Cache-Control", "public, max-age=300");
    return c.json({
      specVersion: "1.0",
      host: { displayName: "Observal Registry", identifier: registry.identifier },
      entries,
    });
  };
  routes.get("/.well-known/ard.json", manifest);
  routes.get("/.well-known/ai-catalog.json", manifest);
  return routes;
}

/** Search, list, entry and explore; mount at `/api/v1/ard` after the caller is identified. */
export function ardRoutes(state: RegistryState, limiters: Limiters | undefined): Hono<RegistryEnv> {
  const ard = new Hono<RegistryEnv>();
  const publicRegistry = () => state.settings()["deployment.public_registry_enabled"];

  ard.post("/search", async (c) => {
    spendBudget(c, limiters, "search");
    const answer = answerSearch(
      state,
      c.get("viewer"),
      await readJsonBody(c),
      new URL(c.req.url).origin,
    );
    c.header("Cache-Control", "no-store");
    // The ARD answer has no field for a count (the schema allows no extra fields).
    c.header("X-Total-Count", String(answer.total));
    return c.json(answer.body);
  });

  ard.get("/agents", (c) => {
    const viewer = c.get("viewer");
    const q = c.req.query();
    for (const key of Object.keys(q)) {
      if (!["filter", "orderBy", "pageSize", "pageToken"].includes(key)) {
        throw new ObservalError("INVALID_ARGUMENT", `Unknown query parameter "${key}"`);
      }
    }
    const pageSize = q.pageSize === undefined ? 20 : Number(q.pageSize);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
      throw new ObservalError("INVALID_ARGUMENT", "pageSize must be a whole number from 1 to 100");
    }
    const orders: Record<string, string> = {
      displayName: "e.display_name, e.identifier",
      "displayName DESC": "e.display_name DESC, e.identifier DESC",
      updatedAt: "e.updated_at, e.identifier",
      "updatedAt DESC": "e.updated_at DESC, e.identifier DESC",
    };
    const orderBy = orders[q.orderBy ?? "displayName"];
    if (!orderBy) {
      throw new ObservalError("INVALID_ARGUMENT", `Unsupported orderBy "${q.orderBy}"`, {
        remediation: `Use one of: ${Object.keys(orders).join(", ")}`,
      });
    }
    const typeFilter = parseListFilter(q.filter);
    const fpHash = fingerprint(["list", viewer.userId, q.filter ?? "", q.orderBy ?? "", pageSize]);
    const offset = q.pageToken ? decodePageToken(q.pageToken, fpHash) : 0;
    const vis = visibleSql(viewer, { publicRegistry: publicRegistry() });
    const where = `${vis.sql} AND e.lifecycle = 'approved'${
      typeFilter ? " AND e.type = :type" : ""
    }`;
    const params = { ...vis.params, ...(typeFilter ? { type: typeFilter } : {}) };
    const total = (state.db.prepare(`SELECT COUNT(*) AS n FROM entries e WHERE ${where}`).get(
      params,
    ) as { n: number }).n;
    const rows = state.db.prepare(
      `SELECT e.* FROM entries e WHERE ${where} ORDER BY ${orderBy} LIMIT :limit OFFSET :offset`,
    ).all({ ...params, limit: pageSize, offset }) as unknown as EntryRow[];
    const response: Record<string, unknown> = {
      items: rows.map((r) => entrySummary(r)),
      total,
    };
    if (offset + rows.length < total) {
      response.pageToken = encodePageToken(offset + pageSize, fpHash);
    }
    c.header("Cache-Control", "no-store");
    return c.json(response);
  });

  ard.get("/entries/:identifier", (c) => {
    const doc = answerEntry(state, c.get("viewer"), c.req.param("identifier"));
    c.header("Cache-Control", "no-store");
    return c.json(doc);
  });

  ard.post("/explore", () => {
    throw new ObservalError("NOT_IMPLEMENTED", "This registry does not offer explore facets", {
      remediation: "Use POST /api/v1/ard/search with filters instead",
    });
  });
  return ard;
}

/** `filter` on the list route: only `type = '<media type>'` is understood. */
function parseListFilter(filter: string | undefined): string | undefined {
  if (filter === undefined || filter.trim() === "") return undefined;
  const m = /^\s*type\s*=\s*'([^']{1,200})'\s*$/.exec(filter);
  if (!m) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `Unsupported filter expression: ${filter.slice(0, 100)}`,
      {
        remediation: "Use type = '<media type>', or POST /api/v1/ard/search for richer filters",
      },
    );
  }
  return m[1];
}
