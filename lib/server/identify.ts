/**
 * Who is asking: the registry app's middleware that turns `Authorization: Bearer <key>`
 * into a viewer, and spends the failed-sign-in budgets on keys that do not work. The
 * review page's sign-in form spends the same budgets through {@linkcode signIn}.
 * @module
 */
import type { Context as HonoContext, MiddlewareHandler } from "hono";
import { isoSeconds, ObservalError } from "../core/mod.ts";
import { attemptDigest, type Limiters } from "./budgets.ts";
import { clientKey, peerAddress, trustedProxyRanges } from "./client_address.ts";
import { ANONYMOUS, authenticate, localAdmin, type Viewer } from "./identity.ts";
import type { RateDecision } from "./rate_limiter.ts";
import type { RegistryEnv } from "./registry_env.ts";
import type { RegistryState } from "./state.ts";

/** A 429 with `Retry-After`, so well-behaved clients know when to come back. */
export function tooMany(
  c: HonoContext,
  retryAfterMs: number,
  message: string,
  options: { remediation: string },
): ObservalError {
  c.header("Retry-After", String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return new ObservalError("RESOURCE_EXHAUSTED", message, options);
}

/**
 * Checks `key` as the caller's API key. A failing key spends its own budget (by hash), so
 * a client stuck on a bad key locks out only that key; refused attempts spend nothing
 * more. Guessing with many keys spends the address's looser budget, and once that is spent
 * even a right key is refused until the window ends, so the answer leaks nothing.
 *
 * `authorization` is what the budget is keyed on: the header as sent, or `Bearer <key>`
 * for a key typed into the review page, so both ways spend one budget per key.
 */
export function signIn(
  c: HonoContext<RegistryEnv>,
  state: RegistryState,
  limiters: Limiters | undefined,
  authorization: string,
  key: string | undefined,
): Viewer {
  const client = c.get("client");
  const keyId = limiters ? `key:${attemptDigest(authorization)}` : "";
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
    if (key === undefined) {
      throw new ObservalError(
        "UNAUTHENTICATED",
        "The Authorization header must be `Bearer <key>`",
      );
    }
    return authenticate(state.db, key);
  } catch (err) {
    limiters?.authFailures.take(keyId);
    limiters?.authFailuresPerAddress.take(client);
    throw err;
  }
}

/**
 * Identifies the caller once per request (`viewer`, `client`); a bad key is refused even
 * on routes that allow anonymity. Without a key the caller is anonymous, or the local
 * admin when the app is used in process.
 */
export function identifyCaller(
  state: RegistryState,
  limiters: Limiters | undefined,
  options: { localAdmin?: boolean },
): MiddlewareHandler<RegistryEnv> {
  return async (c, next) => {
    const peer = peerAddress(c.env);
    const forwarded = c.req.header("x-forwarded-for");
    const proxies = peer && forwarded
      ? trustedProxyRanges(state.settings()["deployment.trusted_proxies"])
      : [];
    c.set("client", clientKey(peer, forwarded, proxies));
    const auth = c.req.header("authorization");
    let viewer: Viewer = ANONYMOUS;
    if (auth) {
      viewer = signIn(c, state, limiters, auth, /^Bearer\s+(\S+)$/i.exec(auth)?.[1]);
    } else if (options.localAdmin) {
      viewer = localAdmin(state.db, isoSeconds(state.clock.now()));
    }
    c.set("viewer", viewer);
    await next();
  };
}

/** Spends one request of `bucket` for the caller (signed-in user, else client address). */
export function spendBudget(
  c: HonoContext<RegistryEnv>,
  limiters: Limiters | undefined,
  bucket: "search" | "import",
): void {
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
}

/** `GET /api/v1/me`: the signed-in caller and their teams. */
export function describeMe(c: HonoContext<RegistryEnv>, state: RegistryState) {
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
}
