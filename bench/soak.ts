/**
 * Memory over a long run. `observal registry serve` on a registry of 100k entries answers
 * 100k mixed requests (search, get, list, publish, me, agent detail, bad keys), and
 * `observal delegate mcp` on the same registry answers 10k tool calls; each under Deno
 * (from source) and Node (the npm build). RSS is read at start (after startup and a
 * warm-up), middle and end; the goal is end/start <= 1.3.
 *
 *   deno run -A bench/soak.ts [--quick] [--runtimes deno,node] [--parts serve,mcp] [--entries N]
 *     [--requests N] [--calls N] [--concurrency 8] [--probe] [--only KIND] [--node-flags "..."]
 *
 * --quick: 10k entries, 10k requests, 2k calls. --probe loads bench/_mem_probe.ts into each
 * server with `--expose-gc` (bench-only flags), adding heap, external memory and RSS after
 * a full collection at each point. The seeded registry is cached under tmp/soak-<entries>.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { rng, type Seed, seededHome, WORDS } from "./_soak_seed.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    quick: { type: "boolean", default: false },
    runtimes: { type: "string", default: "deno,node" },
    parts: { type: "string", default: "serve,mcp" },
    entries: { type: "string" },
    requests: { type: "string" },
    calls: { type: "string" },
    concurrency: { type: "string", default: "8" },
    probe: { type: "boolean", default: false },
    only: { type: "string" },
    "node-flags": { type: "string", default: "" },
  },
});
const quick = values.quick!;
const ENTRIES = Number(values.entries ?? (quick ? 10_000 : 100_000));
const REQUESTS = Number(values.requests ?? (quick ? 10_000 : 100_000));
const CALLS = Number(values.calls ?? (quick ? 2_000 : 10_000));
const CONCURRENCY = Number(values.concurrency);
const WARM_UP = Math.min(1000, Math.floor(REQUESTS / 10));
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DENO = process.execPath;
const NODE = join(ROOT, "node_modules", ".bin", "node");
const PROBE = join(ROOT, "bench", "_mem_probe.ts");
const MiB = 1024 * 1024;
/** --only KIND sends one kind of request (to find which one grows memory). */
const ONLY: Record<string, number> = {
  search: 0.1,
  get: 0.5,
  list: 0.7,
  publish: 0.8,
  me: 0.85,
  detail: 0.92,
  bad: 0.97,
};

type Runtime = "deno" | "node";

/** One reading: RSS as the OS sees it, and the probe's figures when --probe is on. */
interface Reading {
  rss: number;
  /** Of rss: private memory (the rest maps files, such as the database's shared memory). */
  anon: number;
  probe?: { rss: number; heapUsed: number; heapTotal: number; external: number };
}

function argv(runtime: Runtime, args: string[]): string[] {
  if (runtime === "deno") {
    // As users start them: `delegate mcp` from the entry a source checkout writes (with a
    // small young generation, as the compiled binaries have it); `registry serve` from a
    // plain `deno run`, the case without it.
    const v8 = [
      ...args[0] === "delegate" && args[1] === "mcp" ? ["--max-semi-space-size=1"] : [],
      ...values.probe ? ["--expose-gc"] : [],
    ];
    return [
      DENO,
      "run",
      "-A",
      ...v8.length ? [`--v8-flags=${v8.join(",")}`] : [],
      ...values.probe ? [`--preload=${PROBE}`] : [],
      join(ROOT, "main.ts"),
      ...args,
    ];
  }
  const probe = values.probe ? ["--expose-gc", `--import=${PROBE}`] : [];
  const flags = values["node-flags"]!.split(" ").filter(Boolean);
  return [NODE, ...flags, ...probe, join(ROOT, "tmp", "bench-npm", "bin", "observal.mjs"), ...args];
}

/** A child whose stderr lines are watched (for the probe's answers). */
function start(runtime: Runtime, args: string[], home: string) {
  const [cmd, ...rest] = argv(runtime, args);
  const child: ChildProcess = spawn(cmd, rest, {
    cwd: ROOT,
    env: { ...process.env, OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  const waiting: Array<(line: string) => void> = [];
  let partial = "";
  child.stderr!.on("data", (d) => {
    partial += d;
    stderr += d;
    for (let nl = partial.indexOf("\n"); nl >= 0; nl = partial.indexOf("\n")) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      if (line.startsWith("soak-probe ")) waiting.shift()?.(line.slice(11));
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const read = async (): Promise<Reading> => {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const kb = (field: string) =>
      Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) * 1024;
    const rss = kb("VmRSS"), anon = kb("RssAnon");
    if (!values.probe) return { rss, anon };
    const line = new Promise<string>((resolve) => waiting.push(resolve));
    // Deno's ChildProcess.kill() does not deliver SIGUSR2; process.kill() does.
    process.kill(child.pid!, "SIGUSR2");
    return { rss, anon, probe: JSON.parse(await line) };
  };
  const stop = async () => {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  return { child, read, stop, stderr: () => stderr, exited };
}

/**
 * The i-th request of the mix. Agent detail reads agents this run published (the seeded
 * rows have no stored definition).
 */
function requestFor(
  i: number,
  rand: () => number,
  seed: Seed,
  url: string,
  published: string[],
): [string, RequestInit] {
  const words = () =>
    Array.from(
      { length: 1 + Math.floor(rand() * 2) },
      () => WORDS[Math.floor(rand() * WORDS.length)],
    ).join(" ");
  // Many client addresses (the loopback is a trusted proxy), so budgets rarely bind.
  const client = `198.51.${Math.floor(rand() * 8)}.${Math.floor(rand() * 250)}`;
  const anon = { "x-forwarded-for": client };
  const admin = { ...anon, authorization: `Bearer ${seed.key}` };
  const json = { "content-type": "application/json" };
  const id = seed.ids[Math.floor(rand() * seed.ids.length)];
  const r = values.only ? ONLY[values.only] : rand();
  if (r < 0.45) {
    const body = JSON.stringify({ query: { text: words() }, pageSize: 10 });
    return [`${url}/api/v1/ard/search`, { method: "POST", headers: { ...json, ...anon }, body }];
  }
  if (r < 0.65) return [`${url}/api/v1/ard/entries/${encodeURIComponent(id)}`, { headers: anon }];
  if (r < 0.78) {
    const order = ["displayName", "updatedAt DESC"][Math.floor(rand() * 2)];
    return [`${url}/api/v1/ard/agents?pageSize=20&orderBy=${encodeURIComponent(order)}`, {
      headers: anon,
    }];
  }
  if (r < 0.83) {
    const yaml = `name: soak-${i}\nversion: 1.0.0\ndescription: Soak agent ${i} can ${words()}\n` +
      `prompt: Do the ${words()} work you are given.\nsupported_harnesses: [claude-code]\n`;
    return [`${url}/api/v1/agents`, {
      method: "POST",
      headers: { ...json, ...admin },
      body: JSON.stringify({ yaml, visibility: "public" }),
    }];
  }
  if (r < 0.9) return [`${url}/api/v1/me`, { headers: admin }];
  if (r < 0.95 && published.length > 0) {
    const agent = published[Math.floor(rand() * published.length)];
    return [`${url}/api/v1/agents/${encodeURIComponent(agent)}`, { headers: admin }];
  }
  if (r < 0.95) return [`${url}/api/v1/me`, { headers: admin }];
  const bad = { ...anon, authorization: `Bearer obs_soak_${Math.floor(rand() * 500)}` };
  return [`${url}/api/v1/ard/search`, {
    method: "POST",
    headers: { ...json, ...bad },
    body: JSON.stringify({ query: { text: "x" } }),
  }];
}

/** Sends requests [from, to) with CONCURRENCY in flight; counts answers by status. */
async function drive(
  url: string,
  seed: Seed,
  from: number,
  to: number,
  statuses: Map<number, number>,
  published: string[],
) {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      const [target, init] = requestFor(i, rng(i + 1), seed, url, published);
      const res = await fetch(target, init);
      const body = await res.text();
      if (res.status === 201 && published.length < 1000) {
        published.push(JSON.parse(body).identifier);
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) throw new Error(`${target} answered ${res.status}: ${body}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function soakServe(runtime: Runtime): Promise<Row> {
  const home = mkdtempSync(join(tmpdir(), "observal-soak-"));
  const seed = seededHome(ROOT, ENTRIES, home);
  const server = start(runtime, ["registry", "serve", "--port", "0"], home);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      server.child.stdout!.on("data", (d) => {
        out += d;
        const m = /listening (http:\/\/\S+)\n/.exec(out);
        if (m) resolve(m[1]);
      });
      server.exited.then((code) => reject(new Error(`serve exited ${code}: ${server.stderr()}`)));
    });
    const statuses = new Map<number, number>();
    const published: string[] = [];
    await drive(url, seed, 0, WARM_UP, statuses, published);
    const readings = [await server.read()];
    const started = performance.now();
    const half = WARM_UP + Math.floor(REQUESTS / 2);
    await drive(url, seed, WARM_UP, half, statuses, published);
    readings.push(await server.read());
    await drive(url, seed, half, WARM_UP + REQUESTS, statuses, published);
    readings.push(await server.read());
    const seconds = (performance.now() - started) / 1000;
    const answered = [...statuses].sort().map(([s, n]) => `${s}:${n}`).join(" ");
    return {
      name: `${runtime} serve`,
      readings,
      rate: `${(REQUESTS / seconds).toFixed(0)} req/s`,
      note: answered,
    };
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

async function soakMcp(runtime: Runtime): Promise<Row> {
  const home = mkdtempSync(join(tmpdir(), "observal-soak-"));
  seededHome(ROOT, ENTRIES, home);
  const server = start(runtime, ["delegate", "mcp"], home);
  try {
    let buffer = "";
    const pending = new Map<number, (message: { error?: unknown }) => void>();
    server.child.stdout!.on("data", (d) => {
      buffer += d;
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (typeof message.id === "number") pending.get(message.id)?.(message);
      }
    });
    let id = 0;
    const call = (method: string, params: unknown) =>
      new Promise<{ error?: unknown; result?: { isError?: boolean } }>((resolve, reject) => {
        const n = ++id;
        pending.set(n, (m) => {
          pending.delete(n);
          if (m.error) reject(new Error(`${method} failed: ${JSON.stringify(m.error)}`));
          else resolve(m);
        });
        server.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id: n, method, params })}\n`);
      });
    await call("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench-soak", version: "1" },
    });
    server.child.stdin!.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
    );
    await call("tools/list", {});
    let failed = 0;
    const tool = async (i: number) => {
      const rand = rng(i + 1);
      const arguments_ = rand() < 0.8
        ? { name: "find_agents", arguments: { task: `${WORDS[i % WORDS.length]} the code` } }
        : { name: "get_task", arguments: { task_id: crypto.randomUUID() } };
      const out = await call("tools/call", arguments_);
      if (out.result?.isError) failed++;
    };
    const run = async (from: number, to: number) => {
      for (let i = from; i < to; i++) await tool(i);
    };
    const warm = Math.min(200, Math.floor(CALLS / 10));
    await run(0, warm);
    const readings = [await server.read()];
    const started = performance.now();
    await run(warm, warm + Math.floor(CALLS / 2));
    readings.push(await server.read());
    await run(warm + Math.floor(CALLS / 2), warm + CALLS);
    readings.push(await server.read());
    const seconds = (performance.now() - started) / 1000;
    server.child.stdin!.end();
    return {
      name: `${runtime} mcp`,
      readings,
      rate: `${(CALLS / seconds).toFixed(0)} calls/s`,
      note: `${failed} tool errors (get_task of unknown tasks)`,
    };
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

interface Row {
  name: string;
  readings: Reading[];
  rate: string;
  note: string;
}

const runtimes = values.runtimes!.split(",") as Runtime[];
if (runtimes.includes("node")) {
  execFileSync(DENO, ["run", "-A", "scripts/build_npm.ts", "--out", "tmp/bench-npm"], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
}
const mib = (n: number) => (n / MiB).toFixed(0);
console.log(
  `soak: ${ENTRIES} entries, ${REQUESTS} requests (after ${WARM_UP} warm-up), ${CALLS} MCP calls`,
);
/** Prints a row as soon as it is measured: a full run takes long. */
function print(row: Row) {
  const [a, b, c] = row.readings;
  console.log(
    `${row.name.padEnd(11)} RSS MiB start ${mib(a.rss)}  mid ${mib(b.rss)}  end ${mib(c.rss)}` +
      `  end/start ${(c.rss / a.rss).toFixed(2)}  (anon ${mib(a.anon)} ${mib(b.anon)} ${
        mib(c.anon)
      })  ${row.rate}  ${row.note}`,
  );
  if (a.probe && c.probe) {
    const p = (r: Reading) =>
      `rss ${mib(r.probe!.rss)} heap ${mib(r.probe!.heapUsed)}/${mib(r.probe!.heapTotal)} ext ${
        mib(r.probe!.external)
      }`;
    console.log(
      `${"".padEnd(11)} after GC: start ${p(a)} | mid ${p(b)} | end ${p(c)}` +
        `  rss end/start ${(c.probe.rss / a.probe.rss).toFixed(2)}`,
    );
  }
}

const parts = values.parts!.split(",");
for (const runtime of runtimes) {
  if (parts.includes("serve")) print(await soakServe(runtime));
  if (parts.includes("mcp")) print(await soakMcp(runtime));
}
