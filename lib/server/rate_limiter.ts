/**
 * A fixed-window request budget per key with bounded memory: entries expire with their
 * window, and past `maxKeys` the oldest window is forgotten, so a caller rotating keys
 * (addresses, forged headers) cannot grow it without limit.
 * @module
 */

/** Options for {@linkcode createRateLimiter}. */
export interface RateLimiterOptions {
  /** Requests (or failures) a key may spend per window. */
  limit: number;
  /** Window length in milliseconds. @default 60_000 */
  windowMs?: number;
  /** Most keys tracked at once; the oldest window is evicted beyond it. @default 10_000 */
  maxKeys?: number;
  /** Milliseconds since the epoch; pass the Context clock. */
  now: () => number;
}

/** The outcome of spending or checking a key's budget. */
export interface RateDecision {
  /** False once the key has spent more than `limit` in the current window. */
  allowed: boolean;
  /** Milliseconds until the key's window ends (0 when it has no window open). */
  retryAfterMs: number;
}

/** Per-key budgets; see {@linkcode createRateLimiter}. */
export interface RateLimiter {
  /** Spends one unit of `key`'s budget. */
  take(key: string): RateDecision;
  /** Says whether `key` has already spent its budget, without spending. */
  check(key: string): RateDecision;
  /** The number of keys tracked now (never more than `maxKeys`). */
  readonly size: number;
  /** The configured cap on tracked keys. */
  readonly maxKeys: number;
}

interface Window {
  key: string;
  start: number;
  used: number;
}

/** Default cap on tracked keys: about 2 MB of entries. */
export const DEFAULT_MAX_KEYS = 10_000;

/**
 * Creates a rate limiter. Each key gets `limit` units per window starting at its first
 * use. Windows are also queued in start order, so expiry and eviction only ever look at
 * the front: every call costs O(1) amortised, and at most `maxKeys` keys are tracked.
 *
 * Eviction resets the evicted key's count; that fails open for one key at a time, which
 * is the price of a hard memory bound under a flood of distinct keys.
 *
 * @param options The budget, window, cap and clock.
 * @returns The limiter.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRateLimiter } from "./rate_limiter.ts";
 * const limiter = createRateLimiter({ limit: 2, now: () => 0 });
 * assert.equal(limiter.take("a").allowed, true);
 * assert.equal(limiter.take("a").allowed, true);
 * assert.equal(limiter.take("a").allowed, false);
 * assert.equal(limiter.take("b").allowed, true);
 * ```
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const windowMs = options.windowMs ?? 60_000;
  const maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_MAX_KEYS);
  const windows = new Map<string, Window>();
  // Windows in start order. A Map's own order would do, but iterating a Map that churns
  // walks over its deleted slots, which made each call cost O(maxKeys).
  let queue: Window[] = [];
  let head = 0;

  /** Drops the front window, untracking its key unless the key has a newer window. */
  const dropFront = () => {
    const front = queue[head++];
    if (windows.get(front.key) === front) windows.delete(front.key);
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  };

  const expire = (now: number) => {
    while (head < queue.length) {
      const front = queue[head];
      if (windows.get(front.key) === front && now - front.start < windowMs) break;
      dropFront();
    }
  };

  const current = (key: string, now: number) => {
    expire(now);
    const entry = windows.get(key);
    // Only reached when the clock stepped back and left an old window behind a newer one.
    if (entry && now - entry.start >= windowMs) {
      windows.delete(key);
      return undefined;
    }
    return entry;
  };

  return {
    take(key) {
      const now = options.now();
      const entry = current(key, now);
      if (!entry) {
        while (windows.size >= maxKeys && head < queue.length) dropFront();
        const fresh = { key, start: now, used: 1 };
        windows.set(key, fresh);
        queue.push(fresh);
        return { allowed: 1 <= options.limit, retryAfterMs: windowMs };
      }
      // Stop counting past the limit: the number only has to say "over".
      if (entry.used <= options.limit) entry.used++;
      return {
        allowed: entry.used <= options.limit,
        retryAfterMs: Math.max(0, entry.start + windowMs - now),
      };
    },
    check(key) {
      const now = options.now();
      const entry = current(key, now);
      if (!entry) return { allowed: true, retryAfterMs: 0 };
      return {
        allowed: entry.used < options.limit,
        retryAfterMs: Math.max(0, entry.start + windowMs - now),
      };
    },
    get size() {
      return windows.size;
    },
    maxKeys,
  };
}
