/**
 * The `observal` command line under faults, driven as a user's shell drives it: a reader
 * that goes away (`| head -1`), Ctrl-C while waiting, a full disk and a disk out of inodes
 * (real tmpfs mounts), and what a remote agent says reaching the terminal (control
 * sequences, questions that carry data) and being answered with data. The agent is a real
 * @a2a-js/sdk 1.3.0 server on 127.0.0.1 whose turns finish only when the test says so.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  existsSync,
  mkdirSync,
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
import express from "express";
import { AgentCard, Message, Task as SdkTask, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import type { Task } from "../../lib/a2a/mod.ts";
import { createContext, type Env, ObservalError } from "../../lib/core/mod.ts";
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
import { MAIN } from "../support/process.ts";

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/** What the agent's answer carries besides text: a clear-screen, a retitle, a C1 CSI. */
const HOSTILE_TAIL = "\x1b[2J\x1b]0;owned\x07\x9b1;1H";

// ---------------------------------------------------------------------------------------
// A gated agent: it asks (optionally) a question that carries data, and finishes a turn
// only once the test opens the gate. It records the parts of every message it receives.

interface GatedAgent {
  cardUrl: string;
  /** Parts (v1.0 JSON) of each user message received, in order. */
  received: unknown[][];
  /** Remote task ids whose cancellation reached the executor. */
  canceled: string[];
  /** Lets every waiting turn, and every later one, finish. */
  open(): void;
  close(): Promise<void>;
}

const QUESTION_PARTS = [
  { text: "May I run this tool?" },
  { data: { tool: "run_shell_command", args: { command: "npm test" }, callId: "call-7" } },
];

async function startGatedAgent(options: { ask: boolean }): Promise<GatedAgent> {
  const received: unknown[][] = [];
  const canceled: string[] = [];
  let opened = false;
  const waiting = new Set<() => void>();
  const gate = () =>
    opened ? Promise.resolve() : new Promise<void>((resolve) => waiting.add(resolve));
  const open = () => {
    opened = true;
    for (const resolve of waiting) resolve();
    waiting.clear();
  };
  const agentMessage = (parts: unknown[], taskId: string, contextId: string) =>
    Message.fromJSON({ messageId: randomUUID(), role: "ROLE_AGENT", parts, taskId, contextId });
  const executor: AgentExecutor = {
    execute: async (ctx: RequestContext, bus: ExecutionEventBus) => {
      const { taskId, contextId } = ctx;
      const parts = (Message.toJSON(ctx.userMessage) as { parts?: unknown[] }).parts ?? [];
      received.push(parts);
      const now = () => new Date().toISOString();
      if (!ctx.task) {
        bus.publish(AgentEvent.task(SdkTask.fromJSON({
          id: taskId,
          contextId,
          status: { state: "TASK_STATE_SUBMITTED", timestamp: now() },
          history: [Message.toJSON(ctx.userMessage)],
        })));
      }
      bus.publish(AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
        metadata: undefined,
      }));
      if (options.ask && !ctx.task) {
        bus.publish(AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_INPUT_REQUIRED,
            message: agentMessage(QUESTION_PARTS, taskId, contextId),
            timestamp: now(),
          },
          metadata: undefined,
        }));
        bus.finished();
        return;
      }
      await gate();
      bus.publish(AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: "result",
          name: "result",
          description: "",
          parts: agentMessage(
            [{ text: `received ${JSON.stringify(parts)}${HOSTILE_TAIL}` }],
            taskId,
            contextId,
          ).parts,
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }));
      bus.publish(AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() },
        metadata: undefined,
      }));
      bus.finished();
    },
    cancelTask: (taskId: string, bus: ExecutionEventBus) => {
      canceled.push(taskId);
      bus.publish(AgentEvent.statusUpdate({
        taskId,
        contextId: "",
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: "" },
        metadata: undefined,
      }));
      bus.finished();
      return Promise.resolve();
    },
  };
  const app = express();
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = {
    name: "Gated Agent",
    description: "Answers when the test lets it.",
    version: "1.0.0",
    supportedInterfaces: [{
      url: `${base}/rpc`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    }],
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "gate", name: "Gate", description: "Waits", tags: ["test"] }],
  };
  const handler = new DefaultRequestHandler(
    AgentCard.fromJSON(card),
    new InMemoryTaskStore(),
    executor,
  );
  app.get(
    "/.well-known/agent-card.json",
    (_req: unknown, res: { json(b: unknown): void }) => res.json(card),
  );
  app.use(
    "/rpc",
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  return {
    cardUrl: `${base}/.well-known/agent-card.json`,
    received,
    canceled,
    open,
    close: () => {
      open();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A temp home with the gated agent imported and approved in its embedded registry. */
interface Setup {
  home: string;
  env: Env;
  identifier: string;
  agent: GatedAgent;
  json(args: string[]): Promise<{ code: number; body: Task; stderr: string }>;
  close(): Promise<void>;
}

async function setup(options: { ask: boolean }): Promise<Setup> {
  const home = mkdtempSync(join(tmpdir(), "observal-cli-faults-"));
  const env: Env = { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1", RUST_BACKTRACE: "0" };
  const agent = await startGatedAgent(options);
  const admin = openRegistryClient(createContext({ env, cwd: home }));
  let identifier: string;
  try {
    await admin.admin("PUT", "/settings/discovery.a2a_private_hosts", { value: "127.0.0.1" });
    const doc = await admin.submitCard({ cardUrl: agent.cardUrl, visibility: "public" });
    identifier = String(doc.identifier);
    await admin.reviewImport(identifier, {
      action: "approve",
      digest: String(doc["obs:artifactDigest"]),
    });
  } finally {
    admin.close();
  }
  return {
    home,
    env,
    identifier,
    agent,
    async json(args) {
      const r = await cli([...args, "--json"], { env, cwd: home });
      return { code: r.code, body: JSON.parse(r.stdout || "{}") as Task, stderr: r.stderr };
    },
    async close() {
      await agent.close();
      await workersGone(home);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Waits until no worker of any task under `home` is alive (no orphans). */
async function workersGone(home: string): Promise<void> {
  const root = join(home, "delegations");
  if (!existsSync(root)) return;
  const deadline = Date.now() + 15_000;
  for (const id of readdirSync(root).filter((n) => /^[0-9a-f-]{36}$/.test(n))) {
    const pid = readPid(join(root, id));
    while (pid !== undefined && workerAlive(pid, id)) {
      if (Date.now() > deadline) {
        throw new Error(`worker ${pid} for ${id} did not exit\n${lingering(join(root, id), pid)}`);
      }
      await new Promise((res) => setTimeout(res, 20));
    }
  }
}

/** What a worker that outlived its test was doing: its log, its state and where it waits. */
function lingering(dir: string, pid: number): string {
  const read = (path: string) => {
    try {
      return Deno.readTextFileSync(path).trim();
    } catch (err) {
      return `(${err instanceof Error ? err.message : err})`;
    }
  };
  return [
    `task state file: ${read(join(dir, "state"))}`,
    `/proc/${pid}/stat: ${read(`/proc/${pid}/stat`)}`,
    `/proc/${pid}/wchan: ${read(`/proc/${pid}/wchan`)}`,
    `worker.log:\n${read(join(dir, "worker.log"))}`,
  ].join("\n");
}

/** `observal ...` as its own process; `kill` sends it a signal. */
function spawnCli(env: Env, cwd: string, args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: env as Record<string, string>,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const dec = new TextDecoder();
  const done = child.output().then((o) => ({
    code: o.code,
    signal: o.signal,
    stdout: dec.decode(o.stdout),
    stderr: dec.decode(o.stderr),
  }));
  return { pid: child.pid, kill: (sig: Deno.Signal) => child.kill(sig), done };
}

/** Resolves once process `pid` has a SIGINT handler installed (it is ready for Ctrl-C). */
function handlesSigint(pid: number): Promise<true> {
  return until(`process ${pid} to handle SIGINT`, () => {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? "0";
    return Promise.resolve((BigInt(`0x${caught}`) & 2n) === 2n ? true : undefined);
  });
}

/** Polls until `check` returns a value. */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The newest task, once its worker has reached the agent. */
function reachedAgent(s: Setup): Promise<Task> {
  return until("the worker to reach the agent", async () => {
    const list = await cli(["delegate", "list", "--json"], { env: s.env, cwd: s.home });
    const task = (JSON.parse(list.stdout).items as Task[])[0];
    return task?.metadata.observal.remoteTaskId && task.status.state === "TASK_STATE_WORKING"
      ? task
      : undefined;
  });
}

function assertStopHints(stderr: string, id: string): void {
  assert.match(stderr, new RegExp(`Stopped waiting\\. Task ${id} keeps running\\.`));
  assert.ok(stderr.includes(`observal delegate status ${id} --wait`), stderr);
  assert.ok(stderr.includes(`observal delegate cancel ${id}`), stderr);
  assert.doesNotMatch(stderr, /\n\s+at |Uncaught/, "no stack trace");
}

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
    assert.ok(pid !== undefined && workerAlive(pid, task.id), "the worker keeps running");

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
    const r = await cli(["delegate", "run", pg.identifier, "Hi", "--wait", "10"], {
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

function mount(dir: string, options: string): () => void {
  mkdirSync(dir, { recursive: true });
  const out = new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", options, "tmpfs", dir] })
    .outputSync();
  assert.equal(out.code, 0, `mount: ${new TextDecoder().decode(out.stderr)}`);
  return () => void new Deno.Command("umount", { args: ["-l", dir] }).outputSync();
}

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
  const unmount = mount(dir, "size=4m");
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
  const unmount = mount(dir, "size=8m,nr_inodes=16");
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
    assert.match(r.stderr, /Cannot create the task folder .*: ENOSPC/);
    assert.match(r.stderr, /free space/);
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
  const unmount = mount(dir, "size=1m");
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
