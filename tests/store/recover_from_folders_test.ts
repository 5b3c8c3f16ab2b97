/**
 * Nothing is lost from the task store: every task folder keeps the task's record
 * (task.json), so a tasks.db that is deleted, emptied or cut in half is rebuilt whole by
 * recoverTaskStore(), and the store refuses to open in place of a lost database.
 */
import assert from "node:assert/strict";
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Task, TaskState } from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";
import { openTaskStore, recoverTaskStore, type TaskStore } from "../../lib/store/mod.ts";
import { type Fixture, makeTask, openFixture, withState } from "./_helpers.ts";

const SETTLED: TaskState[] = [
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_COMPLETED",
];

/** What a rebuilt store must give back for one task: its row, field by field. */
interface Held {
  task: Task;
  workerPid: number | null;
  cancelRequested: boolean;
}

/**
 * Ten tasks as a busy store holds them: seven settled or waiting, and three running on a
 * remote agent (worker pid, remote ids, a child), one with a cancel requested and one with
 * a reply waiting for its worker. Returns them oldest first.
 */
function fillTen(fx: Fixture): Task[] {
  const tasks: Task[] = [];
  for (let i = 0; i < 10; i++) {
    const made = makeTask({ meta: { kind: "a2a", createdAt: `2026-09-27T10:0${i}:00Z` } });
    fx.store.insert(made);
    if (i < SETTLED.length) {
      fx.store.update(made.id, (t) => withState(t, SETTLED[i]));
      continue;
    }
    fx.store.setWorkerPid(made.id, 40_000 + i);
    fx.store.update(made.id, (t) => ({
      ...withState(t, "TASK_STATE_WORKING"),
      metadata: {
        observal: {
          ...t.metadata.observal,
          remoteTaskId: `remote-${i}`,
          remoteContextId: `ctx-${i}`,
          childPid: 50_000 + i,
          childStartTime: "12345",
        },
      },
    }));
  }
  const running = fx.store.running();
  assert.equal(running.length, 3);
  fx.store.requestCancel(running[0].id);
  fx.store.putReply(running[1].id, [{ text: "use the staging database" }]);
  for (const t of fx.store.list({ limit: 20 }).items.toReversed()) tasks.push(t);
  return tasks;
}

function held(store: TaskStore, tasks: Task[]): Held[] {
  return tasks.map((t) => ({
    task: store.require(t.id),
    workerPid: store.workerPid(t.id),
    cancelRequested: store.cancelRequested(t.id),
  }));
}

/** Closes `store` with everything in tasks.db (no WAL left); returns its path. */
function closeClean(store: TaskStore): string {
  store.close();
  const db = new DatabaseSync(store.path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  rmSync(`${store.path}-wal`, { force: true });
  rmSync(`${store.path}-shm`, { force: true });
  return store.path;
}

const DAMAGE: Array<{ name: string; refusedAtOpen: boolean; damage(path: string): void }> = [
  { name: "deleted", refusedAtOpen: true, damage: (path) => rmSync(path) },
  { name: "truncated to 0 bytes", refusedAtOpen: true, damage: (path) => truncateSync(path, 0) },
  {
    name: "truncated to half",
    refusedAtOpen: false,
    damage: (path) => truncateSync(path, Math.floor(statSync(path).size / 2)),
  },
];

for (const { name, refusedAtOpen, damage } of DAMAGE) {
  Deno.test(`recoverTaskStore() brings back all 10 tasks (3 running) when tasks.db is ${name}`, () => {
    using fx = openFixture();
    const tasks = fillTen(fx);
    const before = held(fx.store, tasks);
    const path = closeClean(fx.store);
    damage(path);
    const damagedBytes = existsSync(path) ? readFileSync(path) : undefined;
    if (refusedAtOpen) {
      assert.throws(() => openTaskStore({ home: fx.home, clock: fx.clock }), (err) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "UNAVAILABLE");
        assert.match(err.message, /10 task folders remain/);
        assert.match(err.remediation ?? "", /observal delegate recover/);
        return true;
      });
      assert.equal(statSync(path, { throwIfNoEntry: false })?.size ?? 0, 0, "nothing created");
    }

    const report = recoverTaskStore({ home: fx.home, clock: fx.clock });
    assert.equal(report.state, "recovered");
    assert.equal(report.kept, 10);
    assert.equal(report.fromFolders, 10);
    assert.equal(report.lost, 0);
    if (damagedBytes) {
      assert.equal(report.movedAside.length, 1);
      assert.deepEqual(readFileSync(report.movedAside[0]), damagedBytes, "kept aside as it was");
    } else {
      assert.deepEqual(report.movedAside, []);
    }

    using store = openTaskStore({ home: fx.home, clock: fx.clock });
    assert.deepEqual(held(store, tasks), before, "every row back, field by field");
    const page = store.list({ limit: 20 });
    assert.equal(page.total, 10);
    assert.deepEqual(page.items.map((t) => t.id), tasks.map((t) => t.id).toReversed());
    assert.equal(store.running().length, 3);
    const waiting = before.find((h) => h.task.metadata.observal.remoteTaskId === "remote-8")!;
    assert.deepEqual(store.takeReply(waiting.task.id), [{ text: "use the staging database" }]);
    // The rebuilt store goes on as before: a running task settles, a settled one stays.
    const runningId = before[9].task.id;
    assert.equal(
      store.update(runningId, (t) => withState(t, "TASK_STATE_COMPLETED")).changed,
      true,
    );
    assert.equal(
      store.update(before[0].task.id, (t) => withState(t, "TASK_STATE_FAILED")).changed,
      false,
    );
  });
}

Deno.test("each write leaves the task's record equal to its row, mode 0600, with no temp file", () => {
  using fx = openFixture();
  const task = makeTask();
  const record = () => JSON.parse(readFileSync(join(fx.store.root, task.id, "task.json"), "utf8"));
  fx.store.insert(task);
  assert.deepEqual(record().task, task);
  assert.equal(record().workerPid, 0);
  fx.store.setWorkerPid(task.id, 4321);
  assert.equal(record().workerPid, 4321);
  fx.store.requestCancel(task.id);
  assert.equal(record().cancelRequested, true);
  fx.store.putReply(task.id, [{ data: { ok: 1 } }]);
  assert.deepEqual(JSON.parse(record().pendingReply), [{ data: { ok: 1 } }]);
  fx.store.takeReply(task.id);
  assert.equal(record().pendingReply, null);
  const done = fx.store.update(task.id, (t) => withState(t, "TASK_STATE_COMPLETED")).task;
  assert.deepEqual(record().task, done);
  const path = join(fx.store.root, task.id, "task.json");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(join(fx.store.root, task.id)), ["task.json"]);
});

Deno.test("recoverTaskStore() adds back tasks a healthy but older tasks.db lacks", () => {
  using fx = openFixture();
  const first = makeTask({ meta: { createdAt: "2026-09-27T10:00:00Z" } });
  fx.store.insert(first);
  const path = closeClean(fx.store);
  const older = `${path}.old`;
  copyFileSync(path, older);
  const later = openTaskStore({ home: fx.home, clock: fx.clock });
  later.insert(makeTask({ meta: { createdAt: "2026-09-27T10:01:00Z" } }));
  fx.clock.set(new Date("2026-09-27T10:05:00Z"));
  later.update(first.id, (t) => withState(t, "TASK_STATE_COMPLETED"));
  closeClean(later);
  copyFileSync(older, path); // a backup put back: one task short, one settled state behind
  const report = recoverTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(report.state, "recovered");
  assert.match(report.problem ?? "", /1 task\(s\) in their folders are missing/);
  assert.match(report.problem ?? "", /1 task\(s\) are older in tasks\.db/);
  assert.equal(report.kept, 2);
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(store.list().total, 2);
  assert.equal(store.require(first.id).status.state, "TASK_STATE_COMPLETED");
  assert.equal(recoverTaskStore({ home: fx.home, clock: fx.clock }).state, "healthy");
});

Deno.test("openTaskStore() refuses a missing tasks.db beside a write-ahead log; recover keeps the log aside", () => {
  using fx = openFixture();
  fx.store.close();
  const path = join(fx.store.root, "tasks.db");
  for (const entry of readdirSync(fx.store.root)) rmSync(join(fx.store.root, entry));
  // A log header SQLite accepts, left behind by a database that is gone.
  const wal = new Uint8Array(32 + 24 + 4096);
  new DataView(wal.buffer).setUint32(0, 0x377f0682);
  new DataView(wal.buffer).setUint32(4, 3007000);
  writeFileSync(`${path}-wal`, wal);
  assert.throws(() => openTaskStore({ home: fx.home, clock: fx.clock }), (err) => {
    assert.ok(err instanceof ObservalError);
    assert.match(err.message, /is missing, but its write-ahead log remains/);
    return true;
  });
  assert.equal(existsSync(path), false, "no empty database beside the log");
  const report = recoverTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(report.state, "recovered");
  assert.equal(report.kept, 0);
  assert.deepEqual(report.movedAside, [
    join(fx.store.root, "tasks.db.damaged-20260927T100000Z-wal"),
  ]);
  assert.deepEqual(new Uint8Array(readFileSync(report.movedAside[0])), wal);
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(store.list().total, 0);
});

Deno.test("update() never overwrites a settled record with a row put back from an older copy", () => {
  using fx = openFixture();
  const task = makeTask();
  fx.store.insert(task);
  fx.store.update(task.id, (t) => withState(t, "TASK_STATE_WORKING"));
  const path = closeClean(fx.store);
  copyFileSync(path, `${path}.old`);
  const worker = openTaskStore({ home: fx.home, clock: fx.clock });
  const done = worker.update(task.id, (t) => ({
    ...withState(t, "TASK_STATE_COMPLETED"),
    artifacts: [{ artifactId: "result", parts: [{ text: "the answer" }] }],
  })).task;
  closeClean(worker);
  copyFileSync(`${path}.old`, path); // the row is WORKING again; the folder says COMPLETED
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  const late = store.update(task.id, (t) => withState(t, "TASK_STATE_FAILED"));
  assert.equal(late.changed, false);
  assert.deepEqual(late.task, done, "the settled state and its result are kept");
  assert.deepEqual(store.require(task.id), done);
  assert.equal(
    JSON.parse(readFileSync(join(store.root, task.id, "task.json"), "utf8")).task.status.state,
    "TASK_STATE_COMPLETED",
  );
});

Deno.test("prune() keeps an old folder whose record holds a running task the database lacks", () => {
  using fx = openFixture();
  const running = makeTask();
  const settled = makeTask();
  fx.store.insert(running);
  fx.store.insert(settled);
  fx.store.update(settled.id, (t) => withState(t, "TASK_STATE_COMPLETED"));
  const path = closeClean(fx.store);
  const db = new DatabaseSync(path);
  db.exec("DELETE FROM tasks"); // as a database put back from before either task
  db.close();
  const old = new Date("2026-09-01T00:00:00Z");
  for (const t of [running, settled]) utimesSync(join(fx.store.root, t.id), old, old);
  fx.clock.set(new Date("2026-12-01T00:00:00Z"));
  using store = openTaskStore({ home: fx.home, clock: fx.clock });
  const pruned = store.prune({ before: new Date("2026-11-01T00:00:00Z") });
  assert.equal(pruned.orphans, 1, "only the settled, old one goes");
  assert.ok(existsSync(join(store.root, running.id, "task.json")));
  assert.equal(existsSync(join(store.root, settled.id)), false);
  store.close();
  const report = recoverTaskStore({ home: fx.home, clock: fx.clock });
  assert.equal(report.kept, 1);
  using after = openTaskStore({ home: fx.home, clock: fx.clock });
  assert.deepEqual(after.require(running.id), running);
});
