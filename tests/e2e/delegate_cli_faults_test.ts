/**
 * The `observal` command line under faults, driven as a user's shell drives it: a reader
 * that goes away (`| head -1`), Ctrl-C while waiting, a full disk and a disk out of inodes
 * (real tmpfs mounts), and what a remote agent says reaching the terminal (control
 * sequences, questions that carry data) and being answered with data. The agent is a real
 * @a2a-js/sdk 1.3.0 server on 127.0.0.1 whose turns finish only when the test says so.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { createContext, ObservalError } from "../../lib/core/mod.ts";
import {
  DelegationService,
  detachedLauncher,
  readPid,
  workerAlive,
} from "../../lib/delegation/mod.ts";
import { openRegistryClient } from "../../lib/cli/open_registry_client.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { cli } from "../support/cli.ts";
import { playground } from "../support/delegation.ts";
import { MAIN, spawnCli } from "../support/process.ts";
import {
  assertStopHints,
  CONTROL,
  handlesSigint,
  HOSTILE_TAIL,
  QUESTION_PARTS,
  reachedAgent,
  setup,
  until,
} from "../support/gated_agent.ts";
import { mountSmallDisk } from "../support/small_disk.ts";

// ---------------------------------------------------------------------------------------

Deno.test("Ctrl-C while `run` and `status --wait` wait: exit 10 with the commands; the task completes", async () => {
  const s = await setup({ ask: false });
  try {
    const run = spawnCli(s.env, s.home, [
      "delegate",
      "run",
      s.identifier,
      "Build it",
      "--wait",
      "600",
    ]);
    const task = await reachedAgent(s);
    run.kill("SIGINT");
    const ran = await run.done;
    assert.equal(ran.code, 10, ran.stderr);
    assertStopHints(ran.stderr, task.id);
    assert.match(ran.stdout, /Gated Agent {2}working/);

    // The worker is in its own session: the interrupt never reached it.
    const pid = readPid(join(s.home, "delegations", task.id));
    assert.ok(
      pid !== undefined && workerAlive(pid, task.id, join(s.home, "delegations", task.id)),
      "the worker keeps running",
    );

    const status = spawnCli(s.env, s.home, ["delegate", "status", task.id, "--wait", "600"]);
    await handlesSigint(status.pid);
    status.kill("SIGINT");
    const stopped = await status.done;
    assert.equal(stopped.code, 10, stopped.stderr);
    assertStopHints(stopped.stderr, task.id);

    s.agent.open();
    const done = await s.json(["delegate", "status", task.id, "--wait", "60"]);
    assert.equal(done.body.status.state, "TASK_STATE_COMPLETED", JSON.stringify(done.body.status));
  } finally {
    await s.close();
  }
});

Deno.test("a question with data is shown readably, answered with --data, and Ctrl-C during the reply keeps it going", async () => {
  const s = await setup({ ask: true });
  try {
    const asked = await s.json([
      "delegate",
      "run",
      s.identifier,
      "Test the project",
      "--wait",
      "60",
    ]);
    assert.equal(asked.code, 10, asked.stderr);
    assert.equal(asked.body.status.state, "TASK_STATE_INPUT_REQUIRED");
    const id = asked.body.id;
    // --json carries the question whole, data included.
    assert.deepEqual(
      asked.body.status.message?.parts.find((p) => p.data)?.data,
      QUESTION_PARTS[1].data,
    );
    const human = await cli(["delegate", "status", id], { env: s.env, cwd: s.home });
    assert.match(
      human.stdout,
      /May I run this tool\?\ndata:\n {2}\{\n {4}"tool": "run_shell_command",/,
    );
    assert.match(human.stdout, / {6}"command": "npm test"/);
    assert.ok(human.stdout.includes(`observal delegate reply ${id} --data '<JSON object>'`));

    const reply = spawnCli(s.env, s.home, [
      "delegate",
      "reply",
      id,
      "Yes, once",
      "--data",
      '{"approved": true, "callId": "call-7"}',
      "--wait",
      "600",
    ]);
    // The reply command waits from the moment it launched the worker that sent this.
    await until(
      "the answer to reach the agent",
      () => Promise.resolve(s.agent.received.length === 2 ? true : undefined),
    );
    reply.kill("SIGINT");
    const stopped = await reply.done;
    assert.equal(stopped.code, 10, stopped.stderr);
    assertStopHints(stopped.stderr, id);
    // The agent got one message with the text and the data part.
    const [answer] = s.agent.received.slice(1);
    assert.deepEqual(
      answer.map((p) =>
        (p as { text?: string; data?: unknown }).text ?? (p as { data?: unknown }).data
      ),
      ["Yes, once", { approved: true, callId: "call-7" }],
    );

    s.agent.open();
    const done = await s.json(["delegate", "status", id, "--wait", "60"]);
    assert.equal(done.body.status.state, "TASK_STATE_COMPLETED");
    // What the agent said reaches a terminal escaped, and --json keeps it.
    const result = done.body.artifacts?.[0].parts[0].text ?? "";
    assert.ok(result.endsWith(HOSTILE_TAIL), "--json keeps the agent's bytes");
    const shown = await cli(["delegate", "status", id], { env: s.env, cwd: s.home, tty: true });
    assert.doesNotMatch(shown.stdout, CONTROL);
    assert.ok(shown.stdout.includes("\\x1b[2J\\x1b]0;owned\\x07\\x9b1;1H"), shown.stdout);
  } finally {
    await s.close();
  }
});

Deno.test("a worker that cannot be spawned: one clear message, exit 9, and the task is failed", async () => {
  const pg = await playground({ behaviour: "complete" });
  try {
    // The real launcher's spawn refuses an environment it cannot hand on (a NUL byte).
    // Without a wait the task goes to a worker at once (`run` never runs it itself).
    const r = await cli(["delegate", "run", pg.identifier, "Hi", "--wait", "0"], {
      env: { ...pg.env, BROKEN: "a\0b" },
      cwd: pg.home,
    });
    assert.equal(r.code, 9, r.stderr);
    assert.equal(r.stdout, "");
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[0], /^error: The delegation worker for task \S+ could not be started: /);
    assert.match(lines[1], /The task is marked failed/);
    const list = await pg.json(["delegate", "list"]);
    const [task] = (list.body as unknown as { items: Task[] }).items;
    assert.equal(task.status.state, "TASK_STATE_FAILED");
    assert.match(JSON.stringify(task.status.message), /could not be started/);
    assert.equal(pg.agent.requests.filter((q) => q.rpcMethod).length, 0, "nothing was sent");
  } finally {
    await pg.close();
  }
});

Deno.test("`observal delegate list | head -1` ends quietly: no stack trace, exit 0", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-epipe-"));
  try {
    {
      using store = openTaskStore({
        home,
        clock: { now: () => new Date(), sleep: () => Promise.resolve() },
      });
      for (let i = 0; i < 200; i++) {
        store.insert({
          id: randomUUID(),
          contextId: randomUUID(),
          status: { state: "TASK_STATE_COMPLETED" },
          metadata: {
            observal: {
              target: "urn:air:test:a2a:agent",
              targetName: `Agent ${i}`,
              kind: "a2a",
              depth: 0,
              chain: [],
              cwd: home,
              createdAt: "2026-09-27T10:00:00Z",
              notes: ["n".repeat(2000)],
            },
          },
        });
      }
    }
    for (const flags of ["", "--json"]) {
      const script =
        `"${Deno.execPath()}" run -A "${MAIN}" delegate list --limit 200 ${flags} | head -1; ` +
        'echo "exit=${PIPESTATUS[0]}" >&2';
      const out = await new Deno.Command("bash", {
        args: ["-c", script],
        env: { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1", RUST_BACKTRACE: "0" },
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(stdout.split("\n").length, 2, `one line kept: ${stdout}`);
      assert.equal(stderr.trim(), "exit=0", `quiet end for "${flags}": ${stderr}`);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------
// Disks that fill up. Each test mounts its own small tmpfs on <home>/delegations.

/** True while a process with this pid exists (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Fills the file system under `dir` until `leave` bytes are free; returns the filler. */
function fill(dir: string, leave: number): string {
  const filler = join(dir, "filler");
  const fs = statfsSync(dir);
  writeFileSync(filler, new Uint8Array(Math.max(0, fs.bavail * fs.bsize - leave)));
  return filler;
}

Deno.test("`delegate run` on a full disk: one clear message, exit 9, and no task left behind", async () => {
  const pg = await playground({ behaviour: "complete" });
  const dir = join(pg.home, "delegations");
  const unmount = mountSmallDisk(dir, "size=4m");
  try {
    const first = await pg.json(["delegate", "run", pg.identifier, "warm up", "--wait", "60"]);
    assert.equal(first.code, 0, first.stderr);
    // The first worker is still ending (its closing log line, the store's checkpoint) just
    // after its task settles: the disk fills only once it has gone.
    const pid = Number(readFileSync(join(dir, String(first.body.id), "worker.pid"), "utf8"));
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    const filler = fill(dir, 0);
    const r = await pg.observal(["delegate", "run", pg.identifier, "Hi", "--wait", "60"]);
    assert.equal(r.code, 9, r.stderr);
    assert.match(r.stderr, /^error: .*(full|space)/);
    assert.equal(r.stderr.trim().split("\n").length, 2, `a message and what to do: ${r.stderr}`);
    rmSync(filler);
    const list = await pg.json(["delegate", "list"]);
    assert.equal(
      list.body.total,
      1,
      `only the first task exists: ${list.stderr}\n${diskState(dir)}`,
    );
  } finally {
    unmount();
    await pg.close();
  }
});

/** What is on the small disk under `dir`, for a failure's message: free bytes and files. */
function diskState(dir: string): string {
  const fs = statfsSync(dir);
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return `${path.slice(dir.length + 1)} ${statSync(path).size}`;
    });
  return `free ${Number(fs.bavail) * Number(fs.bsize)} bytes; files: ${files.join(", ")}`;
}

Deno.test("`delegate run` where the worker's log cannot be created (no inodes left): clear message, no task", async () => {
  const pg = await playground({ behaviour: "complete" });
  const dir = join(pg.home, "delegations");
  // Enough inodes for the folder and the database files, not for one more task's log.
  const unmount = mountSmallDisk(dir, "size=8m,nr_inodes=16");
  // Held open, so the database's -wal and -shm files stay and need no new inodes.
  const held = openTaskStore({
    home: pg.home,
    clock: { now: () => new Date(), sleep: () => Promise.resolve() },
  });
  try {
    const fillers: string[] = [];
    for (let i = 0;; i++) {
      try {
        writeFileSync(join(dir, `inode-${i}`), "");
        fillers.push(join(dir, `inode-${i}`));
      } catch {
        break;
      }
    }
    // One inode free: the task's folder takes it, so its worker log cannot be created.
    rmSync(fillers.pop()!);
    const r = await pg.observal(["delegate", "run", pg.identifier, "Hi", "--wait", "60"]);
    assert.equal(r.code, 9, r.stderr);
    // Out of inodes is out of space: said as every full home is.
    assert.equal(
      r.stderr,
      `error: Cannot write to the observal home ${pg.home}: its disk is full\n` +
        "Free some space on its disk, or point OBSERVAL_HOME at a folder on another disk, " +
        "then try again\n",
    );
    for (const f of fillers) rmSync(f);
    const list = await pg.json(["delegate", "list"]);
    assert.equal(list.body.total, 0, "no task was stored");
    assert.deepEqual(readdirSync(dir).filter((n) => /^[0-9a-f-]{36}$/.test(n)), [], "no folder");
  } finally {
    held.close();
    unmount();
    await pg.close();
  }
});

Deno.test("starts on a nearly full disk fail clearly or succeed, and no task stays submitted", async () => {
  const pg = await playground({ behaviour: "complete" });
  const dir = join(pg.home, "delegations");
  const unmount = mountSmallDisk(dir, "size=1m");
  const ctx = createContext({ env: pg.env, cwd: pg.home });
  const store = openTaskStore({ home: pg.home, clock: ctx.clock });
  const registry = openRegistryClient(ctx);
  // No free-space check here, so every later write meets the full disk.
  const service = new DelegationService({
    ctx,
    store,
    registry: () => registry,
    launch: detachedLauncher(ctx),
    minFreeBytes: 0,
  });
  const failures: string[] = [];
  try {
    for (const leave of [0, 4096, 16_384, 40_960, 65_536, 131_072, 262_144]) {
      const filler = fill(dir, leave);
      try {
        const task = await service.start(pg.identifier, `leave ${leave}`, {
          caller: { depth: 0, maxDepth: 2, chain: [] },
          waitSeconds: 20,
        });
        assert.notEqual(task.status.state, "TASK_STATE_SUBMITTED", `leave ${leave}`);
      } catch (err) {
        assert.ok(err instanceof ObservalError, `a clear error at ${leave}: ${err}`);
        assert.match(`${err.message} ${err.remediation}`, /full|space/, err.message);
        failures.push(`${leave}: ${err.message}`);
      } finally {
        rmSync(filler, { force: true });
      }
    }
    assert.ok(failures.length >= 3, failures.join("\n"));
    console.log(`nearly full disk, bytes left → outcome:\n${failures.join("\n")}`);
    // With space again, every task that was stored settles: none is left submitted.
    for (const t of store.list({ limit: 50 }).items) {
      const final = await service.wait(t.id, 90);
      assert.ok(
        final.status.state === "TASK_STATE_COMPLETED" || final.status.state === "TASK_STATE_FAILED",
        `${t.metadata.observal.createdAt}: ${JSON.stringify(final.status)}`,
      );
    }
  } finally {
    registry.close();
    store.close();
    unmount();
    await pg.close();
  }
});
