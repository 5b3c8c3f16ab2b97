/**
 * `observal delegate run` running a registry Agent's task itself while it waits: one
 * process for a task that ends within the wait, and a worker that follows the very same
 * child (never a second one) when the wait ends first (its time is up, Ctrl-C). A kill -9
 * of the command, or a cancel, leaves no child and no copy behind. The CLI runs as its own
 * process from the caller's repository; the harness is a stand-in that waits for a gate
 * file, so each step is reached on purpose, not by timing.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { readPid, workerAlive } from "../../lib/delegation/mod.ts";
import { pidExists } from "../../lib/process/mod.ts";
import { handlesSigint, until } from "../support/gated_agent.ts";
import { interruptTwice, slowCopy } from "../support/interrupt_twice.ts";
import {
  agentYaml,
  countingClaude,
  type LocalPlayground,
  localPlayground,
  MCP_CALLING_CLAUDE,
  publishApproved,
  waitFor,
} from "../support/local_delegation.ts";
import { MAIN, spawnCli } from "../support/process.ts";

interface Setup extends LocalPlayground {
  gate: string;
  starts: string;
  dir(id: string): string;
  /** The environment `run` gives the command (the stand-in's gate and start log). */
  runEnv: Record<string, string | undefined>;
  /** `delegate run AGENT --json ...args -- BRIEF`, as arguments. */
  runArgs(...args: string[]): string[];
  /** `delegate run AGENT --json ...args -- BRIEF` as its own process, from the repository. */
  run(...args: string[]): ReturnType<typeof spawnCli>;
  /** The pids the stand-in was started with, in order. */
  started(): number[];
  workspaces(): string[];
}

/**
 * The playground, without a sandbox unless asked. The stand-in notes its starts in Claude
 * Code's own state folder, the place in its home a sandbox leaves writable.
 */
async function setup(sandbox: "on" | "off" = "off"): Promise<Setup> {
  const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: sandbox } });
  pg.program("claude", countingClaude({ gated: true }));
  const gate = join(pg.root, "gate");
  mkdirSync(join(pg.root, ".claude"), { recursive: true });
  const starts = join(pg.root, ".claude", "starts");
  const env = { ...pg.env, GATE: gate, STARTS: starts };
  const runArgs = (...args: string[]) => [
    "delegate",
    "run",
    pg.identifier,
    "--harness",
    "claude-code",
    "--json",
    ...args,
    "--",
    "Edit it",
  ];
  return Object.assign(pg, {
    gate,
    starts,
    dir: (id: string) => join(pg.home, "delegations", id),
    runEnv: env,
    runArgs,
    run: (...args: string[]) => spawnCli(env, pg.repo, runArgs(...args)),
    started: () =>
      existsSync(starts)
        ? readFileSync(starts, "utf8").trim().split("\n").filter(Boolean).map(Number)
        : [],
    workspaces: () => {
      const ws = join(pg.home, "delegations", "ws");
      return existsSync(ws) ? readdirSync(ws) : [];
    },
  });
}

/**
 * The newest task, once its child has started and the runner has recorded it (on a busy
 * machine the child may start well before its runner notes it).
 */
async function childStarted(s: Setup): Promise<{ task: Task; child: number }> {
  const child = await until("the child to start", () => Promise.resolve(s.started()[0]));
  const task = await until("the child to be recorded", async () => {
    const list = await s.json(["delegate", "list"]);
    const [t] = (list.body as unknown as { items: Task[] }).items;
    return t?.metadata.observal.childStartTime ? t : undefined;
  });
  return { task, child };
}

/** The task's worker now: a process other than `caller`, alive, that names the task. */
function assertWorkerTookOver(s: Setup, id: string, caller: number): void {
  const pid = readPid(s.dir(id));
  assert.ok(pid !== undefined && pid !== caller, `a worker, not the command (${pid})`);
  assert.ok(workerAlive(pid, id, s.dir(id)), "the worker runs");
  assert.match(readFileSync(`/proc/${pid}/cmdline`, "utf8"), new RegExp(`worker\0${id}`));
}

/** Waits for the task to settle and checks it ended with the stand-in's one edit. */
async function assertCompletedOnce(s: Setup, id: string): Promise<void> {
  const done = await s.json(["delegate", "status", id, "--wait", "60"]);
  const task = done.body as unknown as Task;
  assert.equal(task.status.state, "TASK_STATE_COMPLETED", JSON.stringify(task.status));
  assert.equal(s.started().length, 1, "the child ran once");
  const patch = readFileSync(join(s.dir(id), "changes.patch"), "utf8");
  assert.match(patch, /^\+four$/m);
  assert.ok(!existsSync(join(s.dir(id), "child.json")), "the handover record is gone");
  assert.deepEqual(s.workspaces(), [], "the copy is removed");
  assert.equal(s.git("status", "--porcelain"), "", "the caller's repository is untouched");
}

Deno.test("a local task that ends within the wait is run by `run` itself: no worker, no lock left", async () => {
  const s = await setup();
  try {
    writeFileSync(s.gate, "");
    const caller = s.run("--wait", "60");
    const ran = await caller.done;
    assert.equal(ran.code, 0, ran.stderr);
    const task = JSON.parse(ran.stdout) as Task;
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    const dir = s.dir(task.id);
    assert.equal(readPid(dir), caller.pid, "the command recorded itself as the runner");
    assert.equal(readFileSync(join(dir, "worker.log"), "utf8"), `task ${task.id} completed\n`);
    assert.ok(!existsSync(join(dir, "runner.lock")), "the runner lock is released");
    await assertCompletedOnce(s, task.id);
  } finally {
    await s.close();
  }
});

Deno.test("Ctrl-C while `run` runs the child: a worker follows the same child, which finishes", async () => {
  const s = await setup();
  try {
    const caller = s.run("--wait", "600");
    const { task, child } = await childStarted(s);
    await handlesSigint(caller.pid);
    caller.kill("SIGINT");
    const ran = await caller.done;
    assert.equal(ran.code, 10, ran.stderr);
    assert.match(ran.stderr, new RegExp(`Task ${task.id} keeps running`));
    assertWorkerTookOver(s, task.id, caller.pid);
    assert.ok(pidExists(child), "the child runs on after the command exited");
    assert.match(readFileSync(join(s.dir(task.id), "worker.log"), "utf8"), /handed over/);

    writeFileSync(s.gate, "");
    await assertCompletedOnce(s, task.id);
  } finally {
    await s.close();
  }
});

/** `run` started in a sandbox, its child running, then Ctrl-C: a worker takes the child over. */
async function handOverInSandbox(s: Setup): Promise<Task> {
  const caller = s.run("--wait", "600");
  const { task } = await childStarted(s);
  assert.equal(task.metadata.observal.sandbox, "bwrap");
  await handlesSigint(caller.pid);
  caller.kill("SIGINT");
  const ran = await caller.done;
  assert.equal(ran.code, 10, ran.stderr);
  assertWorkerTookOver(s, task.id, caller.pid);
  return task;
}

Deno.test("in its sandbox the agent delegates through the entry written for it, also once a worker took its run over", async () => {
  const s = await setup("on");
  try {
    s.program("claude", MCP_CALLING_CLAUDE);
    // An agent for the child to find.
    const { identifier } = await publishApproved(
      s.env,
      s.repo,
      agentYaml("helper").replace("Fixes small things", "Fixes small things too"),
    );
    const task = await handOverInSandbox(s);

    // Only now does the child start its server: the worker's broker answers it.
    writeFileSync(s.gate, "");
    const done = (await s.json(["delegate", "status", task.id, "--wait", "60"]))
      .body as unknown as Task;
    const result = done.artifacts?.find((a) => a.name === "result")?.parts[0].text ?? "";
    assert.equal(done.status.state, "TASK_STATE_COMPLETED", `${JSON.stringify(done.status)}`);
    assert.ok(result.includes(identifier), result);
    // The server the child reached logged to the task's folder, beside its harness.
    const logs = (await s.json(["delegate", "logs", task.id])).body as unknown as {
      items: Array<{ name: string; tail: string }>;
    };
    assert.match(logs.items.find((l) => l.name === "agents")?.tail ?? "", /observal-agents: /);
    assert.deepEqual(s.workspaces(), [], "the copy is removed");
    assert.ok(
      !existsSync(join(s.dir(task.id), "agents.sock")),
      readFileSync(join(s.dir(task.id), "worker.log"), "utf8"),
    );
  } finally {
    await s.close();
  }
});

/**
 * `delegate run` in its own process group, as a shell's job is (the terminal signals all
 * of it), once it handles Ctrl-C and its task is being prepared.
 */
async function runAsJob(s: Setup): Promise<{ caller: Deno.ChildProcess; task: Task }> {
  const caller = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...s.runArgs("--wait", "600")],
    env: s.runEnv as Record<string, string>,
    cwd: s.repo,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  await handlesSigint(caller.pid);
  const task = await until("the copy to be under way", async () => {
    const list = await s.json(["delegate", "list"]);
    const [t] = (list.body as unknown as { items: Task[] }).items;
    return t?.status.state === "TASK_STATE_WORKING" ? t : undefined;
  });
  return { caller, task };
}

Deno.test("Ctrl-C while `run` runs the child in its sandbox: the sandbox outlives the command, a worker follows it", async () => {
  const s = await setup("on");
  try {
    const task = await handOverInSandbox(s);
    assert.match(readFileSync(join(s.dir(task.id), "worker.log"), "utf8"), /handed over/);
    const running = (await s.json(["delegate", "status", task.id])).body as unknown as Task;
    assert.equal(running.status.state, "TASK_STATE_WORKING", "the sandbox still runs");

    writeFileSync(s.gate, "");
    await assertCompletedOnce(s, task.id);
  } finally {
    await s.close();
  }
});

Deno.test("Ctrl-C at the terminal (the whole process group) while the copy is made: git goes on, a worker runs the task", async () => {
  const s = await setup();
  try {
    slowCopy(s);
    writeFileSync(s.gate, "");
    const { caller, task } = await runAsJob(s);
    Deno.kill(-caller.pid, "SIGINT");
    const ran = await caller.output();
    const stderr = new TextDecoder().decode(ran.stderr);
    assert.equal(ran.code, 10, stderr);
    assert.match(stderr, new RegExp(`Task ${task.id} keeps running`));
    await assertCompletedOnce(s, task.id);
  } finally {
    await s.close();
  }
});

Deno.test("Ctrl-C twice while the copy is made: quits at once, the task stopped by the user, no copy left", async () => {
  const s = await setup();
  const copied = join(s.root, "copy-gate");
  try {
    slowCopy(s, copied);
    const { caller, task } = await runAsJob(s);
    // The first waits for the copy to reach a step where the task can be let go, which it
    // cannot while the gate is shut, and says so after a second.
    const { task: seen } = await interruptTwice(
      s,
      caller,
      () => Deno.kill(-caller.pid, "SIGINT"),
      task.id,
      copied,
    );
    assert.match(seen.status.message?.parts[0]?.text ?? "", /Stopped by the user/);
    assert.deepEqual(s.started(), [], "no child was started");
    // The git still making the copy finishes on its own; then nothing of it is left.
    await until("the copy to be gone", async () => {
      await s.json(["delegate", "list"]);
      return s.workspaces().length === 0 ? true : undefined;
    });
  } finally {
    await s.close();
  }
});

Deno.test("the wait runs out while `run` prepares or runs the task: a worker goes on, the child runs once", async () => {
  const s = await setup();
  try {
    // The wait ends while the copy is made or once the child runs, as the machine allows:
    // the worker starts over in the first case and follows the child in the second.
    const caller = s.run("--wait", "1");
    const ran = await caller.done;
    assert.equal(ran.code, 10, ran.stderr);
    const task = JSON.parse(ran.stdout) as Task;
    assertWorkerTookOver(s, task.id, caller.pid);
    writeFileSync(s.gate, "");
    await assertCompletedOnce(s, task.id);
  } finally {
    await s.close();
  }
});

Deno.test("kill -9 of `run` while its child runs: the next command fails the task, stops the child, removes the copy", async () => {
  const s = await setup();
  try {
    const caller = s.run("--wait", "600");
    const { task, child } = await childStarted(s);
    const seen = (await s.json(["delegate", "status", task.id])).body as unknown as Task;
    assert.equal(seen.status.state, "TASK_STATE_WORKING", "its lock shows it alive");
    caller.kill("SIGKILL");
    await caller.done;
    const after = (await s.json(["delegate", "status", task.id])).body as unknown as Task;
    assert.equal(after.status.state, "TASK_STATE_FAILED");
    assert.match(after.status.message?.parts[0]?.text ?? "", /stopped unexpectedly/);
    await until(
      "the child to be stopped",
      () => Promise.resolve(pidExists(child) ? undefined : true),
    );
    await waitFor(s, task.id, () => s.workspaces().length === 0);
    assert.equal(s.git("status", "--porcelain"), "");
  } finally {
    await s.close();
  }
});

Deno.test("`delegate cancel` while `run` runs the child: the child is stopped and `run` ends canceled", async () => {
  const s = await setup();
  try {
    const caller = s.run("--wait", "600");
    const { task, child } = await childStarted(s);
    const canceled = await s.json(["delegate", "cancel", task.id]);
    assert.equal(canceled.code, 0, canceled.stderr);
    const ran = await caller.done;
    assert.equal(ran.code, 3, ran.stderr);
    assert.equal((JSON.parse(ran.stdout) as Task).status.state, "TASK_STATE_CANCELED");
    assert.ok(!pidExists(child), "the child is stopped");
    assert.deepEqual(s.workspaces(), []);
  } finally {
    await s.close();
  }
});
