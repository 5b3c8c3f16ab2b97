/**
 * A gated A2A agent for tests of the command line's lifecycle: a real @a2a-js/sdk 1.3.0
 * server on 127.0.0.1 that asks (optionally) a question carrying data and finishes a turn
 * only once the test opens the gate, and a temp home with it imported and approved. With
 * the helpers those tests share: waits for what the CLI does.
 * @module
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
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
import { isFinal, type Task } from "../../lib/a2a/mod.ts";
import type { Env } from "../../lib/core/mod.ts";
import { readPid, workerAlive } from "../../lib/delegation/mod.ts";
import { cli } from "./cli.ts";
import { importCard } from "./delegation.ts";
import { MAIN } from "./process.ts";

// deno-lint-ignore no-control-regex
export const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/** What the agent's answer carries besides text: a clear-screen, a retitle, a C1 CSI. */
export const HOSTILE_TAIL = "\x1b[2J\x1b]0;owned\x07\x9b1;1H";

// ---------------------------------------------------------------------------------------
// A gated agent: it asks (optionally) a question that carries data, and finishes a turn
// only once the test opens the gate. It records the parts of every message it receives.

export interface GatedAgent {
  cardUrl: string;
  /** Parts (v1.0 JSON) of each user message received, in order. */
  received: unknown[][];
  /** Remote task ids whose cancellation reached the executor. */
  canceled: string[];
  /** Lets every waiting turn, and every later one, finish. */
  open(): void;
  close(): Promise<void>;
}

export const QUESTION_PARTS = [
  { text: "May I run this tool?" },
  { data: { tool: "run_shell_command", args: { command: "npm test" }, callId: "call-7" } },
];

/**
 * What the gated agent does: `ask` first asks a question that carries data; with
 * `holdSend` it does not even answer the message (so the send stays in flight) until the
 * gate opens.
 */
export interface GateOptions {
  ask: boolean;
  holdSend?: boolean;
}

export async function startGatedAgent(options: GateOptions): Promise<GatedAgent> {
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
      // Nothing is published before the gate opens, so the send gets no answer until then.
      if (options.holdSend) await gate();
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
export interface Setup {
  home: string;
  env: Env;
  identifier: string;
  agent: GatedAgent;
  json(args: string[]): Promise<{ code: number; body: Task; stderr: string }>;
  close(): Promise<void>;
}

export async function setup(options: GateOptions): Promise<Setup> {
  const home = mkdtempSync(join(tmpdir(), "observal-cli-faults-"));
  const env: Env = { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1", RUST_BACKTRACE: "0" };
  const agent = await startGatedAgent(options);
  const { identifier } = await importCard(env, home, agent.cardUrl);
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
      // A test that failed half-way leaves a task running: cancel it while the agent still
      // answers, so its worker ends and the test's own failure is the one reported.
      const list = await cli(["delegate", "list", "--json"], { env, cwd: home });
      const items = (JSON.parse(list.stdout || "{}").items ?? []) as Task[];
      for (const t of items) {
        if (!isFinal(t.status.state)) await cli(["delegate", "cancel", t.id], { env, cwd: home });
      }
      await agent.close();
      await workersGone(home);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Waits until no worker of any task under `home` is alive (no orphans). */
export async function workersGone(home: string): Promise<void> {
  const root = join(home, "delegations");
  if (!existsSync(root)) return;
  const deadline = Date.now() + 15_000;
  for (const id of readdirSync(root).filter((n) => /^[0-9a-f-]{36}$/.test(n))) {
    const pid = readPid(join(root, id));
    while (pid !== undefined && workerAlive(pid, id, join(root, id))) {
      if (Date.now() > deadline) {
        throw new Error(`worker ${pid} for ${id} did not exit\n${lingering(join(root, id), pid)}`);
      }
      await new Promise((res) => setTimeout(res, 20));
    }
  }
}

/** What a worker that outlived its test was doing: its log, its state and where it waits. */
export function lingering(dir: string, pid: number): string {
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

/**
 * Resolves once the CLI process `pid` handles SIGINT (it is ready for Ctrl-C): a handler
 * is installed, and its main thread has since gone back to wait in its event loop. Deno
 * takes a signal's default action until that loop has turned once with the listener added.
 */
export function handlesSigint(pid: number): Promise<true> {
  return until(`process ${pid} to handle SIGINT`, () => {
    // Until it execs, a spawned child is a copy of this test process and shows its
    // handlers: read the command line first, so the reads below are the CLI's own.
    const argv = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
    if (!argv.includes(MAIN)) return Promise.resolve(undefined);
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? "0";
    if ((BigInt(`0x${caught}`) & 2n) !== 2n) return Promise.resolve(undefined);
    // Read after the handler was seen: the listener was added on the main thread, so a main
    // thread asleep in epoll now has turned its loop since.
    const wchan = Deno.readTextFileSync(`/proc/${pid}/wchan`);
    return Promise.resolve(/epoll/.test(wchan) ? true : undefined);
  });
}

/** Polls until `check` returns a value. */
export async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The newest task, once its worker has reached the agent. */
export function reachedAgent(s: Setup): Promise<Task> {
  return until("the worker to reach the agent", async () => {
    const list = await cli(["delegate", "list", "--json"], { env: s.env, cwd: s.home });
    const task = (JSON.parse(list.stdout).items as Task[])[0];
    return task?.metadata.observal.remoteTaskId && task.status.state === "TASK_STATE_WORKING"
      ? task
      : undefined;
  });
}

export function assertStopHints(stderr: string, id: string): void {
  assert.match(stderr, new RegExp(`Stopped waiting\\. Task ${id} keeps running\\.`));
  assert.ok(stderr.includes(`observal delegate status ${id} --wait`), stderr);
  assert.ok(stderr.includes(`observal delegate cancel ${id}`), stderr);
  assert.doesNotMatch(stderr, /\n\s+at |Uncaught/, "no stack trace");
}
