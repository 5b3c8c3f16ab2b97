/** cacheStatements(): prepared statements reused per connection, bounded, reset on close. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { openDatabase } from "../../lib/sqlite/mod.ts";
import { cacheStatements } from "../../lib/sqlite/statement_cache.ts";

const MIGRATIONS = ["CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)"];

Deno.test("cacheStatements() returns the same statement for the same SQL, bound afresh", () => {
  const db = cacheStatements(new DatabaseSync(":memory:"));
  db.exec(MIGRATIONS[0]);
  const insert = db.prepare("INSERT INTO t(k, v) VALUES (?, ?)");
  assert.equal(db.prepare("INSERT INTO t(k, v) VALUES (?, ?)"), insert);
  db.prepare("INSERT INTO t(k, v) VALUES (?, ?)").run("a", 1);
  db.prepare("INSERT INTO t(k, v) VALUES (?, ?)").run("b", 2);
  const get = (k: string) => db.prepare("SELECT v FROM t WHERE k = ?").get(k);
  assert.deepEqual({ ...get("a") }, { v: 1 });
  assert.deepEqual({ ...get("b") }, { v: 2 });
  assert.equal(get("c"), undefined);
  assert.notEqual(db.prepare("SELECT 1"), db.prepare("SELECT 2"));
  db.close();
});

Deno.test("cacheStatements() drops the least recently used statement past its size", () => {
  const db = cacheStatements(new DatabaseSync(":memory:"), 2);
  const a = db.prepare("SELECT 'a'");
  const b = db.prepare("SELECT 'b'");
  assert.equal(db.prepare("SELECT 'a'"), a, "a used again: b is now the oldest");
  const c = db.prepare("SELECT 'c'");
  assert.equal(db.prepare("SELECT 'a'"), a);
  assert.equal(db.prepare("SELECT 'c'"), c);
  const b2 = db.prepare("SELECT 'b'");
  assert.notEqual(b2, b, "b was evicted and prepared again");
  assert.deepEqual({ ...b2.get() as object }, { "'b'": "b" });
  // The evicted statement itself stays usable until it is collected.
  assert.deepEqual({ ...b.get() as object }, { "'b'": "b" });
  db.close();
});

Deno.test("cacheStatements() does not cache SQL that fails to prepare", () => {
  const db = cacheStatements(new DatabaseSync(":memory:"), 2);
  assert.throws(() => db.prepare("SELECT * FROM missing"), /no such table/);
  db.exec("CREATE TABLE missing (x)");
  assert.deepEqual(db.prepare("SELECT * FROM missing").all(), []);
  db.close();
});

Deno.test("openDatabase() caches statements, and a reopened file prepares afresh", () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-stmt-"));
  try {
    const path = join(dir, "t.db");
    const first = openDatabase(path, { migrations: MIGRATIONS });
    const insert = first.prepare("INSERT INTO t(k, v) VALUES (?, ?)");
    assert.equal(first.prepare("INSERT INTO t(k, v) VALUES (?, ?)"), insert);
    insert.run("a", 1);
    first.close();
    assert.throws(() => insert.run("b", 2), "close() finalizes cached statements");

    const again = openDatabase(path, { migrations: MIGRATIONS });
    const reinsert = again.prepare("INSERT INTO t(k, v) VALUES (?, ?)");
    assert.notEqual(reinsert, insert);
    reinsert.run("b", 2);
    assert.deepEqual(
      again.prepare("SELECT k FROM t ORDER BY k").all().map((r) => r.k),
      ["a", "b"],
    );
    again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
