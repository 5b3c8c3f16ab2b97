/**
 * Heap retained by a rate limiter fed 100 000 distinct keys, against a plain Map doing
 * the same bookkeeping without a cap. Run with `--v8-flags=--expose-gc`; prints JSON.
 */
import { createRateLimiter } from "../../lib/server/rate_limiter.ts";

const KEYS = 100_000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");

function heap(): number {
  gc!();
  gc!();
  return Deno.memoryUsage().heapUsed;
}

const key = (i: number) => `client:198.51.${i >> 8}.${i & 255}:${i}`;

const base = heap();
const limiter = createRateLimiter({ limit: 60, now: () => Date.now() });
for (let i = 0; i < KEYS; i++) limiter.take(key(i));
const limiterBytes = heap() - base;

const base2 = heap();
const unbounded = new Map<string, { start: number; used: number }>();
for (let i = 0; i < KEYS; i++) unbounded.set(key(i), { start: Date.now(), used: 1 });
const unboundedBytes = heap() - base2;

console.log(JSON.stringify({
  keys: KEYS,
  tracked: limiter.size,
  limiterBytes,
  unboundedBytes,
  unboundedTracked: unbounded.size,
}));
