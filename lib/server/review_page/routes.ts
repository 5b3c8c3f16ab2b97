/**
 * The review page, served by `observal registry serve` at `/`: reviewers sign in with
 * their API key, see what waits for them, look at each entry whole and approve or reject
 * it through the same review path the API takes. Plain HTML forms, no script; a strict
 * Content-Security-Policy lets in only the page's own stylesheet.
 *
 * Routes: `GET /` (sign-in or the queue), `POST /review/sign-in`, `POST /review/sign-out`,
 * `GET /review/entries/{identifier}` (one entry), `POST /review/entries/{identifier}`
 * (approve or reject).
 * @module
 */
import { Hono } from "hono";
import type { Context as HonoContext } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { nodeCrypto, ObservalError, toObservalError } from "../../core/mod.ts";
import { ReviewRequestSchema } from "../../registry/schemas.ts";
import type { Limiters } from "../budgets.ts";
import {
  type EntryRow,
  getVisibleEntry,
  hasReviewScope,
  mayReview,
  visibleSql,
} from "../entries.ts";
import { signIn } from "../identify.ts";
import { agentsModule, type RegistryEnv } from "../registry_env.ts";
import { reviewAndSync } from "../review_entry.ts";
import type { RegistryState } from "../state.ts";
import { type Html, layout } from "./html.ts";
import {
  csrfMatches,
  endSession,
  loadSession,
  openSession,
  type Session,
  SESSION_COOKIE,
  SESSION_MS,
} from "./session.ts";
import { entryView, messageView, queueView, signedInHeader, signInView } from "./views.ts";

type Ctx = HonoContext<RegistryEnv>;

/** Most entries a list on the page shows. */
const LIST_LIMIT = 500;

/** The page's routes; mount at `/` after the caller is identified. */
export function reviewPageRoutes(
  state: RegistryState,
  limiters: Limiters | undefined,
): Hono<RegistryEnv> {
  const page = new Hono<RegistryEnv>();

  const send = (
    c: Ctx,
    status: number,
    title: string,
    body: Html,
    session?: Session,
  ) => {
    const nonce = nodeCrypto().randomBytes(16).toString("base64");
    securityHeaders(c, nonce);
    const header = session ? signedInHeader(session.viewer, session.csrf) : undefined;
    return c.html(layout({ title, nonce, body, header }), status as 200);
  };
  const redirect = (c: Ctx, to: string) => {
    securityHeaders(c);
    return c.redirect(to, 303);
  };
  const session = (c: Ctx) => loadSession(state, getCookie(c, SESSION_COOKIE));
  const refusedForm = (c: Ctx, s?: Session) =>
    send(
      c,
      403,
      "Refused",
      messageView({
        title: "This form was refused",
        kind: "error",
        text:
          "It did not come from this page with its security token. Nothing was changed; reload the page and try again.",
      }),
      s,
    );
  const failure = (c: Ctx, err: unknown, s?: Session) => {
    const e = toObservalError(err);
    return send(
      c,
      e.httpStatus,
      "Error",
      messageView({
        title: e.code === "NOT_FOUND" ? "Not found" : "That did not work",
        kind: "error",
        text: e.remediation ? `${e.message}. ${e.remediation}.` : `${e.message}.`,
      }),
      s,
    );
  };

  page.get("/", (c) => {
    const s = session(c);
    if (!s) return send(c, 200, "Sign in", signInView());
    return send(c, 200, "Review queue", queueView(queue(state, s)), s);
  });

  page.post("/review/sign-in", async (c) => {
    if (!sameOrigin(c, state)) return refusedForm(c);
    const form = await readForm(c);
    const key = typeof form?.key === "string" ? form.key.trim() : "";
    try {
      // The same budgets as a key in an Authorization header, keyed alike.
      signIn(c, state, limiters, `Bearer ${key}`, key);
    } catch (err) {
      const e = toObservalError(err);
      const text = e.code === "RESOURCE_EXHAUSTED"
        ? `${e.message}. ${e.remediation}.`
        : "That API key is not valid. Check it, or ask an admin for a new one.";
      return send(c, e.httpStatus, "Sign in", signInView(text));
    }
    setCookie(c, SESSION_COOKIE, openSession(state, key), {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure: isHttps(c),
      maxAge: SESSION_MS / 1000,
    });
    return redirect(c, "/");
  });

  page.post("/review/sign-out", async (c) => {
    const s = session(c);
    if (!s) return redirect(c, "/");
    const form = await readForm(c);
    if (!sameOrigin(c, state) || !csrfMatches(s, form?.csrf)) return refusedForm(c, s);
    endSession(state, getCookie(c, SESSION_COOKIE)!);
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: isHttps(c) });
    return redirect(c, "/");
  });

  page.get("/review/entries/:identifier", async (c) => {
    const s = session(c);
    if (!s) return redirect(c, "/");
    try {
      return send(c, 200, "Review", await reviewOf(state, s, c.req.param("identifier")), s);
    } catch (err) {
      return failure(c, err, s);
    }
  });

  page.post("/review/entries/:identifier", async (c) => {
    const s = session(c);
    if (!s) {
      return send(
        c,
        401,
        "Sign in",
        signInView("Your session ended; sign in again. Nothing was changed."),
      );
    }
    const form = await readForm(c);
    if (!sameOrigin(c, state) || !csrfMatches(s, form?.csrf)) return refusedForm(c, s);
    const identifier = c.req.param("identifier");
    try {
      const body = ReviewRequestSchema.parse({
        action: form?.action,
        ...(form?.action === "approve" ? { digest: String(form?.digest ?? "") } : {}),
        ...(form?.action === "reject" ? { reason: String(form?.reason ?? "") } : {}),
      });
      const row = getVisibleEntry(state.db, s.viewer, identifier, {
        publicRegistry: publicRegistry(state),
      });
      try {
        await reviewAndSync(state, s.viewer, row.identifier, body);
      } catch (err) {
        if (!(err instanceof ObservalError) || err.code !== "FAILED_PRECONDITION") throw err;
        return send(
          c,
          409,
          "Changed",
          await reviewOf(state, s, row.identifier, {
            kind: "error",
            text:
              "This entry changed since it was shown to you, so nothing was approved. It is shown again below as it is now; review it again.",
          }),
          s,
        );
      }
      if (body.action === "reject") {
        // A rejected entry leaves the reviewer's sight (only its owner sees it now).
        return send(
          c,
          200,
          "Rejected",
          messageView({
            title: `${row.display_name} is rejected`,
            kind: "ok",
            text: "Rejected; its owner sees your reason.",
          }),
          s,
        );
      }
      return send(
        c,
        200,
        "Approved",
        await reviewOf(state, s, row.identifier, { kind: "ok", text: "Approved." }),
        s,
      );
    } catch (err) {
      if (err instanceof Error && err.name === "ZodError") {
        return failure(
          c,
          new ObservalError("INVALID_ARGUMENT", "The review form was incomplete", {
            remediation: "Go back, and give a reason when you reject",
          }),
          s,
        );
      }
      return failure(c, err, s);
    }
  });

  return page;
}

function publicRegistry(state: RegistryState): boolean {
  return state.settings()["deployment.public_registry_enabled"];
}

/** What the viewer may review (pending, oldest first), and their own entries. */
function queue(state: RegistryState, s: Session) {
  const { viewer } = s;
  const vis = visibleSql(viewer, { publicRegistry: publicRegistry(state) });
  const pending = state.db.prepare(
    `SELECT e.* FROM entries e WHERE ${vis.sql} AND e.lifecycle = 'pending'
     ORDER BY e.updated_at, e.identifier LIMIT ${LIST_LIMIT}`,
  ).all(vis.params) as unknown as EntryRow[];
  const own = state.db.prepare(
    `SELECT * FROM entries WHERE owner_id = ? AND tombstoned = 0
     ORDER BY CASE lifecycle WHEN 'pending' THEN 0 WHEN 'rejected' THEN 1 ELSE 2 END,
       display_name, identifier LIMIT ${LIST_LIMIT}`,
  ).all(viewer.userId) as unknown as EntryRow[];
  return {
    canReview: hasReviewScope(viewer),
    toReview: pending.filter((row) => mayReview(viewer, row)),
    own,
  };
}

/** One entry's review page, as the viewer may see it. */
async function reviewOf(
  state: RegistryState,
  s: Session,
  identifier: string,
  notice?: { kind: "ok" | "error"; text: string },
): Promise<Html> {
  const row = getVisibleEntry(state.db, s.viewer, identifier, {
    publicRegistry: publicRegistry(state),
  });
  const agent = row.source_kind === "native"
    ? (await agentsModule()).agentReview(state, row)
    : undefined;
  return entryView({ row, agent, mayReview: mayReview(s.viewer, row), csrf: s.csrf, notice });
}

/** The form fields of a urlencoded or multipart POST; undefined for any other body. */
async function readForm(c: Ctx): Promise<Record<string, unknown> | undefined> {
  const type = c.req.header("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return undefined;
  try {
    return await c.req.parseBody();
  } catch {
    return undefined;
  }
}

/**
 * A browser says where a form came from: `Origin` must be this site's and `Sec-Fetch-Site`
 * `same-origin` when they are sent (clients that send neither, such as scripts, are left to
 * the session's token, which is checked besides).
 */
function sameOrigin(c: Ctx, state: RegistryState): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") return false;
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  // Under Referrer-Policy no-referrer a browser sends `Origin: null` even for its own
  // forms; it is taken only with the browser's word that the form is this site's.
  if (origin === "null") return site === "same-origin";
  const ours = new Set([new URL(c.req.url).origin]);
  const publicUrl = state.settings()["deployment.public_url"];
  if (publicUrl && URL.canParse(publicUrl)) ours.add(new URL(publicUrl).origin);
  return ours.has(origin);
}

function isHttps(c: Ctx): boolean {
  return new URL(c.req.url).protocol === "https:" ||
    c.req.header("x-forwarded-proto") === "https";
}

/** What every page answer carries: nothing outside it loads, nothing frames it. */
function securityHeaders(c: Ctx, nonce?: string): void {
  c.header(
    "Content-Security-Policy",
    [
      "default-src 'none'",
      nonce ? `style-src 'nonce-${nonce}'` : "style-src 'none'",
      "img-src 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("X-Frame-Options", "DENY");
  c.header("Cache-Control", "no-store");
}
