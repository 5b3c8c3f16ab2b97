/**
 * recoverTaskStore() on real SQLite files damaged the ways disks and crashes damage them:
 * garbage, a truncated file, a garbage write-ahead log, one page overwritten.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Task } from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";
import { openTaskStore, recoverTaskStore } from "../../lib/store/mod.ts";
import { type Fixture, makeTask, openFixture } from "./_helpers.ts";

/** Fills the store with `n` tasks (each with its folder, as started tasks have). */
function fill(fx: Fixture, n: number): Task[] {
  const tasks: Task[] = [];
  for (let i = 0; i < n; i++) {
    const task = makeTask({ meta: { notes: [`task ${i} `.repeat(60)] } });
    fx.store.insert(task);
    fx.store.taskDir(task.id, { create: true });
    tasks.push(task);
  }
  fx.store.putReply(tasks[0].id, [{ data: { kept: true } }]);
  return tasks;
}

/** Closes the store with everything checkpointed into tasks.db (no WAL left). */
function closeClean(fx: Fixture): string {
  fx.store.close();
  const path = join(fx.store.root, "tasks.db");
  const db = new DatabaseSync(path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return path;
}

function damagedFiles(root: string): string[] {
  return readdirSync(root).filter((n) => n.startsWith("tasks.db.damaged-")).sort();
}

Deno.test("recoverTaskStore() leaves a missing or healthy store alone", () => {
  using fx = openFixture();
  const tasks = fill(fx, 5);
  const path = closeClean(fx);
  const before = readFileSync(path);
  const healthy = recoverTaskStore({ home: fx.home, clock: fx.clock });
  assert.deepEqual(healthy, {
    path,
    state: "healthy",
    kept: 0,
    fromFolders: 0,
    lost: 0,
    movedAside: [],
  });
  assert.deepEqual(readFileSync(path), before);
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(store.list().total, tasks.length);
  const missing = recoverTaskStore({ home: join(fx.home, "elsewhere"), clock: fx.clock });
  assert.equal(missing.state, "missing");
});

/** Removes every task's record, as a store written by an older version has none. */
function dropRecords(fx: Fixture): void {
  for (const entry of readdirSync(fx.store.root, { withFileTypes: true })) {
    if (entry.isDirectory()) rmSync(join(fx.store.root, entry.name, "task.json"), { force: true });
  }
}

Deno.test("recoverTaskStore() rebuilds a garbage tasks.db from the task folders", () => {
  using fx = openFixture();
  const tasks = fill(fx, 8);
  const path = closeClean(fx);
  writeFileSync(path, crypto.getRandomValues(new Uint8Array(64 * 1024)));
  const report = recoverTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(report.state, "recovered");
  assert.equal(report.kept, tasks.length);
  assert.equal(report.fromFolders, tasks.length);
  assert.equal(report.lost, 0);
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  assert.deepEqual(store.list().items, tasks.toReversed());
});

Deno.test("recoverTaskStore() moves a garbage tasks.db without records aside and starts an empty store", () => {
  using fx = openFixture();
  const tasks = fill(fx, 8);
  const path = closeClean(fx);
  dropRecords(fx);
  const garbage = crypto.getRandomValues(new Uint8Array(64 * 1024));
  writeFileSync(path, garbage);
  const report = recoverTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(report.state, "recovered");
  assert.equal(report.kept, 0);
  assert.equal(report.lost, tasks.length, "each task folder stands for a task that was lost");
  assert.match(report.problem ?? "", /not a database/);
  const aside = join(fx.store.root, "tasks.db.damaged-20260927T100000Z");
  assert.deepEqual(report.movedAside, [aside]);
  assert.deepEqual(
    new Uint8Array(readFileSync(aside)),
    garbage,
    "the damaged file is kept as it was",
  );
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(store.list().total, 0);
});

Deno.test("recoverTaskStore() keeps every task a truncated tasks.db without records still holds", () => {
  using fx = openFixture();
  const tasks = fill(fx, 120);
  const path = closeClean(fx);
  dropRecords(fx);
  truncateSync(path, Math.floor(statSync(path).size / 2));
  assert.throws(() => openTaskStore({ home: fx.home, clock: fx.clock }), (err) => {
    assert.ok(err instanceof ObservalError);
    assert.match(err.message, /is damaged/);
    assert.match(err.remediation ?? "", /observal delegate recover/);
    return true;
  });
  const report = recoverTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(report.state, "recovered");
  assert.ok(report.kept > 20, `kept ${report.kept}`);
  assert.ok(report.lost > 0, `lost ${report.lost}`);
  assert.equal(report.kept + report.lost, tasks.length, "every task is counted kept or lost");
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  const page = store.list({ limit: 200 });
  assert.equal(page.total, report.kept);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  for (const task of page.items) assert.deepEqual(task, byId.get(task.id), "kept whole");
  // Newest first, as before: the order of insertion survives.
  const order = tasks.map((t) => t.id).filter((id) => page.items.some((t) => t.id === id));
  assert.deepEqual(page.items.map((t) => t.id), order.toReversed());
  assert.deepEqual(store.takeReply(tasks[0].id), [{ data: { kept: true } }]);
  assert.equal(damagedFiles(fx.store.root).length, 1);
});

Deno.test("recoverTaskStore() keeps the rows around one overwritten page", () => {
  using fx = openFixture();
  const tasks = fill(fx, 120);
  const path = closeClean(fx);
  dropRecords(fx);
  const bytes = readFileSync(path);
  // A page in the middle of the file (the table's leaves are spread through it).
  const page = Math.floor(bytes.length / 4096 / 2);
  bytes.fill(0x5a, page * 4096, (page + 1) * 4096);
  writeFileSync(path, bytes);
  const report = recoverTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(report.state, "recovered");
  assert.ok(report.kept >= tasks.length - 10, `kept ${report.kept} of ${tasks.length}`);
  assert.equal(report.kept + report.lost, tasks.length);
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(store.list({ limit: 200 }).total, report.kept);
});

Deno.test("recoverTaskStore() keeps tasks.db whole when only the write-ahead log is garbage", () => {
  using fx = openFixture();
  const tasks = fill(fx, 10);
  const path = closeClean(fx);
  writeFileSync(`${path}-wal`, crypto.getRandomValues(new Uint8Array(16 * 1024)));
  const report = recoverTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(report.state, "recovered");
  assert.equal(report.kept, tasks.length);
  assert.equal(report.lost, 0);
  assert.match(report.problem ?? "", /write-ahead log/);
  assert.equal(report.movedAside.length, 2);
  assert.ok(report.movedAside[1].endsWith("-wal"));
  assert.equal(existsSync(`${path}-wal`), false);
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(store.list().total, tasks.length);
});

Deno.test("recoverTaskStore() refuses to run while another recovery holds the lock", () => {
  using fx = openFixture();
  const path = closeClean(fx);
  writeFileSync(path, "garbage");
  writeFileSync(join(fx.store.root, "recover.lock"), "");
  assert.throws(() => recoverTaskStore({ home: fx.home, clock: fx.clock }), (err) => {
    assert.ok(err instanceof ObservalError);
    assert.equal(err.code, "UNAVAILABLE");
    assert.match(err.remediation ?? "", /recover\.lock/);
    return true;
  });
  assert.equal(readFileSync(path, "utf8"), "garbage", "nothing was touched");
});
