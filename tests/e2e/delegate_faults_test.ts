/** Faults: a killed worker, a worker that never starts, many delegations at once. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import type { Clock } from "../../lib/core/mod.ts";
import { playground } from "../support/delegation.ts";

Deno.test("kill -9 of the worker mid-task: the next status settles it as failed", async () => {
  const pg = await playground({ behaviour: "slow" });
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Long job", "--wait", "0"]);
    const id = String(r.body.id);
    let task: Task;
    for (let i = 0;; i++) {
      task = (await pg.json(["delegate", "status", id])).body as unknown as Task;
      if (task.metadata.observal.remoteTaskId) break;
      assert.ok(i < 100, "the worker reached the agent");
      await new Promise((res) => setTimeout(res, 100));
    }
    const pid = Number(readFileSync(join(pg.home, "delegations", id, "worker.pid"), "utf8"));
    Deno.kill(pid, "SIGKILL");
    for (let i = 0; i < 50; i++) {
      try {
        Deno.kill(pid, "SIGCONT");
        await new Promise((res) => setTimeout(res, 50));
      } catch {
        break;
      }
    }
    const after = await pg.json(["delegate", "status", id]);
    assert.equal(after.code, 3);
    const settled = after.body as unknown as Task;
    assert.equal(settled.status.state, "TASK_STATE_FAILED");
    assert.match(JSON.stringify(settled.status.message), /stopped unexpectedly/);
  } finally {
    await pg.close();
  }
});

Deno.test("a worker that never starts: failed once the grace period has passed", async () => {
  const pg = await playground();
  let now = Date.parse("2026-06-01T12:00:00Z");
  const clock: Clock = {
    now: () => new Date(now),
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
  };
  // A launcher that reports a start but never runs anything, as if the spawn was lost.
  const { service, store, close } = pg.service({ clock, launch: () => 0 });
  try {
    const id = randomUUID();
    store.insert({
      id,
      contextId: randomUUID(),
      status: { state: "TASK_STATE_SUBMITTED", timestamp: "2026-06-01T12:00:00Z" },
      history: [],
      metadata: {
        observal: {
          target: pg.identifier,
          kind: "a2a",
          depth: 0,
          chain: [],
          cwd: pg.home,
          createdAt: "2026-06-01T12:00:00Z",
        },
      },
    });
    now += 30_000;
    assert.equal(service.get(id).status.state, "TASK_STATE_SUBMITTED", "still within the grace");
    now += 31_000;
    const task = service.get(id);
    assert.equal(task.status.state, "TASK_STATE_FAILED");
    assert.match(JSON.stringify(task.status.message), /did not start within 60 seconds/);
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("20 concurrent delegations on one store all settle, none lost", async () => {
  const pg = await playground({ behaviour: "complete" });
  const { service, store, close } = pg.service();
  try {
    const tasks = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        service.start(pg.identifier, `job ${i}`, {
          caller: { depth: 0, maxDepth: 2, chain: [] },
          waitSeconds: 120,
        })),
    );
    assert.equal(new Set(tasks.map((t) => t.id)).size, 20);
    for (const t of tasks) {
      assert.equal(t.status.state, "TASK_STATE_COMPLETED", JSON.stringify(t.status));
    }
    const listed = store.list({ limit: 200 });
    assert.equal(listed.total, 20);
    assert.deepEqual(new Set(listed.items.map((t) => t.id)), new Set(tasks.map((t) => t.id)));
    const texts = tasks.map((t) => t.artifacts?.[0]?.parts[0]?.text).sort();
    assert.deepEqual(texts, Array.from({ length: 20 }, (_, i) => `echo:job ${i}`).sort());
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("one long-lived caller keeps seeing its store across many sequential delegations", async () => {
  // Regression: watching the store's own folder from the caller dropped SQLite's locks,
  // so an exiting worker deleted the live WAL and the next worker could not see its task.
  const pg = await playground({ behaviour: "complete" });
  const { service, close } = pg.service();
  try {
    for (let i = 0; i < 12; i++) {
      const task = await service.start(pg.identifier, `run ${i}`, {
        caller: { depth: 0, maxDepth: 2, chain: [] },
        waitSeconds: 60,
      });
      assert.equal(
        task.status.state,
        "TASK_STATE_COMPLETED",
        `run ${i}: ${JSON.stringify(task.status)}`,
      );
    }
  } finally {
    close();
    await pg.close();
  }
});
