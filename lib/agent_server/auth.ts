/**
 * Who may call a served Agent, and how often: the bearer token its server was given
 * (`--token-file`), the API keys of the registry's users (`--registry-keys`), or either.
 * Budgets are `registry serve`'s, from the same limiter (lib/server/rate_limiter.ts): JSON-RPC
 * requests per caller a minute, and failed sign-ins per key and per client address a
 * minute; once the address has spent its budget even a right key is refused until the
 * window ends, so guessing learns nothing.
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { LOCAL_CLIENT, peerAddress } from "../server/client_address.ts";
import { createRateLimiter, type RateDecision } from "../server/rate_limiter.ts";

/** Who a request comes from. */
export interface Principal {
  /** What its budget and its tasks are kept under: `user:<id>`, or `token-file`. */
  id: string;
  /** How logs name it; never the key. */
  name: string;
}

/** A request refused, as the app answers it. */
export interface Refusal {
  refused: true;
  /** 401: no valid credential; 429: over a budget; 503: the registry cannot say. */
  status: 401 | 429 | 503;
  /** The JSON-RPC error code. */
  code: number;
  message: string;
  /** Sent as `Retry-After` when set. */
  retryAfterSeconds?: number;
}

/** What {@linkcode Authorize} decides. */
export type Verdict = { principal: Principal } | Refusal;

/** Decides a JSON-RPC request: `env` holds the socket (`@hono/node-server`'s bindings). */
export type Authorize = (request: Request, env: unknown) => Promise<Verdict>;

/**
 * The user a registry API key belongs to, or undefined when the registry refuses it.
 * Throws when the registry cannot say (unreachable, failing): the key is then refused.
 */
export type KeyOwner = (key: string) => Promise<Principal | undefined>;

/** Options for {@linkcode authorizer}. */
export interface AuthorizerOptions {
  /** The shared token (`--token-file`); its holders are the principal `token-file`. */
  token?: string;
  /** Checks registry users' keys (`--registry-keys`). */
  keyOwner?: KeyOwner;
  /** JSON-RPC requests per principal a minute. */
  requestsPerMinute: number;
  /** Failed sign-ins with one key a minute. @default 10 */
  failuresPerKey?: number;
  /** Failed sign-ins from one client address a minute, whatever the key. @default 100 */
  failuresPerAddress?: number;
  /** Most callers tracked per budget. @default 10_000 */
  maxKeys?: number;
  /** Milliseconds since the epoch; pass the Context clock. */
  now: () => number;
  /** Told why the registry could not check a key (callers are not shown the registry's faults). */
  log?: (line: string) => void;
}

/** The JSON-RPC error for a refused credential (as before registry keys: invalid request). */
const INVALID_REQUEST = -32600;
/** The JSON-RPC error for a busy server or an exhausted budget (implementation-defined). */
const SERVER_BUSY = -32000;
/** How soon a caller may retry when the registry could not check its key, in seconds. */
const UNAVAILABLE_RETRY_SECONDS = 10;
/** A bearer credential, bounded: any token a --token-file may hold. */
const BEARER = /^Bearer\s+(\S{1,4096})\s*$/i;

/**
 * The authorizer for a served Agent's JSON-RPC requests.
 *
 * @param options which credentials are taken, the budgets and the clock
 * @returns a function deciding each request: its principal, or why it is refused
 * @throws {TypeError} when neither a token nor a key owner is given
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { authorizer } from "./auth.ts";
 * const authorize = authorizer({ token: "a-long-shared-token", requestsPerMinute: 1, now: Date.now });
 * const call = () =>
 *   authorize(new Request("http://x/", { headers: { authorization: "Bearer a-long-shared-token" } }), {});
 * assert.deepEqual(await call(), { principal: { id: "token-file", name: "token-file" } });
 * assert.equal((await call() as { status: number }).status, 429);
 * ```
 */
export function authorizer(options: AuthorizerOptions): Authorize {
  if (options.token === undefined && options.keyOwner === undefined) {
    throw new TypeError("Cannot authorize without a token or registry keys");
  }
  const limiter = (limit: number) =>
    createRateLimiter({ limit, maxKeys: options.maxKeys, now: options.now });
  const requests = limiter(options.requestsPerMinute);
  const keyFailures = limiter(options.failuresPerKey ?? 10);
  const addressFailures = limiter(options.failuresPerAddress ?? 100);
  const wanted = options.token === undefined ? undefined : digest(options.token);
  const accepted = [
    ...options.token === undefined ? [] : ["the token this server was given"],
    ...options.keyOwner === undefined ? [] : ["your API key for the Observal registry"],
  ].join(" or ");

  return async (request, env) => {
    const match = BEARER.exec(request.headers.get("authorization") ?? "");
    if (!match) {
      return refusal(401, INVALID_REQUEST, `This agent needs Authorization: Bearer <${accepted}>`);
    }
    const key = match[1];
    const address = peerAddress(env) ?? LOCAL_CLIENT;
    const keyId = digest(`rate:${key}`).toString("hex").slice(0, 32);
    const spent =
      over(addressFailures.check(address), "Too many failed sign-ins from your address") ??
        over(keyFailures.check(keyId), "Too many failed sign-ins with this key");
    if (spent) return spent;

    let principal: Principal | undefined;
    if (wanted && timingSafeEqual(digest(key), wanted)) {
      principal = { id: "token-file", name: "token-file" };
    } else if (options.keyOwner) {
      try {
        principal = await options.keyOwner(key);
      } catch (err) {
        // Fail closed: a key nobody could check is not taken.
        options.log?.(`Cannot check an API key with the registry: ${(err as Error)?.message}`);
        return refusal(
          503,
          SERVER_BUSY,
          "The registry could not check your API key; try again shortly",
          UNAVAILABLE_RETRY_SECONDS,
        );
      }
    }
    if (!principal) {
      keyFailures.take(keyId);
      addressFailures.take(address);
      return refusal(401, INVALID_REQUEST, `The bearer token is not valid here: send ${accepted}`);
    }
    const budget = requests.take(principal.id);
    if (!budget.allowed) {
      const seconds = retrySeconds(budget);
      return refusal(
        429,
        SERVER_BUSY,
        `Too many requests from ${principal.name}: at most ${options.requestsPerMinute} a ` +
          `minute are taken; retry in ${seconds} s`,
        seconds,
      );
    }
    return { principal };
  };
}

/** A refusal for a spent failure budget, or undefined while it lasts. */
function over(decision: RateDecision, message: string): Refusal | undefined {
  if (decision.allowed) return undefined;
  const seconds = retrySeconds(decision);
  return refusal(
    429,
    SERVER_BUSY,
    `${message}; retry in ${seconds} s with a valid credential`,
    seconds,
  );
}

function retrySeconds(decision: RateDecision): number {
  return Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
}

function refusal(
  status: Refusal["status"],
  code: number,
  message: string,
  retryAfterSeconds?: number,
): Refusal {
  return {
    refused: true,
    status,
    code,
    message,
    ...retryAfterSeconds ? { retryAfterSeconds } : {},
  };
}

/** SHA-256 of `text`: equal lengths for the constant-time compare, and no key kept. */
function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
