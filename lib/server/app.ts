/**
 * The embedded registry as a Hono app: the ARD discovery API, governed A2A imports,
 * registry Agents with per-harness install, and identity administration. The same app is
 * served over HTTP (`observal registry serve`) or called in process (lib/server/embedded.ts,
 * for every call it does not answer directly).
 *
 * Routes that publish, install or import load their modules (agent files, harness
 * renderers, card fetching) on their first request, so a process that only searches, as
 * every `observal registry search` does, never loads them.
 * @module
 */
import { Hono } from "hono";
import type { Context as HonoContext } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import {
  homeFaultError,
  homeFaultKind,
  isoSeconds,
  ObservalError,
  toObservalError,
} from "../core/mod.ts";
import {
  ImportA2aRequestSchema,
  InstallRequestSchema,
  PublishAgentRequestSchema,
  ReviewRequestSchema,
} from "../registry/schemas.ts";
import { type EntryRow, loadEntry, visibleSql } from "./entries.ts";
import { ANONYMOUS, authenticate, localAdmin, type Viewer } from "./identity.ts";
import { clientKey, peerAddress, trustedProxyRanges } from "./client_address.ts";
import type { RateDecision } from "./rate_limiter.ts";
import { attemptDigest, createLimiters, type RateLimitOptions } from "./budgets.ts";
import { decodePageToken, encodePageToken, fingerprint } from "./search.ts";
import { entrySummary, fullDocument } from "./serialize.ts";
import { publicBaseUrl, publisherDomain } from "./settings.ts";
import type { RegistryState } from "./state.ts";
import { MAX_BODY_BYTES, parseBody, readJsonBody, tooLargeBody } from "./_body.ts";
import { answerEntry, answerSearch } from "./answers.ts";
import { adminRoutes } from "./admin_routes.ts";
import { agentRoutes } from "./agent_routes.ts";

export type { RateLimitOptions };

/** Options for {@linkcode createRegistryApp}. */
export interface RegistryAppOptions {
  /** Treat unauthenticated calls as the local admin (in-process use only). @default false */
  localAdmin?: boolean;
  /**
   * Per-caller request budgets per minute, keyed on the signed-in user, else on the client
   * address (the socket's peer, or the client a trusted proxy forwards for; `local` in
   * process). Budgets live in the registry database, so every process serving it shares
   * them. `false` turns every budget off, failed sign-ins included. @default true
   */
  rateLimit?: boolean | RateLimitOptions;
}

type Env = { Variables: { viewer: Viewer; client: string } };

/** A module imported on first use, once. */
function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

const agentsModule = onFirstUse(() => import("./agents.ts"));
const importsModule = onFirstUse(() => import("./imports.ts"));

/** Builds the registry app over an open database. */
export function createRegistryApp(
  state: RegistryState,
  options: RegistryAppOptions = {},
): Hono<Env> {
  const app = new Hono<Env>();
  const limiters = createLimiters(state.db, state.clock, options.rateLimit);

  const spend = (c: HonoContext<Env>, bucket: "search" | "import") => {
    const limiter = limiters?.[bucket];
    if (!limiter) return;
    const viewer = c.get("viewer");
    const key = viewer.anonymous ? `client:${c.get("client")}` : `user:${viewer.userId}`;
    const decision = limiter.take(key);
    if (!decision.allowed) {
      throw tooMany(c, decision.retryAfterMs, "Too many requests; slow down", {
        remediation: `At most ${limiter.limit} ${bucket} requests a minute are accepted`,
      });
    }
  };

  app.onError((err, c) => {
    const e = storageFault(err, state, options.localAdmin) ?? toObservalError(err);
    return c.json(e.toJSON(), e.httpStatus as 400);
  });
  app.notFound((c) =>
    c.json({ errorCode: "NOT_FOUND", message: `No route for ${c.req.method} ${c.req.path}` }, 404)
  );

  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => {
        // A declared length is the body's size; a chunked body's is unknown (cut at the limit).
        const declared = Number(c.req.header("content-length"));
        throw tooLargeBody(Number.isSafeInteger(declared) && declared > 0 ? declared : undefined);
      },
    }),
  );

  // Identify the caller once; a bad key is refused even on routes that allow anonymity.
  app.use("*", async (c, next) => {
    const peer = peerAddress(c.env);
    const forwarded = c.req.header("x-forwarded-for");
    const proxies = peer && forwarded
      ? trustedProxyRanges(state.settings()["deployment.trusted_proxies"])
      : [];
    const client = clientKey(peer, forwarded, proxies);
    c.set("client", client);
    const auth = c.req.header("authorization");
    let viewer: Viewer = ANONYMOUS;
    if (auth) {
      // A failing key spends its own budget (by hash), so a client stuck on a bad key
      // locks out only that key; refused attempts spend nothing more. Guessing with many
      // keys spends the address's looser budget, and once that is spent even a right key
      // is refused until the window ends, so the answer leaks nothing.
      const keyId = limiters ? `key:${attemptDigest(auth)}` : "";
      const refuse = (decision: RateDecision | undefined, message: string) => {
        if (!decision || decision.allowed) return;
        throw tooMany(c, decision.retryAfterMs, message, {
          remediation: `Wait ${
            Math.ceil(decision.retryAfterMs / 1000)
          } s, then retry with a valid API key`,
        });
      };
      refuse(
        limiters?.authFailuresPerAddress.check(client),
        "Too many failed sign-ins from your address",
      );
      refuse(limiters?.authFailures.check(keyId), "Too many failed sign-ins with this API key");
      try {
        const m = /^Bearer\s+(\S+)$/i.exec(auth);
        if (!m) {
          throw new ObservalError(
            "UNAUTHENTICATED",
            "The Authorization header must be `Bearer <key>`",
          );
        }
        viewer = authenticate(state.db, m[1]);
      } catch (err) {
        limiters?.authFailures.take(keyId);
        limiters?.authFailuresPerAddress.take(client);
        throw err;
      }
    } else if (options.localAdmin) {
      viewer = localAdmin(state.db, isoSeconds(state.clock.now()));
    }
    c.set("viewer", viewer);
    await next();
  });

  const baseUrl = (c: HonoContext) => publicBaseUrl(state.settings(), new URL(c.req.url).origin);
  const publicRegistry = () => state.settings()["deployment.public_registry_enabled"];

  // ---- ARD discovery -------------------------------------------------------------------
  const manifest = (c: HonoContext) => {
    const base = baseUrl(c);
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
  app.get("/.well-known/ard.json", manifest);
  app.get("/.well-known/ai-catalog.json", manifest);

  app.post("/api/v1/ard/search", async (c) => {
    spend(c, "search");
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

  app.get("/api/v1/ard/agents", (c) => {
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

  app.get("/api/v1/ard/entries/:identifier", (c) => {
    const doc = answerEntry(state, c.get("viewer"), c.req.param("identifier"));
    c.header("Cache-Control", "no-store");
    return c.json(doc);
  });

  app.post("/api/v1/ard/explore", () => {
    throw new ObservalError("NOT_IMPLEMENTED", "This registry does not offer explore facets", {
      remediation: "Use POST /api/v1/ard/search with filters instead",
    });
  });

  // ---- A2A imports ---------------------------------------------------------------------
  app.get("/api/v1/ard/imports", async (c) => {
    const { listImports } = await importsModule();
    c.header("Cache-Control", "no-store");
    return c.json(listImports(state, c.get("viewer")));
  });

  app.post("/api/v1/ard/imports/a2a", async (c) => {
    const viewer = c.get("viewer");
    spend(c, "import");
    const body = await parseBody(c, ImportA2aRequestSchema);
    const { importCard } = await importsModule();
    const out = await importCard(state, viewer, body);
    c.header("Cache-Control", "no-store");
    return c.json(out.document, out.created ? 201 : 200);
  });

  app.post("/api/v1/ard/imports/:identifier/review", async (c) => {
    const body = await parseBody(c, ReviewRequestSchema);
    return c.json(await review(c.get("viewer"), c.req.param("identifier"), body));
  });

  app.delete("/api/v1/ard/imports/:identifier", async (c) => {
    const { removeImport } = await importsModule();
    return c.json(removeImport(state, c.get("viewer"), c.req.param("identifier")));
  });

  const review = async (
    viewer: Viewer,
    identifier: string,
    body: z.infer<typeof ReviewRequestSchema>,
  ) => {
    const [{ reviewEntry }, { syncAgentVersion }] = await Promise.all([
      importsModule(),
      agentsModule(),
    ]);
    const doc = reviewEntry(state, viewer, identifier, body);
    const row = loadEntry(state.db, identifier);
    if (row) syncAgentVersion(state, row);
    return doc;
  };

  // ---- Registry Agents -----------------------------------------------------------------
  app.post("/api/v1/agents", async (c) => {
    const body = await parseBody(c, PublishAgentRequestSchema);
    const { publishAgent } = await agentsModule();
    const out = publishAgent(state, c.get("viewer"), body, baseUrl(c));
    return c.json(out.document, out.created ? 201 : 200);
  });

  app.get("/api/v1/agents/:id", async (c) => {
    const { agentDetail } = await agentsModule();
    return c.json(agentDetail(state, c.get("viewer"), decodeURIComponent(c.req.param("id"))));
  });

  app.post("/api/v1/agents/:id/review", async (c) => {
    const body = await parseBody(c, ReviewRequestSchema);
    const viewer = c.get("viewer");
    const { agentDetail } = await agentsModule();
    const detail = agentDetail(state, viewer, decodeURIComponent(c.req.param("id")));
    return c.json(await review(viewer, detail.identifier, body));
  });

  app.post("/api/v1/agents/:id/install", async (c) => {
    const body = await parseBody(c, InstallRequestSchema);
    const { installAgent } = await agentsModule();
    return c.json(
      installAgent(state, c.get("viewer"), decodeURIComponent(c.req.param("id")), body),
    );
  });

  app.get("/api/v1/me", (c) => {
    const viewer = c.get("viewer");
    if (viewer.anonymous) {
      throw new ObservalError("UNAUTHENTICATED", "Not signed in", {
        remediation: "Send an API key as `Authorization: Bearer <key>`",
      });
    }
    const teams = state.db.prepare(
      `SELECT t.id, t.handle, m.role FROM team_members m JOIN teams t ON t.id = m.team_id
       WHERE m.user_id = ? ORDER BY t.handle`,
    ).all(viewer.userId);
    return c.json({ id: viewer.userId, handle: viewer.handle, role: viewer.role, teams });
  });

  app.route("/api/v1/agents", agentRoutes(state));
  app.route("/api/v1/admin", adminRoutes(state));

  return app;
}

/** A 429 with `Retry-After`, so well-behaved clients know when to come back. */
function tooMany(
  c: HonoContext,
  retryAfterMs: number,
  message: string,
  options: { remediation: string },
): ObservalError {
  c.header("Retry-After", String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return new ObservalError("RESOURCE_EXHAUSTED", message, options);
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

/**
 * A write the registry's storage refused (read-only, full, not writable). The local admin
 * is told which folder, as every command tells it; a remote caller is not shown our paths.
 */
function storageFault(
  err: unknown,
  state: RegistryState,
  local = false,
): ObservalError | undefined {
  if (!state.home || (err instanceof ObservalError && err.code !== "INTERNAL")) return undefined;
  const kind = homeFaultKind(err, state.home);
  if (!kind) return undefined;
  if (local) return homeFaultError(kind, state.home, err);
  return new ObservalError(
    "UNAVAILABLE",
    "The registry cannot save changes: its storage is " +
      (kind === "full" ? "full" : "not writable"),
    {
      remediation: "Try again later; the registry's operator must free or fix its storage",
    },
  );
}
