/** useWal(): turning a database to WAL waits out other processes doing the same. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, useWal } from "../../lib/sqlite/mod.ts";

/** A connection whose first `busy` execs are refused as SQLite refuses a lock it cannot get. */
function lockedFor(busy: number, error = () => new Error("database is locked")) {
  const calls: string[] = [];
  return {
    calls,
    exec(sql: string) {
      calls.push(sql);
      if (calls.length <= busy) throw error();
    },
  };
}

Deno.test("useWal() tries again while the database is locked by another process", () => {
  const db = lockedFor(3);
  useWal(db, 5000);
  assert.deepEqual(db.calls, Array(4).fill("PRAGMA journal_mode=WAL"));
  // Under Node the error carries SQLite's code instead (SQLITE_BUSY, or an extended one).
  const coded = lockedFor(2, () => Object.assign(new Error("busy"), { errcode: 261 }));
  useWal(coded, 5000);
  assert.equal(coded.calls.length, 3);
});

Deno.test("useWal() gives up once the busy timeout has passed, and at once on other errors", () => {
  const started = Date.now();
  assert.throws(() => useWal(lockedFor(Infinity), 40), /database is locked/);
  assert.ok(Date.now() - started >= 40);
  const broken = lockedFor(1, () => new Error("file is not a database"));
  assert.throws(() => useWal(broken, 5000), /file is not a database/);
  assert.equal(broken.calls.length, 1);
});

Deno.test("openDatabase() leaves a new database in WAL mode", () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-sqlite-"));
  try {
    const db = openDatabase(join(dir, "x.db"), { migrations: ["CREATE TABLE t (x)"] });
    const mode = db.prepare("PRAGMA journal_mode").get() as { journal_mode: string };
    db.close();
    assert.equal(mode.journal_mode, "wal");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
