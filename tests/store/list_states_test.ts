/** `TaskStore.list({ states })`: filtered from an index, newest first, with exact totals. */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Task, TaskState } from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { MIGRATIONS } from "../../lib/store/_migrations.ts";
import { type Fixture, makeTask, openFixture, withState } from "./_helpers.ts";

const STATES: TaskState[] = [
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
];

/** Inserts `n` tasks, one second apart, cycling through STATES; returns them oldest first. */
function fill(fx: Fixture, n: number): Task[] {
  const start = fx.clock.now().getTime();
  const tasks: Task[] = [];
  for (let i = 0; i < n; i++) {
    fx.clock.set(new Date(start + i * 1000));
    tasks.push(fx.store.insert(makeTask({ state: STATES[i % STATES.length] })));
  }
  return tasks;
}

/** How many rows of each state the table really holds. */
function counted(fx: Fixture, state: TaskState): number {
  const db = new DatabaseSync(fx.store.path, { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM tasks WHERE state = ?").get(state) as {
      n: number;
    }).n;
  } finally {
    db.close();
  }
}

Deno.test("list() with states pages through the matching tasks newest first", () => {
  using fx = openFixture();
  const tasks = fill(fx, 37);
  const newest = tasks.toReversed();
  const cases: Array<{ states: TaskState[]; limit: number; offset: number }> = [
    { states: ["TASK_STATE_WORKING"], limit: 20, offset: 0 },
    { states: ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED"], limit: 5, offset: 0 },
    { states: ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED"], limit: 5, offset: 5 },
    { states: ["TASK_STATE_FAILED", "TASK_STATE_FAILED"], limit: 3, offset: 2 },
    { states: STATES, limit: 200, offset: 0 },
    { states: ["TASK_STATE_CANCELED"], limit: 20, offset: 0 },
    { states: ["TASK_STATE_INPUT_REQUIRED"], limit: 20, offset: 50 },
  ];
  for (const { states, limit, offset } of cases) {
    const label = `${states.join(",")} limit ${limit} offset ${offset}`;
    const matching = newest.filter((t) => states.includes(t.status.state));
    const page = fx.store.list({ states, limit, offset });
    assert.deepEqual(
      page.items.map((t) => t.id),
      matching.slice(offset, offset + limit).map((t) => t.id),
      label,
    );
    assert.equal(page.total, matching.length, label);
  }
});

Deno.test("list() keeps its totals exact through inserts, state changes and prunes", () => {
  using fx = openFixture();
  const tasks = fill(fx, 12);
  const check = (label: string) => {
    for (const state of [...STATES, "TASK_STATE_CANCELED" as const]) {
      assert.equal(
        fx.store.list({ states: [state] }).total,
        counted(fx, state),
        `${label}: ${state}`,
      );
    }
    assert.equal(
      fx.store.list().total,
      fx.store.list({ states: [...STATES, "TASK_STATE_CANCELED"] }).total,
    );
  };
  check("after inserts");
  const working = tasks.filter((t) => t.status.state === "TASK_STATE_WORKING");
  for (const t of working) fx.store.update(t.id, (x) => withState(x, "TASK_STATE_CANCELED"));
  // An update that keeps the state must not count the task twice.
  const waiting = tasks.find((t) => t.status.state === "TASK_STATE_INPUT_REQUIRED")!;
  fx.store.update(waiting.id, (x) => ({ ...x, history: [] }));
  check("after updates");
  fx.clock.set(new Date("2030-01-01T00:00:00Z"));
  const { removed } = fx.store.prune({ before: new Date("2029-01-01T00:00:00Z") });
  assert.ok(removed > 0);
  check("after prune");
  assert.equal(fx.store.list().total, 12 - removed);
});

Deno.test("list() refuses a state that is not a task state", () => {
  using fx = openFixture();
  assert.throws(
    () => fx.store.list({ states: ["done" as TaskState] }),
    (e) =>
      e instanceof ObservalError && e.code === "INVALID_ARGUMENT" &&
      /TASK_STATE_WORKING/.test(e.remediation ?? ""),
  );
  assert.throws(() => fx.store.list({ states: [] }), ObservalError);
});

Deno.test("openTaskStore() counts the tasks of a version 3 store by state when it migrates it", () => {
  using fx = openFixture();
  const home = join(fx.home, "old");
  mkdirSync(join(home, "delegations"), { recursive: true });
  const db = new DatabaseSync(join(home, "delegations", "tasks.db"));
  for (const m of MIGRATIONS.slice(0, 3)) db.exec(m);
  db.exec("PRAGMA user_version = 3");
  const insert = db.prepare(
    "INSERT INTO tasks (id, state, created_at, updated_at, doc) VALUES (?, ?, ?, ?, ?)",
  );
  for (let i = 0; i < 7; i++) {
    const task = makeTask({ state: i < 5 ? "TASK_STATE_COMPLETED" : "TASK_STATE_FAILED" });
    insert.run(task.id, task.status.state, `2026-09-27T10:00:0${i}Z`, "t", JSON.stringify(task));
  }
  db.close();
  using store = openTaskStore({ home, clock: fx.clock });
  assert.equal(store.list().total, 7);
  assert.equal(store.list({ states: ["TASK_STATE_COMPLETED"] }).total, 5);
  assert.equal(store.list({ states: ["TASK_STATE_FAILED"] }).items.length, 2);
});
