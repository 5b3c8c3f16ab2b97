/**
 * `observal delegate run` running a remote task itself while it waits: no worker process
 * for a task that ends within the wait, and a worker that takes the task over, without
 * sending it again, when the wait ends first (its time is up, Ctrl-C, SIGTERM, a closed
 * terminal). Other processes see the running command as the task's worker through the
 * task folder's runner lock. The agent is a real @a2a-js/sdk 1.3.0 server on 127.0.0.1
 * that finishes only when the test opens its gate; the CLI runs as its own process.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { readPid, workerAlive } from "../../lib/delegation/mod.ts";
import { cli } from "../support/cli.ts";
import { playground } from "../support/delegation.ts";
import {
  assertStopHints,
  handlesSigint,
  reachedAgent,
  type Setup,
  setup,
  until,
} from "../support/gated_agent.ts";
import { spawnCli } from "../support/process.ts";

const dirOf = (s: { home: string }, id: string) => join(s.home, "delegations", id);

/** `delegate run AGENT BRIEF --json` as its own process, with extra arguments. */
function run(s: Setup, ...args: string[]) {
  return spawnCli(s.env, s.home, ["delegate", "run", s.identifier, "Build it", "--json", ...args]);
}

/** The task's worker now: a process other than `caller`, alive, that names the task. */
function assertWorkerTookOver(s: Setup, id: string, caller: number): number {
  const pid = readPid(dirOf(s, id));
  assert.ok(pid !== undefined && pid !== caller, `a worker, not the command (${pid})`);
  assert.ok(workerAlive(pid, id, dirOf(s, id)), "the worker runs");
  assert.match(readFileSync(`/proc/${pid}/cmdline`, "utf8"), new RegExp(`worker\0${id}`));
  return pid;
}

Deno.test("a task that ends within the wait is run by `run` itself: no worker, one send, no lock left", async () => {
  const s = await setup({ ask: false });
  try {
    s.agent.open();
    const caller = run(s, "--wait", "60");
    const ran = await caller.done;
    assert.equal(ran.code, 0, ran.stderr);
    const task = JSON.parse(ran.stdout) as Task;
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    assert.match(task.artifacts?.[0]?.parts[0]?.text ?? "", /^received /);
    const dir = dirOf(s, task.id);
    // The command recorded itself as the task's runner; no worker was started.
    assert.equal(readPid(dir), caller.pid);
    assert.equal(readFileSync(join(dir, "worker.log"), "utf8"), `task ${task.id} completed\n`);
    assert.ok(!existsSync(join(dir, "runner.lock")), "the runner lock is released");
    assert.equal(s.agent.received.length, 1, "the agent got the brief once");
  } finally {
    await s.close();
  }
});

Deno.test("the wait runs out while `run` runs the task: a worker takes it over without sending it again", async () => {
  const s = await setup({ ask: false });
  try {
    const caller = run(s, "--wait", "2");
    const ran = await caller.done;
    assert.equal(ran.code, 10, ran.stderr);
    const task = JSON.parse(ran.stdout) as Task;
    // The wait counts from the command's start. Usually the brief was sent by then and the
    // agent's task id saved; on a loaded machine the wait may end first: before the send,
    // or while it is under way. The state is then the agent's first (SUBMITTED or WORKING)
    // or ours ("Sent to", WORKING). Either way the worker takes over and the agent gets
    // the brief once.
    assert.ok(
      ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"].includes(task.status.state),
      `${task.status.state} (remote id ${task.metadata.observal.remoteTaskId})`,
    );
    assertWorkerTookOver(s, task.id, caller.pid);

    s.agent.open();
    const done = await s.json(["delegate", "status", task.id, "--wait", "60"]);
    assert.equal(done.body.status.state, "TASK_STATE_COMPLETED", JSON.stringify(done.body));
    assert.equal(s.agent.received.length, 1, "the brief was sent once");
    assert.equal(done.body.history?.filter((m) => m.role === "ROLE_USER").length, 1);
  } finally {
    await s.close();
  }
});

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  Deno.test(`${signal} while \`run\` runs the task: handed to a worker, exit 10 with the commands`, async () => {
    const s = await setup({ ask: false });
    try {
      const caller = run(s, "--wait", "600");
      const task = await reachedAgent(s);
      await handlesSigint(caller.pid);
      caller.kill(signal);
      const ran = await caller.done;
      assert.equal(ran.code, 10, ran.stderr);
      assertStopHints(ran.stderr, task.id);
      assertWorkerTookOver(s, task.id, caller.pid);

      s.agent.open();
      const done = await s.json(["delegate", "status", task.id, "--wait", "60"]);
      assert.equal(done.body.status.state, "TASK_STATE_COMPLETED");
      assert.equal(s.agent.received.length, 1, "the brief was sent once");
    } finally {
      await s.close();
    }
  });
}

Deno.test("Ctrl-C twice while the agent has not answered the send: quits at once, the task stopped by the user", async () => {
  const s = await setup({ ask: false, holdSend: true });
  try {
    const caller = run(s, "--wait", "600");
    await until(
      "the brief to reach the agent",
      () => Promise.resolve(s.agent.received.length === 1 ? true : undefined),
    );
    await handlesSigint(caller.pid);
    caller.kill("SIGINT");
    // The handover gives the send in flight a moment to be answered; a second Ctrl-C then
    // quits at once.
    await new Promise((r) => setTimeout(r, 100));
    const asked = performance.now();
    caller.kill("SIGINT");
    const ran = await caller.done;
    assert.ok(performance.now() - asked < 5000, "quit at once, not after the send's time limit");
    assert.equal(ran.code, 130, ran.stderr);
    assert.doesNotMatch(ran.stderr, /\n\s+at |Uncaught/, "no stack trace");
    // Recorded as the user's stop, not as a worker that died.
    const [task] = ((await s.json(["delegate", "list"])).body as unknown as { items: Task[] })
      .items;
    assert.match(
      ran.stderr,
      new RegExp(`Interrupted again: quitting now. Stopped task ${task.id}\\.`),
    );
    const seen = await s.json(["delegate", "status", task.id]);
    assert.equal(seen.body.status.state, "TASK_STATE_CANCELED");
    assert.match(seen.body.status.message?.parts[0]?.text ?? "", /Stopped by the user/);
  } finally {
    await s.close();
  }
});

Deno.test("while `run` runs the task other commands see it running; after kill -9 they fail it", async () => {
  const s = await setup({ ask: false });
  try {
    const caller = run(s, "--wait", "600");
    const task = await reachedAgent(s);
    const seen = await s.json(["delegate", "status", task.id]);
    assert.equal(seen.body.status.state, "TASK_STATE_WORKING", "its lock shows it alive");
    assert.equal(readPid(dirOf(s, task.id)), caller.pid);

    caller.kill("SIGKILL");
    await caller.done;
    const after = await s.json(["delegate", "status", task.id]);
    assert.equal(after.body.status.state, "TASK_STATE_FAILED");
    assert.match(after.body.status.message?.parts[0]?.text ?? "", /stopped unexpectedly/);
  } finally {
    await s.close();
  }
});

Deno.test("`delegate cancel` while `run` runs the task: the agent is told and `run` ends canceled", async () => {
  const s = await setup({ ask: false });
  try {
    const caller = run(s, "--wait", "600");
    const task = await reachedAgent(s);
    const canceled = await s.json(["delegate", "cancel", task.id]);
    assert.equal(canceled.body.status.state, "TASK_STATE_CANCELED", canceled.stderr);
    const ran = await caller.done;
    assert.equal(ran.code, 3, ran.stderr);
    assert.equal((JSON.parse(ran.stdout) as Task).status.state, "TASK_STATE_CANCELED");
    assert.deepEqual(s.agent.canceled, [task.metadata.observal.remoteTaskId]);
  } finally {
    await s.close();
  }
});

Deno.test("no worker can take the task over: exit 9, the task failed, and the agent told to stop", async () => {
  const s = await setup({ ask: false });
  try {
    // The launcher's spawn refuses an environment it cannot hand on (a NUL byte).
    const r = await cli(["delegate", "run", s.identifier, "Build it", "--wait", "2"], {
      env: { ...s.env, BROKEN: "a\0b" },
      cwd: s.home,
    });
    assert.equal(r.code, 9, r.stderr);
    assert.match(r.stderr, /^error: The delegation worker for task .* could not be started/);
    const [task] = ((await s.json(["delegate", "list"])).body as unknown as { items: Task[] })
      .items;
    assert.equal(task.status.state, "TASK_STATE_FAILED");
    // In process the brief is sent well within the wait, but a loaded machine may end the
    // wait first: then nothing reached the agent and there is nothing to cancel.
    const remoteId = task.metadata.observal.remoteTaskId;
    assert.deepEqual(s.agent.canceled, remoteId ? [remoteId] : []);
    assert.equal(s.agent.received.length, remoteId ? 1 : 0);
  } finally {
    await s.close();
  }
});

Deno.test("an agent whose card streams is run by a worker, as before", async () => {
  const pg = await playground({ behaviour: "complete", streaming: true });
  try {
    const caller = spawnCli(pg.env, pg.home, [
      "delegate",
      "run",
      pg.identifier,
      "Hi",
      "--wait",
      "60",
      "--json",
    ]);
    const ran = await caller.done;
    assert.equal(ran.code, 0, ran.stderr);
    const task = JSON.parse(ran.stdout) as Task;
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    const pid = readPid(dirOf(pg, task.id));
    assert.ok(pid !== undefined && pid !== caller.pid, "a worker ran it");
    // The worker settles the task first and writes its last log line after: read the log
    // once it has exited.
    const dir = dirOf(pg, task.id);
    for (let i = 0; i < 600 && workerAlive(pid, task.id, dir); i++) {
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.match(readFileSync(join(dir, "worker.log"), "utf8"), /completed/);
  } finally {
    await pg.close();
  }
});
