import assert from "node:assert/strict";
import { Task } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { TaskMemory } from "../../lib/agent_server/mod.ts";

function task(id: string, state: string): Task {
  return Task.fromJSON({
    id,
    contextId: "c",
    status: {
      state,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, Number(id.slice(1)) % 60)).toISOString(),
    },
  });
}

Deno.test("TaskMemory forgets the oldest ended tasks past its bound, never a running one", async () => {
  const memory = new TaskMemory({ max: 100 });
  const context = new ServerCallContext();
  await memory.save(task("t0", "TASK_STATE_WORKING"), context);
  for (let i = 1; i <= 250; i++) await memory.save(task(`t${i}`, "TASK_STATE_COMPLETED"), context);
  assert.ok(memory.size <= 100, `${memory.size} kept`);
  // The running task is the oldest, and is kept; the oldest ended ones are gone.
  assert.equal((await memory.load("t0", context))?.id, "t0");
  assert.equal(await memory.load("t1", context), undefined);
  assert.equal((await memory.load("t250", context))?.id, "t250");
  const listed = await memory.list(
    {
      tenant: "",
      contextId: "c",
      status: 0,
      pageSize: 100,
      pageToken: "",
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    },
    context,
  );
  assert.equal(listed.totalSize, memory.size);
  // A task saved again (its next state) moves to the newest end.
  await memory.save(task("t0", "TASK_STATE_COMPLETED"), context);
  for (let i = 251; i <= 400; i++) {
    await memory.save(task(`t${i}`, "TASK_STATE_COMPLETED"), context);
  }
  assert.equal(await memory.load("t0", context), undefined);
});

Deno.test("TaskMemory forgets a task that ended longer ago than its time to live, and only such", async () => {
  let now = 0;
  const memory = new TaskMemory({ max: 100, ttlMs: 60_000, now: () => now });
  const context = new ServerCallContext();
  await memory.save(task("t1", "TASK_STATE_COMPLETED"), context);
  await memory.save(task("t2", "TASK_STATE_WORKING"), context);
  now = 30_000;
  await memory.save(task("t3", "TASK_STATE_FAILED"), context);
  now = 60_001;
  // t1 ended 60.001 s ago; t3 30 s ago; t2 runs (its age does not count).
  assert.equal(await memory.load("t1", context), undefined);
  assert.equal((await memory.load("t2", context))?.id, "t2");
  assert.equal((await memory.load("t3", context))?.id, "t3");
  // Saved again once ended, a task keeps the time it ended.
  await memory.save(task("t3", "TASK_STATE_FAILED"), context);
  now = 90_001;
  assert.equal(await memory.load("t3", context), undefined);
  // A task that ends late is timed from its end.
  await memory.save(task("t2", "TASK_STATE_CANCELED"), context);
  now = 150_000;
  assert.equal((await memory.load("t2", context))?.id, "t2");
  now = 150_002;
  assert.equal(await memory.load("t2", context), undefined);
  assert.equal(memory.size, 0);
});

Deno.test("TaskMemory.settled waits for a task to end or be interrupted, or for its signal", async () => {
  const memory = new TaskMemory();
  const context = new ServerCallContext();
  const never = new AbortController().signal;
  const waitFor = (id: string, signal = never) => {
    let done = false;
    const settled = memory.settled(id, signal).then(() => done = true);
    return { settled, done: () => done };
  };
  // Unknown, or settled already: at once.
  await memory.settled("nobody", never);
  await memory.save(task("t1", "TASK_STATE_WORKING"), context);
  const ends = waitFor("t1");
  const twice = waitFor("t1");
  await memory.save(task("t1", "TASK_STATE_WORKING"), context);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(ends.done(), false, "a WORKING save does not wake it");
  await memory.save(task("t1", "TASK_STATE_COMPLETED"), context);
  await Promise.all([ends.settled, twice.settled]);
  await memory.settled("t1", never);

  await memory.save(task("t2", "TASK_STATE_SUBMITTED"), context);
  const asks = waitFor("t2");
  await memory.save(task("t2", "TASK_STATE_INPUT_REQUIRED"), context);
  await asks.settled;

  await memory.save(task("t3", "TASK_STATE_WORKING"), context);
  const stop = new AbortController();
  const given = waitFor("t3", stop.signal);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(given.done(), false);
  stop.abort();
  await given.settled;
  assert.equal(memory.isRunning("t3"), true, "the task itself runs on");
  assert.equal(memory.isRunning("t3", context), true, "for its own caller");
  const other = new ServerCallContext({ user: { isAuthenticated: true, userName: "bob" } });
  assert.equal(memory.isRunning("t3", other), false, "not for another");
  await memory.settled("t3", stop.signal);
});
