/** Faults: a killed worker, a worker that never starts, many delegations at once. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { type Clock, createContext } from "../../lib/core/mod.ts";
import { detachedLauncher } from "../../lib/delegation/mod.ts";
import { playground } from "../support/delegation.ts";

Deno.test("kill -9 of the worker mid-task: the next status settles it as failed", async () => {
  const pg = await playground({ behaviour: "slow" });
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Long job", "--wait", "0"]);
    const id = String(r.body.id);
    await pg.untilRemote(id);
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
      // A failure names the worker's log; its text is what tells why.
      const log = t.metadata?.observal?.logPath;
      const why = typeof log === "string" ? readFileSync(log, "utf8").slice(-4000) : "";
      assert.equal(t.status.state, "TASK_STATE_COMPLETED", `${JSON.stringify(t.status)}\n${why}`);
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

Deno.test("a cancel that arrives before the worker's first send is honoured; nothing is sent", async () => {
  const pg = await playground({ behaviour: "complete" });
  const ctx = createContext({ env: pg.env, cwd: pg.home });
  const realLaunch = detachedLauncher(ctx);
  const { service, store, close } = pg.service({
    launch: (taskId, dir, perms) => {
      store.requestCancel(taskId);
      return realLaunch(taskId, dir, perms);
    },
  });
  try {
    const task = await service.start(pg.identifier, "Never mind", {
      caller: { depth: 0, maxDepth: 2, chain: [] },
      waitSeconds: 60,
    });
    assert.equal(task.status.state, "TASK_STATE_CANCELED");
    assert.equal(pg.agent.requests.filter((q) => q.rpcMethod).length, 0);
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("canceling a task that waits for input after approval was withdrawn does not call the agent", async () => {
  const pg = await playground({ behaviour: "input" });
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Notes", "--wait", "60"]);
    assert.equal((r.body as unknown as Task).status.state, "TASK_STATE_INPUT_REQUIRED");
    const admin = pg.registry();
    try {
      await admin.reviewImport(pg.identifier, { action: "reject", reason: "withdrawn" });
    } finally {
      admin.close();
    }
    const before = pg.agent.requests.length;
    const c = await pg.json(["delegate", "cancel", String(r.body.id)]);
    const task = c.body as unknown as Task;
    assert.equal(task.status.state, "TASK_STATE_CANCELED");
    assert.match(JSON.stringify(task.status.message), /not told/);
    assert.equal(
      pg.agent.requests.length,
      before,
      "no request, and so no token, reached the agent",
    );
  } finally {
    await pg.close();
  }
});
