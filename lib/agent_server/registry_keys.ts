/**
 * Registry users' API keys as a served Agent's bearer tokens: a key is taken when the
 * registry this observal uses says whose it is (`GET /api/v1/me` with that key; the
 * embedded registry answers it from its database, comparing the key's SHA-256 as every
 * registry route does). A remote registry's verdicts may be kept a short while, for a
 * bounded number of keys; a refusal is never kept, so a key works as soon as it is issued.
 * @module
 */
import { createHash } from "node:crypto";
import { ObservalError } from "../core/mod.ts";
import type { KeyOwner, Principal } from "./auth.ts";

/** The user a registry names for a key (`GET /api/v1/me`). */
export interface KeyUser {
  id: string;
  handle: string;
  email?: string;
}

/** Options for {@linkcode registryKeyOwner}. */
export interface RegistryKeysOptions {
  /**
   * Asks the registry whose `key` is. Rejects with an UNAUTHENTICATED or PERMISSION_DENIED
   * ObservalError when the registry refuses the key; any other rejection means it could
   * not say.
   */
  whoIs: (key: string) => Promise<KeyUser>;
  /** How long a key found valid is taken without asking again, in ms; 0 asks each time. */
  cacheMs: number;
  /** Most keys whose verdict is kept; the oldest go first. @default 1000 */
  maxCached?: number;
  /** Milliseconds since the epoch; pass the Context clock. */
  now: () => number;
}

/** The registry's answers that refuse the key (unknown, revoked, or its user not active). */
const REFUSED = new Set(["UNAUTHENTICATED", "PERMISSION_DENIED"]);

/** What a registry key may look like (token68, bounded): anything else is not sent to it. */
const KEY_SHAPE = /^[A-Za-z0-9._~+/=-]{8,512}$/;

/**
 * A {@linkcode KeyOwner} asking the registry.
 *
 * @param options how to ask, and how long a verdict is kept
 * @returns the key owner: a principal `user:<id>`, undefined for a key the registry refuses
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ObservalError } from "../core/mod.ts";
 * import { registryKeyOwner } from "./registry_keys.ts";
 * const owner = registryKeyOwner({
 *   whoIs: (key) =>
 *     key === "obs_right-key"
 *       ? Promise.resolve({ id: "u1", handle: "amy" })
 *       : Promise.reject(new ObservalError("UNAUTHENTICATED", "The API key is not valid")),
 *   cacheMs: 0,
 *   now: Date.now,
 * });
 * assert.deepEqual(await owner("obs_right-key"), { id: "user:u1", name: "amy (user u1)" });
 * assert.equal(await owner("obs_wrong-key"), undefined);
 * ```
 */
export function registryKeyOwner(options: RegistryKeysOptions): KeyOwner {
  const maxCached = Math.max(1, options.maxCached ?? 1000);
  // Keyed on the key's digest: the plain key is not kept.
  const cache = new Map<string, { principal: Principal; until: number }>();
  return async (key) => {
    if (!KEY_SHAPE.test(key)) return undefined;
    const id = createHash("sha256").update(key).digest("hex");
    const now = options.now();
    const kept = cache.get(id);
    if (kept && now < kept.until) return kept.principal;
    cache.delete(id);
    let user: KeyUser;
    try {
      user = await options.whoIs(key);
    } catch (err) {
      if (err instanceof ObservalError && REFUSED.has(err.code)) return undefined;
      throw err;
    }
    const principal = {
      id: `user:${user.id}`,
      name: `${user.email || user.handle} (user ${user.id})`,
    };
    if (options.cacheMs > 0) {
      while (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
      cache.set(id, { principal, until: now + options.cacheMs });
    }
    return principal;
  };
}
