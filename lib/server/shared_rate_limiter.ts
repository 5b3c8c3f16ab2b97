/**
 * Fixed-window request budgets kept in the registry database (`rate_windows`), so every
 * `registry serve` process on one home spends the same budgets: two processes must not
 * double them. Each spend is one UPSERT, atomic across processes.
 * @module
 */
import type { DatabaseSync } from "../sqlite/mod.ts";
import type { RateDecision, RateLimiter } from "./rate_limiter.ts";
import { DEFAULT_MAX_KEYS } from "./rate_limiter.ts";

/** Options for {@linkcode createSharedRateLimiter}. */
export interface SharedRateLimiterOptions {
  /** The registry database (with the `rate_windows` table). */
  db: DatabaseSync;
  /** Names this budget's rows; limiters with different buckets never share counts. */
  bucket: string;
  /** Requests (or failures) a key may spend per window. */
  limit: number;
  /** Window length in milliseconds. @default 60_000 */
  windowMs?: number;
  /** Most keys kept in this bucket; the oldest windows are dropped beyond it. @default 10_000 */
  maxKeys?: number;
  /** Milliseconds since the epoch; pass the Context clock. */
  now: () => number;
}

/** Spends between purges of expired rows: bounds the table without a write per call. */
const PURGE_EVERY = 256;

/**
 * Creates a limiter whose windows live in `rate_windows`. A key gets `limit` units per
 * window starting at its first use, counted by every process using the database.
 *
 * Every {@linkcode PURGE_EVERY} spends this process drops the bucket's expired windows and,
 * past `maxKeys`, its oldest ones (which resets those keys: fail-open for a few keys, the
 * price of a bounded table under a flood of distinct keys).
 *
 * @param options The database, bucket, budget, window, cap and clock.
 * @returns The limiter.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { MIGRATIONS } from "./_migrations.ts";
 * import { createSharedRateLimiter } from "./shared_rate_limiter.ts";
 * const db = new DatabaseSync(":memory:");
 * db.exec(MIGRATIONS[4]);
 * const limiter = createSharedRateLimiter({ db, bucket: "b", limit: 1, now: () => 0 });
 * assert.equal(limiter.take("a").allowed, true);
 * assert.equal(limiter.take("a").allowed, false);
 * db.close();
 * ```
 */
export function createSharedRateLimiter(options: SharedRateLimiterOptions): RateLimiter {
  const { db, bucket, limit } = options;
  const windowMs = options.windowMs ?? 60_000;
  const maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_MAX_KEYS);
  let spends = 0;

  // SET expressions all read the row as it was, so `used` and `start` agree. Counting
  // stops one past the limit: the number only has to say "over".
  const spendSql = `INSERT INTO rate_windows(bucket, key, start, used) VALUES (?1, ?2, ?3, 1)
    ON CONFLICT(bucket, key) DO UPDATE SET
      used = CASE WHEN ?3 - start >= ?4 THEN 1 ELSE min(used + 1, ?5 + 1) END,
      start = CASE WHEN ?3 - start >= ?4 THEN ?3 ELSE start END
    RETURNING start, used`;

  const decide = (row: { start: number; used: number }, now: number, next: number) => ({
    allowed: row.used + next <= limit,
    retryAfterMs: Math.max(0, row.start + windowMs - now),
  });

  const purge = (now: number) => {
    db.prepare("DELETE FROM rate_windows WHERE bucket = ? AND start <= ?").run(
      bucket,
      now - windowMs,
    );
    const { n } = db.prepare("SELECT COUNT(*) AS n FROM rate_windows WHERE bucket = ?").get(
      bucket,
    ) as { n: number };
    if (n <= maxKeys) return;
    db.prepare(
      `DELETE FROM rate_windows WHERE bucket = ?1 AND key IN (
         SELECT key FROM rate_windows WHERE bucket = ?1 ORDER BY start LIMIT ?2)`,
    ).run(bucket, n - maxKeys);
  };

  return {
    take(key): RateDecision {
      const now = options.now();
      if (++spends % PURGE_EVERY === 0) purge(now);
      const row = db.prepare(spendSql).get(bucket, key, now, windowMs, limit) as {
        start: number;
        used: number;
      };
      return decide(row, now, 0);
    },
    check(key): RateDecision {
      const now = options.now();
      const row = db.prepare(
        "SELECT start, used FROM rate_windows WHERE bucket = ? AND key = ? AND start > ?",
      ).get(bucket, key, now - windowMs) as { start: number; used: number } | undefined;
      return row ? decide(row, now, 1) : { allowed: true, retryAfterMs: 0 };
    },
    get size() {
      return (db.prepare("SELECT COUNT(*) AS n FROM rate_windows WHERE bucket = ?").get(
        bucket,
      ) as { n: number }).n;
    },
    maxKeys,
  };
}
