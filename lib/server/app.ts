/**
 * The embedded registry as a Hono app: the ARD discovery API, governed A2A imports,
 * registry Agents with per-harness install, and identity administration, each route group
 * in its own module. The same app is served over HTTP (`observal registry serve`, which
 * also serves the reviewers' page at `/`, lib/server/review_page/) or called in process
 * (lib/server/embedded.ts, for every call it does not answer directly).
 *
 * Routes that publish, install or import load their modules (agent files, harness
 * renderers, card fetching) on their first request, so a process that only searches, as
 * every `observal registry search` does, never loads them.
 * @module
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { homeFaultError, homeFaultKind, ObservalError, toObservalError } from "../core/mod.ts";
import { createLimiters, type RateLimitOptions } from "./budgets.ts";
import { describeMe, identifyCaller } from "./identify.ts";
import type { RegistryEnv } from "./registry_env.ts";
import type { RegistryState } from "./state.ts";
import { MAX_BODY_BYTES, tooLargeBody } from "./_body.ts";
import { adminRoutes } from "./admin_routes.ts";
import { agentRoutes } from "./agent_routes.ts";
import { ardRoutes, manifestRoutes } from "./ard_routes.ts";
import { importRoutes } from "./import_routes.ts";
import { reviewPageRoutes } from "./review_page/routes.ts";

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

/** Builds the registry app over an open database. */
export function createRegistryApp(
  state: RegistryState,
  options: RegistryAppOptions = {},
): Hono<RegistryEnv> {
  const app = new Hono<RegistryEnv>();
  const limiters = createLimiters(state.db, state.clock, options.rateLimit);

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
  app.use("*", identifyCaller(state, limiters, options));

  app.route("/", manifestRoutes(state));
  app.route("/api/v1/ard", ardRoutes(state, limiters));
  app.route("/api/v1/ard/imports", importRoutes(state, limiters));
  app.route("/api/v1/agents", agentRoutes(state));
  app.get("/api/v1/me", (c) => describeMe(c, state));
  app.route("/api/v1/admin", adminRoutes(state));
  // The reviewers' web page, over HTTP only: in process there is no one to show it to.
  if (!options.localAdmin) app.route("/", reviewPageRoutes(state, limiters));
  return app;
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
