/**
 * Start-up and waiting: how long each kind of observal process takes, as a ratio to the
 * runtime's empty start (`deno eval ''`, and `node -e ''` for the npm bundle) measured in
 * the same run, and `delegate run` against a local @a2a-js/sdk agent beside the bare SDK
 * round trip. Every number is the median of several runs, taken in interleaved rounds so
 * that a busy moment of the machine spreads over all of them alike. A last section checks
 * that task-store operations stay flat from 100 to 100 000 tasks. "binary" rows run the
 * bundle a compiled binary embeds (`compile.sh --bundle`) as the binary runs it (see
 * `bundleAsBinary`: its flags, and no code cache for what it imports dynamically).
 * Floor rows time the same kinds of process with no observal code in them
 * (bench/_floor.ts). Search is timed with one word and with two (a page that holds
 * registry Agents, so it also asks which harnesses run here); the first find_agents of an
 * MCP session is timed from its send, sent a model's pause after tools/list.
 *
 * The 100k registry is the one bench/search.ts caches under tmp/bench-search/; without it
 * a smaller registry is generated here (and the report says so).
 *
 *   deno run -A bench/startup.ts [--runs 9] [--root DIR] [--deno-flags "..."] [--no-npm]
 *                                [--store-sizes 100,1000,100000] [--list-tasks 10000]
 *
 * `--root` measures another checkout of observal (its main.ts and its npm bundle) with this
 * one's setup code, to compare before and after a change; `--deno-flags` adds flags to every
 * `deno run` of observal (e.g. `--unstable-lazy-dynamic-imports`).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SendMessageRequest } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import type { Task } from "../lib/a2a/mod.ts";
import { systemClock } from "../lib/core/mod.ts";
import { createRegistryApp, openRegistry, registryPath } from "../lib/server/mod.ts";
import { openTaskStore, type TaskStore } from "../lib/store/mod.ts";
import { startV1Agent, type TestAgent } from "../tests/support/a2a_agents.ts";
import { copyFlushed } from "./_copy.ts";
import { bundleAsBinary } from "./_local_run.ts";

const here = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: "string", default: "9" },
    root: { type: "string", default: here },
    "no-npm": { type: "boolean", default: false },
    "store-sizes": { type: "string", default: "100,1000,100000" },
    "list-tasks": { type: "string", default: "10000" },
    "deno-flags": { type: "string", default: "" },
  },
});
const RUNS = Number(values.runs);
const ROOT = resolve(values.root!);
const MAIN = join(ROOT, "main.ts");
const DENO = process.execPath;
const NODE = join(here, "node_modules", ".bin", "node");
const CACHE = join(here, "tmp", "bench-startup");
const LIST_TASKS = Number(values["list-tasks"]);
/** The no-observal floor script (always this checkout's, whatever `--root` measures). */
const FLOOR = join(here, "bench", "_floor.ts");
/** Bump when the cached task stores change shape. */
const STORE_CACHE_VERSION = 1;
const baseEnv: Record<string, string> = {
  ...process.env as Record<string, string>,
  RUST_BACKTRACE: "0",
  NO_COLOR: "1",
};

// ---- processes -------------------------------------------------------------------------

interface Exited {
  ms: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its exit; the time is from spawn to exit. */
function run(argv: string[], env: Record<string, string> = baseEnv, cwd = ROOT): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(argv[0], argv.slice(1), { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ ms: performance.now() - start, code, stdout, stderr }));
  });
}

/** Runs a program and fails the bench when it does not exit 0. */
async function ok(argv: string[], env?: Record<string, string>): Promise<Exited> {
  const r = await run(argv, env);
  if (r.code !== 0) {
    throw new Error(`${argv.slice(-4).join(" ")} exited ${r.code}: ${r.stderr.slice(-600)}`);
  }
  return r;
}

/** How long the bench's MCP client waits after tools/list, as a model would, before its call. */
const MCP_PAUSE_MS = 200;
const MCP_FIND = `MCP first find_agents (${MCP_PAUSE_MS} ms after tools/list)`;

const DENO_FLAGS = values["deno-flags"]!.split(" ").filter(Boolean);
const deno = (...args: string[]) => [DENO, "run", "-A", ...DENO_FLAGS, MAIN, ...args];
const homeEnv = (home: string) => ({ ...baseEnv, OBSERVAL_HOME: home, HOME: home });

/**
 * Spawns an MCP server on stdio and times initialize and tools/list from the spawn: the
 * handshake a harness makes at the start of every session. With `find`, it then waits
 * `pause` ms (the model choosing its first call) and times a find_agents call from its send.
 */
function mcpHandshake(
  argv: string[],
  env: Record<string, string>,
  find?: { task: string; pause: number },
) {
  return new Promise<{ initialize: number; tools: number; find?: number }>((resolve, reject) => {
    const start = performance.now();
    const child: ChildProcess = spawn(argv[0], argv.slice(1), {
      env,
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let buffer = "";
    let stderr = "";
    const times: Record<number, number> = {};
    const send = (message: unknown) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    let sent = 0;
    child.on("close", (code) => {
      if (times[find ? 3 : 2] === undefined) {
        reject(new Error(`MCP server exited ${code}: ${stderr}`));
      } else resolve({ initialize: times[1], tools: times[2], find: times[3] - sent });
    });
    child.stdout!.on("data", (d) => {
      buffer += d;
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const message = JSON.parse(line) as { id?: number; error?: unknown };
        if (message.id === undefined) continue;
        times[message.id] = performance.now() - start;
        if (message.error) {
          reject(new Error(`MCP call ${message.id} failed: ${JSON.stringify(message.error)}`));
        }
        if (message.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
        } else if (message.id === 2 && find) {
          setTimeout(() => {
            sent = performance.now() - start;
            send({
              jsonrpc: "2.0",
              id: 3,
              method: "tools/call",
              params: { name: "find_agents", arguments: { task: find.task } },
            });
          }, find.pause);
        } else {
          child.stdin!.end();
        }
      }
    });
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench-startup", version: "1" },
      },
    });
  });
}

// ---- fixtures --------------------------------------------------------------------------

function tempHome(label: string): string {
  return mkdtempSync(join(tmpdir(), `observal-bench-${label}-`));
}

function fakeTask(home: string, i: number, parent?: string): Task {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(/\.\d+Z$/, "Z");
  return {
    id: crypto.randomUUID(),
    contextId: crypto.randomUUID(),
    status: { state: i % 7 === 0 ? "TASK_STATE_FAILED" : "TASK_STATE_COMPLETED", timestamp: at },
    history: [{
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      parts: [{ text: `Task number ${i}: look at the parser and report.` }],
    }],
    artifacts: [],
    metadata: {
      observal: {
        target: `urn:air:bench:a2a:agent-${i % 50}`,
        targetName: `Agent ${i % 50}`,
        kind: "a2a",
        remoteUrl: "http://127.0.0.1:9/a2a",
        depth: parent ? 1 : 0,
        maxDepth: 2,
        chain: [],
        cwd: home,
        createdAt: at,
        ...(parent ? { parentTaskId: parent } : {}),
      },
    },
  };
}

/**
 * A home whose task store holds `n` settled tasks, the first with three children (as many
 * as a delegated agent may start), built once and cached: inserting 100 000 tasks one by
 * one takes a while.
 */
function storeHome(n: number): { home: string; parent: string; some: string } {
  const cached = join(CACHE, `tasks-v${STORE_CACHE_VERSION}-${n}`);
  if (!existsSync(join(cached, "delegations", "tasks.db"))) {
    const building = `${cached}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    const store = openTaskStore({ home: building, clock: systemClock });
    const first = store.insert(fakeTask(building, 0));
    for (let i = 1; i < n; i++) {
      store.insert(fakeTask(building, i, i <= 3 ? first.id : undefined));
    }
    store.close();
    rmSync(cached, { recursive: true, force: true });
    renameSync(building, cached);
  }
  const home = tempHome(`tasks-${n}`);
  mkdirSync(join(home, "delegations"), { recursive: true });
  copyFlushed(join(cached, "delegations", "tasks.db"), join(home, "delegations", "tasks.db"));
  const db = new DatabaseSync(join(home, "delegations", "tasks.db"), { readOnly: true });
  const first = db.prepare("SELECT id FROM tasks ORDER BY rowid LIMIT 1").get() as { id: string };
  const middle = db.prepare("SELECT id FROM tasks ORDER BY rowid LIMIT 1 OFFSET ?").get(
    Math.floor(n / 2),
  ) as { id: string };
  db.close();
  return { home, parent: first.id, some: middle.id };
}

/** The newest cached 100k registry of bench/search.ts, if there is one. */
function cachedRegistry(): string | undefined {
  const dir = join(here, "tmp", "bench-search");
  if (!existsSync(dir)) return undefined;
  const dbs = readdirSync(dir).filter((f) => /-100000\.db$/.test(f))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return dbs[0];
}

const AGENT_YAML = (i: number, words: string) =>
  `name: bench-agent-${i}\nversion: 1.0.0\ndescription: ${words}\nprompt: Help with ${words}.\n`;

/** A registry home for `registry search`: the 100k corpus, or `fallback` published agents. */
async function searchHome(
  fallback: number,
): Promise<{ home: string; query: string; twoWords: string; note: string }> {
  const home = tempHome("search");
  const source = cachedRegistry();
  if (source) {
    copyFlushed(source, registryPath(home));
    const db = new DatabaseSync(registryPath(home), { readOnly: true });
    const row = db.prepare("SELECT description FROM entries ORDER BY rowid LIMIT 1 OFFSET 5000")
      .get() as { description: string };
    db.close();
    const words = [...new Set(row.description.toLowerCase().split(/\W+/))]
      .filter((w) => w.length >= 4);
    return {
      home,
      query: words[0] ?? "review",
      twoWords: words.slice(0, 2).join(" "),
      note: `100k entries from ${source.slice(here.length)}`,
    };
  }
  const state = openRegistry({
    path: registryPath(home),
    clock: systemClock,
    delegationCommand: ["observal", "delegate", "mcp"],
  });
  const app = createRegistryApp(state, { localAdmin: true, rateLimit: false });
  const topics = ["parser", "review", "security", "release", "docs", "tests", "deploy", "lint"];
  for (let i = 0; i < fallback; i++) {
    const words = `${topics[i % topics.length]} ${topics[(i * 7) % topics.length]} helper`;
    const res = await app.fetch(
      new Request("http://observal.local/api/v1/agents", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ yaml: AGENT_YAML(i, words), visibility: "public" }),
      }),
    );
    if (!res.ok) throw new Error(`publish failed: ${await res.text()}`);
  }
  state.close();
  return {
    home,
    query: "parser",
    twoWords: "parser review",
    note: `no cached 100k registry (run bench/search.ts first); ${fallback} published agents`,
  };
}

/** A home whose registry has the agent approved (through the CLI, as a user would). */
async function agentHome(agent: TestAgent): Promise<{ home: string; identifier: string }> {
  const home = tempHome("run");
  const env = homeEnv(home);
  await ok(deno("registry", "settings", "set", "discovery.a2a_private_hosts", "127.0.0.1"), env);
  const submitted = JSON.parse(
    (await ok(
      deno("registry", "a2a", "submit", agent.cardUrl, "--visibility", "public", "--json"),
      env,
    ))
      .stdout,
  );
  await ok(
    deno(
      "registry",
      "a2a",
      "review",
      submitted.identifier,
      "--approve",
      "--digest",
      submitted["obs:artifactDigest"],
    ),
    env,
  );
  return { home, identifier: submitted.identifier };
}

/** A fresh, never-run copy of a task, for timing a worker's start on its own. */
function freshCopy(task: Task): Task {
  const id = crypto.randomUUID();
  const contextId = crypto.randomUUID();
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const { remoteTaskId: _r, remoteContextId: _c, remoteStatusTimestamp: _s, ...meta } =
    task.metadata.observal;
  return {
    id,
    contextId,
    status: { state: "TASK_STATE_SUBMITTED", timestamp: now },
    history: [{ ...task.history![0], messageId: crypto.randomUUID(), taskId: id, contextId }],
    artifacts: [],
    metadata: { observal: { ...meta, createdAt: now } },
  };
}

/** Calls `fn` the moment the agent receives its next request. */
function onNextRequest(agent: TestAgent, fn: () => void): void {
  const requests = agent.requests;
  const push = requests.push;
  requests.push = function (...items) {
    requests.push = push;
    fn();
    return push.apply(requests, items);
  };
}

// ---- measurements ----------------------------------------------------------------------

type Measure = () => Promise<Record<string, number>>;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs every measure once per round (after one warm-up round), `rounds` times. */
async function interleaved(measures: Measure[], rounds: number) {
  const samples = new Map<string, number[]>();
  for (let round = -1; round < rounds; round++) {
    for (const measure of measures) {
      const out = await measure();
      if (round < 0) continue;
      for (const [k, v] of Object.entries(out)) samples.set(k, [...samples.get(k) ?? [], v]);
    }
  }
  return new Map([...samples].map(([k, v]) => [k, median(v)]));
}

const cleanup: string[] = [];
const agent = await startV1Agent({ behaviour: "complete" });
try {
  console.log(
    `observal at ${ROOT}${DENO_FLAGS.length ? ` (deno run ${DENO_FLAGS.join(" ")})` : ""}; ` +
      `${RUNS} interleaved rounds, medians\n`,
  );
  const empty = tempHome("empty");
  cleanup.push(empty);
  const listed = storeHome(LIST_TASKS);
  cleanup.push(listed.home);
  const search = await searchHome(2000);
  cleanup.push(search.home);
  const remote = await agentHome(agent);
  cleanup.push(remote.home);
  // One real run leaves a task to copy for the worker's start.
  const first = JSON.parse(
    (await ok(
      deno("delegate", "run", remote.identifier, "ping", "--wait", "60", "--json"),
      homeEnv(remote.home),
    )).stdout,
  ) as Task;
  if (first.status.state !== "TASK_STATE_COMPLETED") throw new Error(JSON.stringify(first));
  const store: TaskStore = openTaskStore({ home: remote.home, clock: systemClock });
  const sdk = await new ClientFactory().createFromUrl(agent.url);

  const time =
    (key: string, argv: string[], env?: Record<string, string>): Measure => async () => ({
      [key]: (await ok(argv, env)).ms,
    });
  const deno_: Measure[] = [
    time("deno eval ''", [DENO, "eval", ""]),
    time("--version", deno("--version")),
    time("delegate list (empty)", deno("delegate", "list"), homeEnv(empty)),
    time(`delegate list (${LIST_TASKS} tasks)`, deno("delegate", "list"), homeEnv(listed.home)),
    time("registry search (empty)", deno("registry", "search", "review"), homeEnv(empty)),
    time(
      "registry search (large)",
      deno("registry", "search", search.query),
      homeEnv(search.home),
    ),
    time(
      "registry search (large, two words)",
      deno("registry", "search", search.twoWords),
      homeEnv(search.home),
    ),
    async () => {
      const t = await mcpHandshake(deno("delegate", "mcp"), homeEnv(empty));
      return { "MCP spawn→initialize": t.initialize, "MCP spawn→tools/list": t.tools };
    },
    async () => {
      const t = await mcpHandshake(deno("delegate", "mcp"), homeEnv(search.home), {
        task: search.twoWords,
        pause: MCP_PAUSE_MS,
      });
      return { [MCP_FIND]: t.find! };
    },
    async () => {
      const task = store.insert(freshCopy(first));
      let rpc = 0;
      onNextRequest(agent, () => (rpc = performance.now()));
      const start = performance.now();
      await ok(deno("delegate", "worker", task.id), homeEnv(remote.home));
      if (!rpc) throw new Error("the worker sent no request");
      return { "worker spawn→first RPC": rpc - start };
    },
    time(
      "delegate run (local agent)",
      deno("delegate", "run", remote.identifier, "ping", "--wait", "60"),
      homeEnv(remote.home),
    ),
    // The floor under `delegate run`: one runtime start that starts another, which makes one
    // request to the agent and exits, then the first exits too (no observal code at all).
    time("floor: deno → deno → agent", [
      DENO,
      "eval",
      `await new Deno.Command(Deno.execPath(), { args: ["eval", ${
        JSON.stringify(`await (await fetch(${JSON.stringify(agent.cardUrl)})).text();`)
      }] }).output();`,
    ]),
    // The floors under every store-reading command and under a delegation made by two such
    // processes: zod and node:sqlite, with no observal code and no Node layer.
    time("floor: store reader", [DENO, "run", "-A", FLOOR]),
    time("floor: store reader → store reader → agent", [
      DENO,
      "run",
      "-A",
      FLOOR,
      agent.cardUrl,
    ]),
    // The same work in one process: the floor of a delegation the caller would run itself.
    time("floor: store reader → agent", [DENO, "run", "-A", FLOOR, agent.cardUrl, "child"]),
    async () => {
      const start = performance.now();
      await sdk.sendMessage(SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "ping" }] },
      }));
      return { "bare SDK round trip": performance.now() - start };
    },
  ];

  // The bundle a compiled binary embeds, run as the binary runs it (deno compile itself
  // needs a runtime download this machine cannot make).
  const binDir = join(ROOT, "tmp", "bench-binary");
  // A checkout from before `compile.sh --bundle` (measured with --root) has no such rows.
  let hasBinary = true;
  try {
    execFileSync("bash", [join(ROOT, "compile.sh"), "--bundle", binDir], {
      cwd: ROOT,
      env: baseEnv,
      stdio: "pipe",
    });
  } catch {
    hasBinary = false;
    console.log(`${ROOT}: compile.sh --bundle failed or is missing; no binary rows\n`);
  }
  const binary = (...args: string[]) => [...bundleAsBinary(ROOT, binDir), ...args];
  const binary_: Measure[] = !hasBinary ? [] : [
    time("binary --version", binary("--version")),
    time("binary delegate list (empty)", binary("delegate", "list"), homeEnv(empty)),
    time(
      "binary registry search (large)",
      binary("registry", "search", search.query),
      homeEnv(search.home),
    ),
    async () => ({
      "binary MCP spawn→tools/list":
        (await mcpHandshake(binary("delegate", "mcp"), homeEnv(empty))).tools,
    }),
    time(
      "binary delegate run (local agent)",
      binary("delegate", "run", remote.identifier, "ping", "--wait", "60"),
      homeEnv(remote.home),
    ),
  ];

  let node_: Measure[] = [];
  if (!values["no-npm"]) {
    const out = join(ROOT, "tmp", "bench-npm");
    execFileSync(DENO, ["run", "-A", "scripts/build_npm.ts", "--out", out], {
      cwd: ROOT,
      env: baseEnv,
      stdio: "inherit",
    });
    const bin = join(out, "bin", "observal.mjs");
    const nodeArgv = (...args: string[]) => [NODE, bin, ...args];
    const noCache = (env: Record<string, string>) => ({ ...env, NODE_DISABLE_COMPILE_CACHE: "1" });
    node_ = [
      time("node -e ''", [NODE, "-e", ""]),
      time("npm --version", nodeArgv("--version")),
      time("npm --version (no compile cache)", nodeArgv("--version"), noCache(baseEnv)),
      time("npm delegate list (empty)", nodeArgv("delegate", "list"), homeEnv(empty)),
      time(
        "npm delegate list (empty, no compile cache)",
        nodeArgv("delegate", "list"),
        noCache(homeEnv(empty)),
      ),
      time("npm registry search (empty)", nodeArgv("registry", "search", "review"), homeEnv(empty)),
      async () => ({
        "npm MCP spawn→tools/list":
          (await mcpHandshake(nodeArgv("delegate", "mcp"), homeEnv(empty))).tools,
      }),
      time(
        "npm delegate run (local agent)",
        nodeArgv("delegate", "run", remote.identifier, "ping", "--wait", "60"),
        homeEnv(remote.home),
      ),
    ];
  }

  const results = await interleaved([...deno_, ...binary_, ...node_], RUNS);
  store.close();
  const get = (k: string) => results.get(k)!;
  const base = get("deno eval ''");
  const rows: Array<[string, number, string, string]> = [];
  const row = (name: string, against: number, baseline: string, goal?: number) => {
    const ms = get(name);
    const ratio = ms / against;
    const verdict = goal === undefined ? "" : ratio <= goal ? `≤ ${goal}× ok` : `> ${goal}× MISSED`;
    rows.push([name, ms, `${ratio.toFixed(2)}× ${baseline}`, verdict]);
  };
  row("deno eval ''", base, "deno eval");
  row("--version", base, "deno eval", 3);
  row("delegate list (empty)", base, "deno eval", 3);
  row(`delegate list (${LIST_TASKS} tasks)`, base, "deno eval", 3);
  row("registry search (empty)", base, "deno eval", 3);
  row("registry search (large)", base, "deno eval", 3);
  row("registry search (large, two words)", base, "deno eval", 3);
  row("MCP spawn→initialize", base, "deno eval");
  row("MCP spawn→tools/list", base, "deno eval", 3);
  row(MCP_FIND, base, "deno eval");
  row("worker spawn→first RPC", base, "deno eval");
  row("bare SDK round trip", base, "deno eval");
  row("floor: deno → deno → agent", base, "deno eval");
  row("floor: store reader", base, "deno eval");
  row("floor: store reader → store reader → agent", base, "deno eval");
  row("floor: store reader → agent", base, "deno eval");
  const sdkMs = get("bare SDK round trip");
  /** A delegation's row: beside the runtime's empty start plus the bare SDK round trip. */
  const runRow = (name: string, against: number, baseline: string) => {
    const ms = get(name);
    rows.push([
      name,
      ms,
      `${((ms - sdkMs) / against).toFixed(2)}× ${baseline} + SDK round trip`,
      ms <= 4 * against + sdkMs ? "≤ 4× + SDK ok" : "> 4× + SDK MISSED",
    ]);
  };
  runRow("delegate run (local agent)", base, "deno eval");
  if (hasBinary) {
    row("binary --version", base, "deno eval", 3);
    row("binary delegate list (empty)", base, "deno eval", 3);
    row("binary registry search (large)", base, "deno eval", 3);
    row("binary MCP spawn→tools/list", base, "deno eval", 3);
    runRow("binary delegate run (local agent)", base, "deno eval");
  }
  if (node_.length) {
    const nodeBase = get("node -e ''");
    row("node -e ''", nodeBase, "node -e");
    row("npm --version", nodeBase, "node -e", 3);
    row("npm --version (no compile cache)", nodeBase, "node -e", 3);
    row("npm delegate list (empty)", nodeBase, "node -e", 3);
    row("npm delegate list (empty, no compile cache)", nodeBase, "node -e", 3);
    row("npm registry search (empty)", nodeBase, "node -e", 3);
    row("npm MCP spawn→tools/list", nodeBase, "node -e", 3);
    runRow("npm delegate run (local agent)", nodeBase, "node -e");
  }
  const width = Math.max(...rows.map((r) => r[0].length));
  for (const [name, ms, ratio, verdict] of rows) {
    console.log(
      `${name.padEnd(width)}  ${ms.toFixed(1).padStart(7)} ms  ${ratio.padEnd(34)} ${verdict}`,
    );
  }
  console.log(
    `\nregistry search (large): ${search.note}, queries "${search.query}" and "${search.twoWords}"`,
  );

  // ---- task-store scale ----------------------------------------------------------------
  const sizes = values["store-sizes"]!.split(",").map(Number);
  console.log("\ntask store, in process (median µs of 200 calls):");
  console.log(
    `${"tasks".padStart(8)} ${"list 20".padStart(10)} ${"status".padStart(10)} ${
      "breadth".padStart(10)
    }`,
  );
  for (const n of sizes) {
    const { home, parent, some } = storeHome(n);
    cleanup.push(home);
    const s = openTaskStore({ home, clock: systemClock });
    const micro = (fn: () => unknown) => {
      fn();
      const xs: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t = performance.now();
        fn();
        xs.push((performance.now() - t) * 1000);
      }
      return median(xs).toFixed(0);
    };
    const list = micro(() => s.list({ limit: 20 }));
    const status = micro(() => s.require(some));
    const breadth = micro(() => s.countChildren(parent));
    s.close();
    console.log(
      `${String(n).padStart(8)} ${list.padStart(10)} ${status.padStart(10)} ${
        breadth.padStart(10)
      }`,
    );
  }
} finally {
  await agent.close();
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
}
