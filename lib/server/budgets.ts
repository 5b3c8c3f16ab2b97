/**
 * The registry app's request budgets: one shared (database) limiter per budget, and the
 * key a sign-in attempt is budgeted on.
 * @module
 */
import { type Clock, nodeCrypto } from "../core/mod.ts";
import type { DatabaseSync } from "../sqlite/mod.ts";
import type { RateLimiter } from "./rate_limiter.ts";
import { createSharedRateLimiter } from "./shared_rate_limiter.ts";

/** Per-minute budgets; see `RegistryAppOptions.rateLimit`. */
export interface RateLimitOptions {
  /** Searches per caller a minute. @default 60 */
  search?: number;
  /** Card imports per caller a minute. @default 20 */
  import?: number;
  /** Failed sign-ins with one API key (bad, unknown or malformed) a minute. @default 10 */
  authFailures?: number;
  /** Failed sign-ins per client address a minute, whatever the key. @default 100 */
  authFailuresPerAddress?: number;
  /** Most callers tracked per budget; the oldest are forgotten beyond it. @default 10_000 */
  maxKeys?: number;
}

const DEFAULT_LIMITS = {
  search: 60,
  import: 20,
  authFailures: 10,
  authFailuresPerAddress: 100,
} as const;

export type Limiters = Record<keyof typeof DEFAULT_LIMITS, RateLimiter & { limit: number }>;

/** One limiter (bucket) per budget, so a flood against one cannot evict the others' counts. */
export function createLimiters(
  db: DatabaseSync,
  clock: Clock,
  option: boolean | RateLimitOptions | undefined,
): Limiters | undefined {
  if (option === false) return undefined;
  const given = option === true || option === undefined ? {} : option;
  const make = (bucket: keyof typeof DEFAULT_LIMITS) => {
    const limit = given[bucket] ?? DEFAULT_LIMITS[bucket];
    const limiter = createSharedRateLimiter({
      db,
      bucket,
      limit,
      maxKeys: given.maxKeys,
      now: () => clock.now().getTime(),
    });
    return Object.assign(limiter, { limit });
  };
  return {
    search: make("search"),
    import: make("import"),
    authFailures: make("authFailures"),
    authFailuresPerAddress: make("authFailuresPerAddress"),
  };
}

/** What a sign-in attempt's budget is keyed on: a digest, so no key is ever stored. */
export function attemptDigest(authorization: string): string {
  return nodeCrypto().createHash("sha256").update(`rate:${authorization}`).digest("hex")
    .slice(0, 32);
}
