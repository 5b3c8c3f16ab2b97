/** createRateLimiter(): fixed windows per key, expiry, and a hard cap on tracked keys. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createRateLimiter, DEFAULT_MAX_KEYS } from "../../lib/server/rate_limiter.ts";

Deno.test("createRateLimiter() allows limit requests per key and window, then refuses", () => {
  let now = 1_000;
  const limiter = createRateLimiter({ limit: 3, windowMs: 60_000, now: () => now });
  const taken = Array.from({ length: 5 }, () => limiter.take("a").allowed);
  assert.deepEqual(taken, [true, true, true, false, false]);
  assert.equal(limiter.take("b").allowed, true, "keys have separate budgets");
  now += 30_000;
  const refused = limiter.take("a");
  assert.equal(refused.allowed, false);
  assert.equal(refused.retryAfterMs, 30_000);
  now += 30_000;
  assert.equal(limiter.take("a").allowed, true, "a new window starts after windowMs");
});

Deno.test("createRateLimiter() check() reports a spent budget without spending", () => {
  const limiter = createRateLimiter({ limit: 2, now: () => 0 });
  assert.equal(limiter.check("k").allowed, true);
  assert.equal(limiter.size, 0, "checking an unknown key tracks nothing");
  limiter.take("k");
  assert.equal(limiter.check("k").allowed, true);
  limiter.take("k");
  assert.equal(limiter.check("k").allowed, false);
  assert.equal(limiter.check("k").allowed, false);
});

Deno.test("createRateLimiter() forgets expired windows", () => {
  let now = 0;
  const limiter = createRateLimiter({ limit: 1, windowMs: 1_000, now: () => now });
  for (let i = 0; i < 500; i++) limiter.take(`k${i}`);
  assert.equal(limiter.size, 500);
  now = 1_000;
  limiter.take("late");
  assert.equal(limiter.size, 1, "every expired window was dropped");
});

Deno.test("createRateLimiter() evicts the oldest key beyond maxKeys", () => {
  let now = 0;
  const limiter = createRateLimiter({ limit: 1, maxKeys: 3, now: () => now++ });
  for (const key of ["a", "b", "c"]) limiter.take(key);
  assert.equal(limiter.take("a").allowed, false);
  limiter.take("d");
  assert.equal(limiter.size, 3);
  assert.equal(limiter.check("a").allowed, true, "a, the oldest window, was evicted");
  assert.equal(limiter.size, 3);
  for (const key of ["b", "c", "d"]) assert.equal(limiter.check(key).allowed, false, key);
});

Deno.test("createRateLimiter() stays within its cap when fed 100 000 distinct keys", () => {
  const limiter = createRateLimiter({ limit: 60, now: () => Date.now() });
  for (let i = 0; i < 100_000; i++) {
    assert.equal(limiter.take(`client:198.51.${i >> 8}.${i & 255}:${i}`).allowed, true);
  }
  assert.equal(limiter.maxKeys, DEFAULT_MAX_KEYS);
  assert.ok(limiter.size <= DEFAULT_MAX_KEYS, `${limiter.size} keys tracked`);
  assert.equal(limiter.size, DEFAULT_MAX_KEYS);
});

Deno.test("createRateLimiter() retains a bounded heap after 100 000 keys, unlike a plain Map", async () => {
  // Measured in a child with --expose-gc so garbage does not blur the numbers.
  const script = fileURLToPath(new URL("./_limiter_heap.ts", import.meta.url));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--v8-flags=--expose-gc", script],
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const m = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    keys: number;
    tracked: number;
    limiterBytes: number;
    unboundedBytes: number;
  };
  assert.equal(m.keys, 100_000);
  assert.ok(m.tracked <= DEFAULT_MAX_KEYS, `tracked ${m.tracked}`);
  // 10 000 entries of ~150 bytes; an unbounded map of 100 000 holds ten times that.
  assert.ok(m.limiterBytes < 4 * 1024 * 1024, `limiter retains ${m.limiterBytes} bytes`);
  assert.ok(
    m.limiterBytes * 4 < m.unboundedBytes,
    `limiter ${m.limiterBytes} bytes vs unbounded ${m.unboundedBytes} bytes`,
  );
});
