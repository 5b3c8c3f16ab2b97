import assert from "node:assert/strict";
import { existsSync, mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { DatabaseSync } from "node:sqlite";
import type { Task } from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { MIGRATIONS } from "../../lib/store/_migrations.ts";
import { makeTask, openFixture, withState } from "./_helpers.ts";

function rawDoc(home: string, id: string): string | undefined {
  const db = new DatabaseSync(join(home, "delegations", "tasks.db"), { readOnly: true });
  try {
    const row = db.prepare("SELECT doc FROM tasks WHERE id = ?").get(id) as
      | { doc: string }
      | undefined;
    return row?.doc;
  } finally {
    db.close();
  }
}

function rowCount(home: string): number {
  const db = new DatabaseSync(join(home, "delegations", "tasks.db"), { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM tasks").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function isCode(code: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ObservalError, `expected an ObservalError, got ${err}`);
    assert.equal(err.code, code, err.message);
    return true;
  };
}

Deno.test("openTaskStore() keeps the database in <home>/delegations/tasks.db", () => {
  using fx = openFixture();
  assert.equal(fx.store.root, join(fx.home, "delegations"));
  assert.ok(existsSync(join(fx.store.root, "tasks.db")));
  if (process.platform !== "win32") assert.equal(statSync(fx.store.root).mode & 0o777, 0o700);
});

Deno.test("insert() then get() and require() return the same task", () => {
  using fx = openFixture();
  const task = makeTask({ meta: { notes: ["a note"] } });
  const stored = fx.store.insert(task);
  assert.deepEqual(stored, task);
  assert.deepEqual(fx.store.get(task.id), task);
  assert.deepEqual(fx.store.require(task.id), task);
});

Deno.test("insert() keeps fields the schema does not name", () => {
  using fx = openFixture();
  const task = { ...makeTask(), kind: "task", extra: { nested: [1, 2] } } as Task;
  fx.store.insert(task);
  assert.deepEqual(fx.store.get(task.id), task);
});

Deno.test("insert() refuses a duplicate id and keeps the first task", () => {
  using fx = openFixture();
  const first = fx.store.insert(makeTask());
  const second = makeTask({ id: first.id, state: "TASK_STATE_WORKING" });
  assert.throws(() => fx.store.insert(second), isCode("ALREADY_EXISTS"));
  assert.deepEqual(fx.store.get(first.id), first);
});

Deno.test("insert() refuses malformed tasks and writes nothing", () => {
  using fx = openFixture();
  const good = makeTask();
  const bad: [string, unknown][] = [
    ["id not a UUID", { ...good, id: "abc" }],
    ["upper-case id", { ...good, id: good.id.toUpperCase() }],
    ["unknown state", { ...good, status: { state: "TASK_STATE_DONE" } }],
    ["v0.3 state", { ...good, status: { state: "completed" } }],
    ["no metadata.observal", { ...good, metadata: {} }],
    ["parentTaskId not a UUID", makeTask({ meta: { parentTaskId: "../x" } })],
    ["empty childSessionId", makeTask({ meta: { childSessionId: "" } })],
    ["huge workspaceRoot", makeTask({ meta: { workspaceRoot: "w".repeat(4097) } })],
  ];
  for (const [label, task] of bad) {
    assert.throws(() => fx.store.insert(task as Task), isCode("INVALID_ARGUMENT"), label);
  }
  assert.equal(rowCount(fx.home), 0);
});

Deno.test("require() names the id and the next step when the task is missing", () => {
  using fx = openFixture();
  const id = crypto.randomUUID();
  assert.throws(() => fx.store.require(id), (err) => {
    assert.ok(err instanceof ObservalError);
    assert.equal(err.code, "NOT_FOUND");
    assert.match(err.message, new RegExp(id));
    assert.match(err.remediation ?? "", /observal delegate list/);
    return true;
  });
  assert.throws(() => fx.store.require("../../etc/passwd"), isCode("NOT_FOUND"));
});

Deno.test("update() writes the changed task and refreshes the indexed columns", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask());
  fx.clock.set(new Date("2026-09-27T11:00:00Z"));
  const result = fx.store.update(task.id, (t) => {
    t.status = { state: "TASK_STATE_WORKING" };
    t.metadata.observal.childSessionId = "session-1";
    t.metadata.observal.workspaceRoot = "/tmp/ws-1";
    return t;
  });
  assert.equal(result.changed, true);
  assert.equal(result.task.status.state, "TASK_STATE_WORKING");
  assert.deepEqual(fx.store.get(task.id), result.task);
  assert.equal(fx.store.findByChildSession("session-1")?.id, task.id);
  assert.equal(fx.store.findByWorkspace("/tmp/ws-1")?.id, task.id);

  fx.store.update(task.id, (t) => {
    delete t.metadata.observal.childSessionId;
    return t;
  });
  assert.equal(fx.store.findByChildSession("session-1"), undefined);
});

Deno.test("update() writes nothing when change returns undefined or an equal task", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask());
  const before = rawDoc(fx.home, task.id);
  assert.deepEqual(fx.store.update(task.id, () => undefined), { task, changed: false });
  assert.deepEqual(fx.store.update(task.id, (t) => t), { task, changed: false });
  assert.equal(rawDoc(fx.home, task.id), before);
});

Deno.test("update() never changes a settled task and does not call change", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask());
  fx.store.update(task.id, (t) => withState(t, "TASK_STATE_COMPLETED"));
  const settled = rawDoc(fx.home, task.id);
  let calls = 0;
  const result = fx.store.update(task.id, (t) => {
    calls++;
    return withState(t, "TASK_STATE_FAILED");
  });
  assert.equal(calls, 0);
  assert.equal(result.changed, false);
  assert.equal(result.task.status.state, "TASK_STATE_COMPLETED");
  assert.equal(rawDoc(fx.home, task.id), settled);
});

Deno.test("update() refuses a malformed result or a changed id and writes nothing", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask());
  const before = rawDoc(fx.home, task.id);
  const changes: [string, (t: Task) => Task][] = [
    ["other id", (t) => ({ ...t, id: crypto.randomUUID() })],
    ["bad state", (t) => ({ ...t, status: { state: "nope" } } as unknown as Task)],
    ["bad depth", (t) => {
      t.metadata.observal.depth = -1;
      return t;
    }],
  ];
  for (const [label, change] of changes) {
    assert.throws(() => fx.store.update(task.id, change), isCode("INVALID_ARGUMENT"), label);
  }
  assert.equal(rawDoc(fx.home, task.id), before);
  assert.equal(rowCount(fx.home), 1);
});

Deno.test("update() rolls back when change throws", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask());
  assert.throws(() =>
    fx.store.update(task.id, () => {
      throw new Error("boom");
    }), /boom/);
  // The transaction is closed again: the next write goes through.
  assert.equal(fx.store.update(task.id, (t) => withState(t, "TASK_STATE_WORKING")).changed, true);
});

Deno.test("update() refuses an unknown id", () => {
  using fx = openFixture();
  assert.throws(() => fx.store.update(crypto.randomUUID(), (t) => t), isCode("NOT_FOUND"));
  assert.throws(() => fx.store.update("abc", (t) => t), isCode("NOT_FOUND"));
});

Deno.test("list() returns tasks newest first, a page at a time, with the total", () => {
  using fx = openFixture();
  const ids: string[] = [];
  for (let i = 0; i < 25; i++) {
    // Pairs share a timestamp: ties go to the task inserted last.
    fx.clock.set(new Date(Date.UTC(2026, 8, 27, 10, 0, Math.floor(i / 2))));
    ids.push(fx.store.insert(makeTask()).id);
  }
  const newest = ids.toReversed();
  const first = fx.store.list();
  assert.equal(first.total, 25);
  assert.deepEqual(first.items.map((t) => t.id), newest.slice(0, 20));
  const rest = fx.store.list({ limit: 20, offset: 20 });
  assert.deepEqual(rest.items.map((t) => t.id), newest.slice(20));
  assert.equal(rest.total, 25);
  assert.deepEqual(
    fx.store.list({ limit: 3, offset: 4 }).items.map((t) => t.id),
    newest.slice(4, 7),
  );
  assert.deepEqual(fx.store.list({ offset: 100 }), { items: [], total: 25 });
});

Deno.test("list() orders by insertion even when updates come later", () => {
  using fx = openFixture();
  const a = fx.store.insert(makeTask());
  fx.clock.set(new Date("2026-09-27T10:01:00Z"));
  const b = fx.store.insert(makeTask());
  fx.clock.set(new Date("2026-09-27T10:02:00Z"));
  fx.store.update(a.id, (t) => withState(t, "TASK_STATE_WORKING"));
  assert.deepEqual(fx.store.list().items.map((t) => t.id), [b.id, a.id]);
});

Deno.test("list() refuses paging options out of range", () => {
  using fx = openFixture();
  for (const options of [{ limit: 0 }, { limit: 201 }, { limit: 2.5 }, { offset: -1 }]) {
    assert.throws(
      () => fx.store.list(options),
      isCode("INVALID_ARGUMENT"),
      JSON.stringify(options),
    );
  }
  assert.equal(fx.store.list({ limit: 200 }).total, 0);
});

Deno.test("countChildren() counts every task started under a parent, settled or not", () => {
  using fx = openFixture();
  const parent = fx.store.insert(makeTask());
  const other = crypto.randomUUID();
  for (let i = 0; i < 3; i++) fx.store.insert(makeTask({ meta: { parentTaskId: parent.id } }));
  fx.store.insert(makeTask({ meta: { parentTaskId: parent.id }, state: "TASK_STATE_FAILED" }));
  fx.store.insert(makeTask({ meta: { parentTaskId: other } }));
  assert.equal(fx.store.countChildren(parent.id), 4);
  assert.equal(fx.store.countChildren(other), 1);
  assert.equal(fx.store.countChildren(crypto.randomUUID()), 0);
  assert.equal(fx.store.countChildren("not-a-uuid"), 0);
});

Deno.test("findByChildSession() and findByWorkspace() return the newest match or undefined", () => {
  using fx = openFixture();
  const older = fx.store.insert(makeTask({ meta: { childSessionId: "s", workspaceRoot: "/w" } }));
  const newer = fx.store.insert(makeTask({ meta: { childSessionId: "s", workspaceRoot: "/w" } }));
  fx.store.insert(makeTask({ meta: { childSessionId: "t", workspaceRoot: "/v" } }));
  assert.equal(fx.store.findByChildSession("s")?.id, newer.id);
  assert.equal(fx.store.findByWorkspace("/w")?.id, newer.id);
  assert.notEqual(older.id, newer.id);
  assert.equal(fx.store.findByChildSession("missing"), undefined);
  assert.equal(fx.store.findByChildSession(""), undefined);
  assert.equal(fx.store.findByWorkspace("x".repeat(5000)), undefined);
});

Deno.test("requestCancel() sets a flag that clearCancel() removes", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask());
  assert.equal(fx.store.cancelRequested(task.id), false);
  fx.store.requestCancel(task.id);
  assert.equal(fx.store.cancelRequested(task.id), true);
  fx.store.clearCancel(task.id);
  assert.equal(fx.store.cancelRequested(task.id), false);
  assert.equal(fx.store.cancelRequested("abc"), false);
  assert.throws(() => fx.store.requestCancel(crypto.randomUUID()), isCode("NOT_FOUND"));
});

Deno.test("clearCancel() keeps a cancel's claim on a task that waits for input", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" }));
  fx.store.requestCancel(task.id);
  // The worker that asked the question ends after the claim and clears what it acted on.
  fx.store.clearCancel(task.id);
  assert.equal(fx.store.cancelRequested(task.id), true);
  const refused = fx.store.acceptReply(
    task.id,
    [{ text: "x" }],
    (t) => withState(t, "TASK_STATE_WORKING"),
  );
  assert.equal(refused.accepted, false);
});

Deno.test("requestCancel() leaves a settled task alone", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask({ state: "TASK_STATE_COMPLETED" }));
  fx.store.requestCancel(task.id);
  assert.equal(fx.store.cancelRequested(task.id), false);
});

Deno.test("takeReply() returns a pending reply once, as A2A parts", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" }));
  assert.equal(fx.store.takeReply(task.id), undefined);
  fx.store.putReply(task.id, [{ text: "first" }]);
  fx.store.putReply(task.id, [{ text: "use the second branch" }]);
  assert.deepEqual(fx.store.takeReply(task.id), [{ text: "use the second branch" }]);
  assert.equal(fx.store.takeReply(task.id), undefined);
  const parts = [{ text: "" }, { data: { approved: true, scope: ["build"] } }];
  fx.store.putReply(task.id, parts);
  assert.deepEqual(fx.store.takeReply(task.id), parts);
  assert.equal(fx.store.takeReply(task.id), undefined);
  assert.equal(fx.store.takeReply("abc"), undefined);
});

Deno.test("putReply() refuses unknown and settled tasks and empty replies", () => {
  using fx = openFixture();
  const settled = fx.store.insert(makeTask({ state: "TASK_STATE_CANCELED" }));
  const waiting = fx.store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" }));
  assert.throws(
    () => fx.store.putReply(settled.id, [{ text: "x" }]),
    isCode("FAILED_PRECONDITION"),
  );
  assert.throws(() => fx.store.putReply(crypto.randomUUID(), [{ text: "x" }]), isCode("NOT_FOUND"));
  assert.throws(() => fx.store.putReply(waiting.id, []), isCode("INVALID_ARGUMENT"));
  assert.equal(fx.store.takeReply(settled.id), undefined);
  assert.equal(fx.store.takeReply(waiting.id), undefined);
});

Deno.test("takeReply() reads a plain-text reply left by an older version as one text part", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" }));
  const db = new DatabaseSync(join(fx.store.root, "tasks.db"));
  db.prepare("UPDATE tasks SET pending_reply = ? WHERE id = ?").run("[not json", task.id);
  db.close();
  assert.deepEqual(fx.store.takeReply(task.id), [{ text: "[not json" }]);
});

Deno.test("openTaskStore() migrates a version 1 store: plain-text replies become text parts", () => {
  using fx = openFixture();
  fx.store.close();
  const home = join(fx.home, "old");
  const path = join(home, "delegations", "tasks.db");
  mkdirSync(join(home, "delegations"), { recursive: true });
  const task = makeTask({ state: "TASK_STATE_INPUT_REQUIRED" });
  const db = new DatabaseSync(path);
  db.exec(MIGRATIONS[0]);
  db.exec("PRAGMA user_version = 1");
  db.prepare(
    `INSERT INTO tasks (id, state, created_at, updated_at, pending_reply, doc)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(task.id, task.status.state, "t", "t", '[{"text":"looks like json"}]', JSON.stringify(task));
  db.close();
  using store = openTaskStore({ home, clock: fx.clock });
  // Stored as text before the migration, so it stays text even though it parses as JSON.
  assert.deepEqual(store.takeReply(task.id), [{ text: '[{"text":"looks like json"}]' }]);
  assert.equal(store.workerPid(task.id), null, "no worker recorded by the old version");
  assert.deepEqual(store.require(task.id), task);
});

Deno.test("acceptReply() resumes a waiting task and stores its reply in one step, once", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" }));
  fx.store.setWorkerPid(task.id, 4242);
  const resume = (t: Task) => withState(t, "TASK_STATE_WORKING");
  const first = fx.store.acceptReply(task.id, [{ text: "yes" }], resume);
  assert.equal(first.accepted, true);
  assert.equal(first.task.status.state, "TASK_STATE_WORKING");
  assert.equal(fx.store.workerPid(task.id), 0, "the previous worker is forgotten");
  const second = fx.store.acceptReply(task.id, [{ text: "no" }], resume);
  assert.deepEqual(second, { accepted: false, reason: "not-waiting", task: first.task });
  assert.deepEqual(fx.store.takeReply(task.id), [{ text: "yes" }]);
});

Deno.test("acceptReply() refuses a reply once a cancel claimed the question, or the task settled", () => {
  using fx = openFixture();
  const resume = (t: Task) => withState(t, "TASK_STATE_WORKING");
  const waiting = fx.store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" }));
  const seen = fx.store.requestCancel(waiting.id);
  assert.equal(seen.status.state, "TASK_STATE_INPUT_REQUIRED");
  const canceling = fx.store.acceptReply(waiting.id, [{ text: "late" }], resume);
  assert.equal(canceling.accepted, false);
  assert.equal(!canceling.accepted && canceling.reason, "canceling");
  const settled = fx.store.insert(makeTask({ state: "TASK_STATE_CANCELED" }));
  const done = fx.store.acceptReply(settled.id, [{ text: "late" }], resume);
  assert.equal(!done.accepted && done.reason, "settled");
  for (const id of [waiting.id, settled.id]) assert.equal(fx.store.takeReply(id), undefined);
  assert.throws(
    () => fx.store.acceptReply(crypto.randomUUID(), [{ text: "x" }], resume),
    isCode("NOT_FOUND"),
  );
});

Deno.test("acceptReply() refuses a resume that leaves the task waiting, and writes nothing", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" }));
  assert.throws(
    () => fx.store.acceptReply(task.id, [{ text: "x" }], (t) => t),
    isCode("INVALID_ARGUMENT"),
  );
  assert.throws(
    () => fx.store.acceptReply(task.id, [], (t) => withState(t, "TASK_STATE_WORKING")),
    isCode("INVALID_ARGUMENT"),
  );
  assert.deepEqual(fx.store.require(task.id), task);
  assert.equal(fx.store.takeReply(task.id), undefined);
});

Deno.test("setWorkerPid() and workerPid(): 0 while a worker starts, then its pid", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask());
  assert.equal(fx.store.workerPid(task.id), 0);
  fx.store.setWorkerPid(task.id, -1);
  fx.store.setWorkerPid(task.id, 1.5);
  assert.equal(fx.store.workerPid(task.id), 0, "only whole positive pids are recorded");
  fx.store.setWorkerPid(task.id, 31337);
  assert.equal(fx.store.workerPid(task.id), 31337);
  assert.equal(fx.store.workerPid(crypto.randomUUID()), null);
  assert.equal(fx.store.workerPid("../x"), null);
});

Deno.test("taskDir() gives <root>/<id>, created with mode 0700 only when asked", () => {
  using fx = openFixture();
  const id = crypto.randomUUID();
  const dir = fx.store.taskDir(id);
  assert.equal(dir, join(fx.store.root, id));
  assert.equal(existsSync(dir), false);
  assert.equal(fx.store.taskDir(id, { create: true }), dir);
  assert.ok(statSync(dir).isDirectory());
  if (process.platform !== "win32") assert.equal(statSync(dir).mode & 0o777, 0o700);
});

Deno.test("prune() removes only settled tasks last updated before the date, with folders", () => {
  using fx = openFixture();
  const oldDone = fx.store.insert(makeTask({ state: "TASK_STATE_COMPLETED" }));
  const oldFailed = fx.store.insert(makeTask());
  fx.store.update(oldFailed.id, (t) => withState(t, "TASK_STATE_FAILED"));
  const oldRunning = fx.store.insert(makeTask({ state: "TASK_STATE_WORKING" }));
  const oldWaiting = fx.store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" }));
  const revived = fx.store.insert(makeTask({ state: "TASK_STATE_WORKING" }));
  fx.clock.set(new Date("2026-10-27T10:00:00Z"));
  fx.store.update(revived.id, (t) => withState(t, "TASK_STATE_COMPLETED"));
  const newDone = fx.store.insert(makeTask({ state: "TASK_STATE_REJECTED" }));
  const all = [oldDone, oldFailed, oldRunning, oldWaiting, revived, newDone];
  for (const t of all) fx.store.taskDir(t.id, { create: true });

  const { removed } = fx.store.prune({ before: new Date("2026-10-01T00:00:00Z") });
  assert.equal(removed, 2);
  const gone = [oldDone.id, oldFailed.id];
  for (const t of all) {
    const expectGone = gone.includes(t.id);
    assert.equal(fx.store.get(t.id) === undefined, expectGone, t.id);
    assert.equal(existsSync(join(fx.store.root, t.id)), !expectGone, t.id);
  }
  assert.equal(fx.store.list().total, 4);
  assert.deepEqual(fx.store.prune({ before: new Date("2026-10-01T00:00:00Z") }), {
    removed: 0,
    orphans: 0,
  });
  assert.throws(() => fx.store.prune({ before: new Date("nope") }), isCode("INVALID_ARGUMENT"));
});

Deno.test("openTaskStore() on the same home shares tasks, flags and replies", () => {
  using fx = openFixture();
  const task = fx.store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" }));
  using second = openTaskStore({ home: fx.home, clock: fx.clock });
  second.requestCancel(task.id);
  second.putReply(task.id, [{ text: "hello" }]);
  assert.deepEqual(second.get(task.id), task);
  assert.equal(fx.store.cancelRequested(task.id), true);
  assert.deepEqual(fx.store.takeReply(task.id), [{ text: "hello" }]);
  assert.equal(second.takeReply(task.id), undefined);
});

Deno.test("openTaskStore() says where and what to check when the store cannot be opened", () => {
  using fx = openFixture();
  // A file where the home folder should be.
  const home = join(fx.home, "not-a-folder");
  writeFileSync(home, "");
  assert.throws(() => openTaskStore({ home, clock: fx.clock }), (err) => {
    assert.ok(err instanceof ObservalError);
    assert.equal(err.code, "UNAVAILABLE");
    assert.equal(err.resource, join(home, "delegations", "tasks.db"));
    assert.match(err.remediation ?? "", /OBSERVAL_HOME/);
    return true;
  });
});

Deno.test("prune() removes task folders no stored task owns, never young ones or other folders", () => {
  using fx = openFixture();
  const kept = fx.store.insert(makeTask({ state: "TASK_STATE_WORKING" }));
  const keptDir = fx.store.taskDir(kept.id, { create: true });
  const orphan = join(fx.store.root, crypto.randomUUID());
  const young = join(fx.store.root, crypto.randomUUID());
  const notTasks = ["ws", "sessions", "ABCDEF00-0000-4000-8000-000000000000"].map((name) =>
    join(fx.store.root, name)
  );
  for (const dir of [orphan, young, ...notTasks]) {
    mkdirSync(join(dir, "inner"), { recursive: true });
  }
  writeFileSync(join(orphan, "worker.log"), "old log");
  // Everything is older than the cut-off except `young`, made just now (the clock says so).
  const old = new Date(Date.now() - 86_400_000);
  for (const dir of [keptDir, orphan, ...notTasks]) utimesSync(dir, old, old);
  fx.clock.set(new Date(Date.now()));
  const out = fx.store.prune({ before: fx.clock.now() });
  assert.deepEqual(out, { removed: 0, orphans: 1 });
  assert.equal(existsSync(orphan), false);
  for (const dir of [keptDir, young, ...notTasks]) assert.ok(existsSync(dir), dir);
});

Deno.test("openTaskStore() names the file and the recovery command when tasks.db is garbage", () => {
  using fx = openFixture();
  fx.store.close();
  const path = join(fx.store.root, "tasks.db");
  writeFileSync(path, "this is not a database ".repeat(1000));
  assert.throws(() => openTaskStore({ home: fx.home, clock: fx.clock }), (err) => {
    assert.ok(err instanceof ObservalError);
    assert.equal(err.code, "UNAVAILABLE");
    assert.equal(err.resource, path);
    assert.match(err.message, new RegExp(`task store ${path} is damaged`));
    assert.match(err.remediation ?? "", /observal delegate recover/);
    return true;
  });
});

Deno.test("openTaskStore() refuses a write-ahead log that is garbage rather than drop it", () => {
  using fx = openFixture();
  fx.store.insert(makeTask());
  fx.store.close();
  const wal = join(fx.store.root, "tasks.db-wal");
  writeFileSync(wal, crypto.getRandomValues(new Uint8Array(8192)));
  assert.throws(() => openTaskStore({ home: fx.home, clock: fx.clock }), (err) => {
    assert.ok(err instanceof ObservalError);
    assert.equal(err.resource, wal);
    assert.match(err.message, /write-ahead log/);
    assert.match(err.remediation ?? "", /observal delegate recover/);
    return true;
  });
});

Deno.test("TaskStore reports a page damaged after it was opened, naming the file", () => {
  using fx = openFixture();
  for (let i = 0; i < 200; i++) fx.store.insert(makeTask({ meta: { notes: ["x".repeat(500)] } }));
  // Rewrite the file under the open store: every page after the schema becomes garbage.
  const path = join(fx.store.root, "tasks.db");
  const db = new DatabaseSync(path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  const bytes = Deno.readFileSync(path);
  bytes.fill(0xa5, 4096);
  Deno.writeFileSync(path, bytes);
  assert.throws(() => fx.store.list({ limit: 200 }), (err) => {
    assert.ok(err instanceof ObservalError, String(err));
    assert.equal(err.resource, path);
    assert.match(err.message, /is damaged \(database disk image is malformed\)/);
    return true;
  });
});

Deno.test("forgetChild() clears the child's pid and start time, also on a settled task", () => {
  using fx = openFixture();
  const task = makeTask({
    state: "TASK_STATE_FAILED",
    meta: { childPid: 4242, childStartTime: "linux:b:1", notes: ["kept"] },
  });
  fx.store.insert(task);
  // update() leaves a settled task alone; forgetChild() is the one way to drop the pid.
  fx.store.update(
    task.id,
    (t) => ({ ...t, metadata: { observal: { ...t.metadata.observal, childPid: 1 } } }),
  );
  assert.equal(fx.store.require(task.id).metadata.observal.childPid, 4242);
  fx.store.forgetChild(task.id);
  const meta = fx.store.require(task.id).metadata.observal;
  assert.equal(meta.childPid, undefined);
  assert.equal(meta.childStartTime, undefined);
  assert.deepEqual(meta.notes, ["kept"]);
  fx.store.forgetChild(task.id); // nothing left to forget: no error
  assert.throws(() => fx.store.forgetChild(crypto.randomUUID()), /No delegated task/);
});
