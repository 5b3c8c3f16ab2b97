/**
 * Every wait on a remote agent is bounded and stoppable, through the real CLI and real
 * workers, against a hostile agent (tests/support/hostile_agent.ts) that sends its answer's
 * headers and then drips the body a byte a second (`drip`) or sends nothing more
 * (`stall`): the request limit, `--timeout`, `delegate cancel`, SIGTERM, `--wait` and a
 * double Ctrl-C each end the wait, and no process or connection is left behind.
 */
import assert from "node:assert/strict";
import { linkSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { partsText, type Task } from "../../lib/a2a/mod.ts";
import type { Env } from "../../lib/core/mod.ts";
import { readPid, workerAlive } from "../../lib/delegation/mod.ts";
import { cli } from "../support/cli.ts";
import { until } from "../support/gated_agent.ts";
import type { HostileMode } from "../support/hostile_agent.ts";
import { type HostileHome, hostileHome } from "../support/hostile_home.ts";
import { spawnCli } from "../support/process.ts";

type Setup = HostileHome;

/** A home whose registry trusts 127.0.0.1, with a hostile agent in `mode` approved. */
const setUp = (mode: HostileMode, extra: Env = {}): Promise<Setup> => hostileHome(mode, {}, extra);

/** `observal delegate run AGENT BRIEF --json ARGS` as its own process, timed from spawn. */
const run = (s: Setup, args: string[], exec = Deno.execPath()) =>
  spawnCli(s.env, s.home, ["delegate", "run", s.identifier, "Do the job", "--json", ...args], exec);

const json = async (s: Setup, args: string[]) => {
  const r = await cli(args, { env: s.env, cwd: s.home });
  return { ...r, task: JSON.parse(r.stdout || "{}") as Task };
};
const text = (t: Task) => partsText(t.status.message?.parts ?? []);
const sends = (s: Setup) =>
  s.agent.requests.filter((r) => r.rpcMethod === "SendMessage").map((r) =>
    (r.params?.message as { messageId: string }).messageId
  );

/** Resolves once `pid` catches signal number `signo` (its handler is installed). */
function catches(pid: number, signo: number): Promise<true> {
  return until(`process ${pid} to catch signal ${signo}`, () => {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const caught = BigInt(`0x${/^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? "0"}`);
    return Promise.resolve((caught >> BigInt(signo - 1)) & 1n ? true : undefined);
  });
}

/** The agent has received `n` sends (the body of the last one hangs). */
const sent = (s: Setup, n = 1) =>
  until(
    `${n} send(s) to reach the agent`,
    () => Promise.resolve(sends(s).length >= n || undefined),
  );

/** No process runs the task any more and the agent holds no open answer. */
async function nothingLeft(s: Setup, id: string): Promise<void> {
  const dir = join(s.home, "delegations", id);
  const pid = readPid(dir);
  if (pid !== undefined) {
    await until(
      `worker ${pid} to exit`,
      () => Promise.resolve(!workerAlive(pid, id, dir) || undefined),
    );
  }
  await until(
    "the agent's connections to close",
    () => Promise.resolve(s.agent.openBodies() === 0 || undefined),
  );
}

/** Lets the worker that took a task over go: cancels it and waits for it to end. */
async function cancelAndCheck(s: Setup, id: string): Promise<number> {
  const asked = performance.now();
  const c = await json(s, ["delegate", "cancel", id, "--json"]);
  const ms = performance.now() - asked;
  assert.equal(c.task.status.state, "TASK_STATE_CANCELED", c.stdout + c.stderr);
  await nothingLeft(s, id);
  return ms;
}

for (const mode of ["drip", "stall"] as const) {
  Deno.test(`${mode}: the task fails at its request limit, nothing left`, async () => {
    const s = await setUp(mode, {
      OBSERVAL_A2A_REQUEST_TIMEOUT_MS: "2000",
      OBSERVAL_A2A_MIN_BODY_RATE: "0",
    });
    try {
      const r = await run(s, ["--wait", "60"]).done;
      const task = JSON.parse(r.stdout) as Task;
      assert.equal(task.status.state, "TASK_STATE_FAILED", r.stdout + r.stderr);
      assert.match(text(task), /did not answer within 2 seconds/);
      console.log(`${mode}: request limit 2 s, failed after ${Math.round(r.ms)} ms`);
      await nothingLeft(s, task.id);
    } finally {
      await s.close();
    }
  });

  Deno.test(`${mode}: the task fails at --timeout, nothing left`, async () => {
    const s = await setUp(mode, { OBSERVAL_A2A_MIN_BODY_RATE: "0" });
    try {
      const r = await run(s, ["--wait", "60", "--timeout", "2"]).done;
      const task = JSON.parse(r.stdout) as Task;
      assert.equal(task.status.state, "TASK_STATE_FAILED", r.stdout + r.stderr);
      assert.match(text(task), /Timed out after 2 seconds/);
      console.log(`${mode}: --timeout 2, failed after ${Math.round(r.ms)} ms`);
      await nothingLeft(s, task.id);
    } finally {
      await s.close();
    }
  });

  Deno.test(`${mode}: delegate cancel ends the worker's wait within 2 s`, async () => {
    const s = await setUp(mode, { OBSERVAL_A2A_MIN_BODY_RATE: "0" });
    try {
      const r = await run(s, ["--wait", "0"]).done;
      const task = JSON.parse(r.stdout) as Task;
      await sent(s);
      const ms = await cancelAndCheck(s, task.id);
      console.log(`${mode}: delegate cancel took ${Math.round(ms)} ms`);
      assert.ok(ms < 2000, `cancel took ${ms} ms`);
    } finally {
      await s.close();
    }
  });

  Deno.test(`${mode}: SIGTERM to a waiting delegate run returns within 2 s; the worker resends the same message`, async () => {
    const s = await setUp(mode, { OBSERVAL_A2A_MIN_BODY_RATE: "0" });
    try {
      const caller = run(s, ["--wait", "600"]);
      await sent(s);
      await catches(caller.pid, 15);
      const asked = performance.now();
      caller.kill("SIGTERM");
      const r = await caller.done;
      const ms = performance.now() - asked;
      console.log(`${mode}: SIGTERM returned in ${Math.round(ms)} ms`);
      assert.equal(r.code, 10, r.stderr);
      assert.ok(ms < 2000, `returned ${ms} ms after SIGTERM`);
      const task = JSON.parse(r.stdout) as Task;
      await sent(s, 2);
      const [first, again] = sends(s);
      assert.equal(again, first, "the worker resent the brief with the same message id");
      assert.equal(first, task.history?.[0]?.messageId);
      await cancelAndCheck(s, task.id);
    } finally {
      await s.close();
    }
  });

  Deno.test(`${mode}: --wait 3 returns at most 1 s later than --wait 0`, async () => {
    const s = await setUp(mode, { OBSERVAL_A2A_MIN_BODY_RATE: "0" });
    try {
      // The same command with --wait 0 is the baseline: process start, store and handover
      // cost the same in both, so a busy machine does not count against the wait.
      const base = await run(s, ["--wait", "0"]).done;
      assert.equal(base.code, 10, base.stderr);
      await cancelAndCheck(s, (JSON.parse(base.stdout) as Task).id);
      const before = sends(s).length;
      const r = await run(s, ["--wait", "3"]).done;
      console.log(
        `${mode}: --wait 3 returned after ${Math.round(r.ms)} ms, --wait 0 after ${
          Math.round(base.ms)
        } ms`,
      );
      assert.equal(r.code, 10, r.stderr);
      assert.ok(r.ms - base.ms <= 4000, `--wait 3 ${r.ms} ms, --wait 0 ${base.ms} ms`);
      const task = JSON.parse(r.stdout) as Task;
      // Usually `run` sent the brief itself before it handed the task over, and its worker
      // sends it again; on a busy machine the wait may end before `run` sent anything, and
      // the worker alone sends it. Which process a send came from cannot be told here (the
      // worker may send before `run` has finished exiting), so: the brief reaches the agent,
      // every send carries the stored message's id, and there are at most two, one from
      // each. That the worker sends again after a handover is the SIGTERM test's.
      await sent(s, before + 1);
      await cancelAndCheck(s, task.id);
      const mine = sends(s).slice(before);
      assert.ok(mine.length <= 2, `${mine.length} sends`);
      for (const id of mine) {
        assert.equal(id, task.history?.[0]?.messageId, "every send has the stored message id");
      }
    } finally {
      await s.close();
    }
  });
}

Deno.test("a body that trickles below the minimum rate fails naming the limit", async () => {
  const s = await setUp("drip");
  try {
    const r = await run(s, ["--wait", "60"]).done;
    const task = JSON.parse(r.stdout) as Task;
    assert.equal(task.status.state, "TASK_STATE_FAILED", r.stdout + r.stderr);
    assert.match(text(task), /slower than 1024 bytes a second .* OBSERVAL_A2A_MIN_BODY_RATE limit/);
    console.log(`min rate: failed after ${Math.round(r.ms)} ms`);
    await nothingLeft(s, task.id);
  } finally {
    await s.close();
  }
});

Deno.test("an agent that stops answering shows it is retried, and until when", async () => {
  const s = await setUp("flaky-polling");
  s.agent.requests.length = 0;
  try {
    // flaky-polling answers GetTask with 503 four times by default: long enough to see.
    const r = await run(s, ["--wait", "0"]).done;
    const task = JSON.parse(r.stdout) as Task;
    const seen = await until("the retry to show", async () => {
      const st = await cli(["delegate", "status", task.id], { env: s.env, cwd: s.home });
      return /retrying until \d\d:\d\d:\d\d UTC/.test(st.stdout) ? st.stdout : undefined;
    }).catch(() => undefined);
    const done = await json(s, ["delegate", "status", task.id, "--wait", "60", "--json"]);
    assert.equal(done.task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(done.task.metadata.observal.retrying, undefined, "cleared once it answered");
    assert.ok(seen, "status showed the retry");
    assert.match(seen, /The agent is not answering \(.*503.*\); retrying until/);
  } finally {
    await s.close();
  }
});

Deno.test("a worker that cannot be spawned: exit 9, one message", async () => {
  const s = await setUp("stall", { OBSERVAL_A2A_MIN_BODY_RATE: "0" });
  // The command runs from a link to deno that is removed once it runs: its worker's spawn
  // (of the same program) then fails.
  const bin = mkdtempSync(join(tmpdir(), "observal-bin-"));
  const deno = join(bin, "deno");
  linkSync(Deno.execPath(), deno);
  try {
    const caller = run(s, ["--wait", "600"], deno);
    await sent(s);
    rmSync(deno);
    // The command sent the brief itself; stopping its wait hands the task to a worker.
    await catches(caller.pid, 15);
    caller.kill("SIGTERM");
    const r = await caller.done;
    assert.equal(r.code, 9, r.stdout + r.stderr);
    const said = r.stderr.match(/could not be started/g) ?? [];
    assert.match(
      r.stderr,
      /The delegation worker for task .* could not be started: the system could not run/,
    );
    assert.equal(said.length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /Uncaught|\n\s+at /);
    const list = await json(s, ["delegate", "list", "--json"]);
    const [task] = (list.task as unknown as { items: Task[] }).items;
    assert.equal(task.status.state, "TASK_STATE_FAILED");
    await nothingLeft(s, task.id);
  } finally {
    rmSync(bin, { recursive: true, force: true });
    await s.close();
  }
});

Deno.test("a double Ctrl-C on a waiting delegate run is recorded as the user's stop", async () => {
  const s = await setUp("stall", { OBSERVAL_A2A_MIN_BODY_RATE: "0" });
  try {
    const caller = run(s, ["--wait", "600"]);
    await sent(s);
    await catches(caller.pid, 2);
    caller.kill("SIGINT");
    await new Promise((res) => setTimeout(res, 100));
    caller.kill("SIGINT");
    const r = await caller.done;
    assert.equal(r.code, 130, r.stderr);
    const list = await json(s, ["delegate", "list", "--json"]);
    const [task] = (list.task as unknown as { items: Task[] }).items;
    const st = await json(s, ["delegate", "status", task.id, "--json"]);
    assert.equal(st.task.status.state, "TASK_STATE_CANCELED", st.stdout);
    assert.match(text(st.task), /Stopped by the user/);
    await nothingLeft(s, task.id);
  } finally {
    await s.close();
  }
});
