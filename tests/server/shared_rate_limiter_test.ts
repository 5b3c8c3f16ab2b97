/** createSharedRateLimiter(): budgets in the registry database, shared by every connection. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS } from "../../lib/server/mod.ts";
import { createSharedRateLimiter } from "../../lib/server/shared_rate_limiter.ts";
import { type DatabaseSync, openDatabase } from "../../lib/sqlite/mod.ts";

function withTwoConnections(fn: (a: DatabaseSync, b: DatabaseSync) => void) {
  const dir = mkdtempSync(join(tmpdir(), "observal-rate-"));
  const path = join(dir, "registry.db");
  const a = openDatabase(path, { migrations: MIGRATIONS });
  const b = openDatabase(path, { migrations: MIGRATIONS });
  try {
    fn(a, b);
  } finally {
    a.close();
    b.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

Deno.test("createSharedRateLimiter() shares one budget between connections to one file", () => {
  withTwoConnections((a, b) => {
    let now = 1_000;
    const options = { bucket: "search", limit: 3, now: () => now };
    const first = createSharedRateLimiter({ db: a, ...options });
    const second = createSharedRateLimiter({ db: b, ...options });
    const taken = [first, second, first, second, first].map((l) => l.take("k").allowed);
    assert.deepEqual(taken, [true, true, true, false, false]);
    assert.equal(second.check("k").allowed, false);
    assert.equal(first.take("other").allowed, true, "keys have separate budgets");
    const otherBucket = createSharedRateLimiter({ db: b, ...options, bucket: "import" });
    assert.equal(otherBucket.take("k").allowed, true, "buckets have separate budgets");
    now += 20_000;
    assert.equal(second.take("k").retryAfterMs, 40_000);
    now += 40_000;
    assert.equal(second.take("k").allowed, true, "a new window starts after windowMs");
    assert.equal(first.check("k").allowed, true);
  });
});

Deno.test("createSharedRateLimiter() check() reports a spent budget without spending", () => {
  withTwoConnections((db) => {
    const limiter = createSharedRateLimiter({ db, bucket: "b", limit: 2, now: () => 0 });
    assert.equal(limiter.check("k").allowed, true);
    assert.equal(limiter.size, 0, "checking an unknown key stores nothing");
    limiter.take("k");
    assert.equal(limiter.check("k").allowed, true);
    limiter.take("k");
    assert.equal(limiter.check("k").allowed, false);
    assert.equal(limiter.check("k").allowed, false);
  });
});

Deno.test("createSharedRateLimiter() purges expired windows and keeps at most maxKeys", () => {
  withTwoConnections((db) => {
    let now = 0;
    const limiter = createSharedRateLimiter({
      db,
      bucket: "b",
      limit: 1,
      windowMs: 1_000,
      maxKeys: 100,
      now: () => now,
    });
    for (let i = 0; i < 255; i++) limiter.take(`old${i}`);
    assert.equal(limiter.size, 255);
    now = 1_000;
    limiter.take("late");
    assert.equal(limiter.size, 1, "every expired window was dropped");
    for (let i = 0; i < 2_000; i++) limiter.take(`k${i}`);
    assert.ok(limiter.size <= 100 + 256, `size ${limiter.size}`);
  });
});
