/**
 * A playground for registry Agents run locally: a temp OBSERVAL_HOME with the embedded
 * registry, an approved agent, a caller git repository, and a PATH holding harness
 * programs. Tests drive `observal` in process as a user would; workers are real detached
 * processes and children real programs.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { type Context, createContext, type Env } from "../../lib/core/mod.ts";
import {
  DelegationService,
  type LaunchWorker,
  readPid,
  workerAlive,
} from "../../lib/delegation/mod.ts";
import type { RegistryClient } from "../../lib/registry/mod.ts";
import { openTaskStore, type TaskStore } from "../../lib/store/mod.ts";
import {
  pidExists,
  processCommandLine,
  processIdentity,
  signalGroup,
} from "../../lib/process/mod.ts";
import { openRegistryClient } from "../../lib/cli/open_registry_client.ts";
import { cli, type CliResult } from "./cli.ts";

export interface LocalPlayground {
  /** Everything lives under here. */
  root: string;
  home: string;
  /** The caller's repository (one commit: keep.txt, edit.txt, gone.txt). */
  repo: string;
  /** Prepended to PATH: put harness programs here. */
  bin: string;
  env: Env;
  identifier: string;
  agentId: string;
  digest: string;
  observal(args: string[], options?: { env?: Env; cwd?: string }): Promise<CliResult>;
  json(
    args: string[],
    options?: { env?: Env; cwd?: string },
  ): Promise<{ code: number; body: Record<string, unknown>; stderr: string }>;
  /** Runs git in the caller's repository. */
  git(...args: string[]): string;
  /** Writes an executable program into `bin`. */
  program(name: string, script: string): string;
  /**
   * For a test that drives the runner itself: a context in the caller's repository (with
   * `env` on top of the playground's), its task store and registry client, and a service
   * that starts no worker unless `launch` does.
   */
  service(options?: { env?: Env; launch?: LaunchWorker }): RunnerParts;
  close(): Promise<void>;
}

/** What {@linkcode LocalPlayground.service} opens; `close` closes the store and the client. */
export interface RunnerParts {
  ctx: Context;
  store: TaskStore;
  registry: () => RegistryClient;
  service: DelegationService;
  close(): void;
}

/** The agent the playground publishes; `extra` is appended to its YAML. */
export function agentYaml(name = "fixer", extra = ""): string {
  return `name: ${name}
version: 1.0.0
description: Fixes small things in a repository
prompt: |
  You fix small things.
supported_harnesses: [claude-code, codex, pi, opencode, copilot-cli, gemini-cli]
${extra}`;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
};

/** Publishes `yaml` as a public registry Agent in `env`'s home and approves it. */
export async function publishApproved(
  env: Env,
  cwd: string,
  yaml: string,
): Promise<{ identifier: string; digest: string }> {
  const admin = openRegistryClient(createContext({ env, cwd }));
  try {
    const doc = await admin.publishAgent({ yaml, visibility: "public" });
    const identifier = String(doc.identifier);
    const digest = String(doc["obs:artifactDigest"]);
    await admin.reviewAgent(identifier, { action: "approve", digest });
    return { identifier, digest };
  } finally {
    admin.close();
  }
}

export async function localPlayground(
  options: { yaml?: string; env?: Env; homeName?: string } = {},
): Promise<LocalPlayground> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-local-")));
  const home = join(root, options.homeName ?? "home");
  const repo = join(root, "repo");
  const bin = join(root, "bin");
  for (const d of [home, repo, bin]) mkdirSync(d, { recursive: true });
  const env: Env = {
    OBSERVAL_HOME: home,
    HOME: root,
    PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
    ...GIT_ENV,
    GIT_CONFIG_GLOBAL: join(root, "gitconfig"),
    ...options.env,
  };
  writeFileSync(join(root, "gitconfig"), "");
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: repo, env: env as Record<string, string>, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "keep.txt"), "keep\n");
  writeFileSync(join(repo, "edit.txt"), "one\ntwo\n");
  writeFileSync(join(repo, "gone.txt"), "bye\n");
  git("add", "-A");
  git("commit", "-q", "-m", "init");

  const { identifier, digest } = await publishApproved(env, repo, options.yaml ?? agentYaml());
  const agentId = identifier.split(":").pop()!;
  const observal = (args: string[], o: { env?: Env; cwd?: string } = {}) =>
    cli(args, { env: { ...env, ...o.env }, cwd: o.cwd ?? repo });
  return {
    root,
    home,
    repo,
    bin,
    env,
    identifier,
    agentId,
    digest,
    observal,
    async json(args, o = {}) {
      // Flags go before a "--", after which everything is a positional.
      const end = args.indexOf("--");
      const argv = end < 0
        ? [...args, "--json"]
        : [...args.slice(0, end), "--json", ...args.slice(end)];
      const r = await observal(argv, o);
      try {
        return { code: r.code, body: JSON.parse(r.stdout || "{}"), stderr: r.stderr };
      } catch {
        throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
      }
    },
    git,
    service(options = {}) {
      const ctx = createContext({ env: { ...env, ...options.env }, cwd: repo });
      const store = openTaskStore({ home, clock: ctx.clock });
      let client: RegistryClient | undefined;
      const registry = () => (client ??= openRegistryClient(ctx));
      const service = new DelegationService({
        ctx,
        store,
        registry,
        launch: options.launch ?? (() => 0),
      });
      return {
        ctx,
        store,
        registry,
        service,
        close() {
          client?.close();
          store.close();
        },
      };
    },
    program(name, script) {
      const path = join(bin, name);
      writeFileSync(path, script);
      chmodSync(path, 0o755);
      return path;
    },
    async close() {
      // Workers must exit on their own; children they left behind are stopped here.
      const deadline = Date.now() + 20_000;
      const tasks = join(home, "delegations");
      for (const id of existsSync(tasks) ? readdirSync(tasks) : []) {
        const pid = readPid(join(tasks, id));
        while (pid !== undefined && workerAlive(pid, id, join(tasks, id))) {
          if (Date.now() > deadline) {
            // What holds it, for a failure that shows once in many runs.
            const text = (name: string) => {
              const path = join(tasks, id, name);
              return existsSync(path) ? readFileSync(path, "utf8").slice(-2000) : undefined;
            };
            const seen = {
              command: processCommandLine(pid),
              identity: processIdentity(pid),
              lock: text("runner.lock"),
              log: text("worker.log"),
            };
            throw new Error(`worker ${pid} for ${id} did not exit: ${JSON.stringify(seen)}`);
          }
          await new Promise((res) => setTimeout(res, 20));
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Files and their content (latin1, so any bytes compare) under a directory, without .git. */
export function treeOf(
  dir: string,
  base = dir,
  out: Record<string, string> = {},
): Record<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === ".git") continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) treeOf(p, base, out);
    else out[p.slice(base.length + 1)] = readFileSync(p, "latin1");
  }
  return out;
}

/** Every file under a repository's .git, byte for byte: index, refs, stash, hooks, config. */
export function gitDirState(repo: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p] = readFileSync(p, "latin1");
    }
  };
  walk(join(repo, ".git"));
  return out;
}

/** Polls `delegate status` until `until` holds for the task. */
export async function waitFor(
  pg: LocalPlayground,
  id: string,
  until: (task: Task) => boolean,
  timeoutMs = 30_000,
): Promise<Task> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await pg.json(["delegate", "status", id]);
    const task = body as unknown as Task;
    if (until(task)) return task;
    if (Date.now() > end) throw new Error(`task ${id} never got there: ${JSON.stringify(task)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** Kills a stray process group left by a test (never a reused pid: tests own these). */
export function killIfAlive(pid: number | undefined): void {
  if (pid !== undefined && pidExists(pid)) signalGroup(pid, "SIGKILL");
}

/**
 * A stand-in for `claude -p` that notes its pid in $STARTS (one line per start, so a second
 * child shows), edits the copy (`four` appended to edit.txt) and answers; `gated`, it waits
 * for the $GATE file first.
 */
export function countingClaude(options: { gated: boolean }): string {
  return `#!/bin/sh
echo $$ >> "$STARTS"
cat > /dev/null
${options.gated ? 'while [ ! -e "$GATE" ]; do sleep 0.05; done\n' : ""}printf 'four\\n' >> edit.txt
printf '{"type":"result","result":"Edited.","is_error":false,"session_id":"s"}\\n'
`;
}

/**
 * A stand-in for `claude -p` that does what Claude Code does with its `--mcp-config`: it
 * starts the observal-agents entry written for the agent, as written (command, arguments,
 * variables), and makes one tool call through it; the answer it got is its result. The
 * call is find_agents, or what $STANDIN_CALLS (JSON, by agent name) says for the agent
 * run (`--agent`): a tool call (with `awaitStarts: N`, it then waits until N harnesses
 * have noted their start), or "block" to start no server and wait until ended. It
 * answers in the session it was given (`--session-id`), notes its pid in $STARTS, and, with $GATE set, it waits for that file before starting the
 * server.
 */
export const MCP_CALLING_CLAUDE = `#!/usr/bin/env node
const { spawn } = require("node:child_process");
const fs = require("node:fs");
fs.appendFileSync(process.env.STARTS, process.pid + "\\n");
const args = process.argv.slice(2);
const agent = args[args.indexOf("--agent") + 1];
const plan = JSON.parse(process.env.STANDIN_CALLS || "{}")[agent] ??
  { name: "find_agents", arguments: { task: "fix small things" } };
const config = JSON.parse(fs.readFileSync(args[args.indexOf("--mcp-config") + 1], "utf8"));
const entry = config.mcpServers["observal-agents"];
fs.readFileSync(0);
const session = args[args.indexOf("--session-id") + 1];
const answer = (text, error) => {
  process.stdout.write(JSON.stringify({ type: "result", result: text, is_error: error, session_id: session }) + "\\n");
  process.exit(0);
};
if (plan === "block") setInterval(() => {}, 1000);
else setTimeout(() => answer("observal-agents did not answer", true), 60000).unref();
(async () => {
  if (plan === "block") return;
  while (process.env.GATE && !fs.existsSync(process.env.GATE)) await new Promise((r) => setTimeout(r, 50));
  const server = spawn(entry.command, entry.args || [], {
    env: { ...process.env, ...(entry.env || {}) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting = new Map();
  let buffered = "";
  server.stdout.on("data", (d) => {
    buffered += d;
    for (let i; (i = buffered.indexOf("\\n")) >= 0; buffered = buffered.slice(i + 1)) {
      const message = JSON.parse(buffered.slice(0, i));
      waiting.get(message.id)?.(message);
    }
  });
  let next = 1;
  const call = (method, params) => new Promise((resolve) => {
    waiting.set(next, resolve);
    server.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: next++, method, params }) + "\\n");
  });
  await call("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "stand-in", version: "0" },
  });
  server.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\\n");
  const { awaitStarts, ...toolCall } = plan;
  const done = await call("tools/call", toolCall);
  // Until that many harnesses have started (the task it handed over is under way).
  while (awaitStarts && fs.readFileSync(process.env.STARTS, "utf8").trim().split("\\n").length < awaitStarts) {
    await new Promise((r) => setTimeout(r, 50));
  }
  server.stdin.end();
  const text = (done.result?.content ?? []).map((c) => c.text).join("\\n");
  answer(text || JSON.stringify(done.error), !text);
})();
`;

/** Runs the observal under test: its arguments, environment and folder; what it printed. */
export type RunObserval = (
  args: string[],
  env: Record<string, string>,
  cwd: string,
) => Promise<{ code: number; stdout: string; stderr: string }>;

/**
 * Delegates to a registry Agent (sandboxed where bubblewrap works) whose stand-in harness
 * starts the observal-agents entry written for it, as Claude Code would, and asks it for
 * agents: the answer must name a second agent, found by the broker's server outside the
 * sandbox. Proves the entry and the broker from whatever form `observal` runs.
 */
export async function assertAgentFindsThroughEntry(observal: RunObserval): Promise<void> {
  const pg = await localPlayground();
  try {
    pg.program("claude", MCP_CALLING_CLAUDE);
    // The stand-in notes its start in Claude Code's state folder: writable in a sandbox.
    mkdirSync(join(pg.root, ".claude"), { recursive: true });
    const { identifier } = await publishApproved(pg.env, pg.repo, agentYaml("helper"));
    const run = await observal(
      [
        ...["delegate", "run", pg.identifier, "--harness", "claude-code"],
        ...["--wait", "120", "--json", "--", "find some help"],
      ],
      { ...pg.env, STARTS: join(pg.root, ".claude", "starts") } as Record<string, string>,
      pg.repo,
    );
    const task = JSON.parse(run.stdout || "{}") as Task;
    const result = task.artifacts?.find((a) => a.name === "result")?.parts[0].text ?? "";
    if (task.status?.state !== "TASK_STATE_COMPLETED" || !result.includes(identifier)) {
      throw new Error(`the agent found no agent through its entry:\n${run.stdout}\n${run.stderr}`);
    }
  } finally {
    await pg.close();
  }
}
