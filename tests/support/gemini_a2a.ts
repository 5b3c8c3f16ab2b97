/**
 * A real third-party A2A agent for end-to-end tests: Google's Gemini CLI A2A server
 * (`@google/gemini-cli-a2a-server`, pinned), its npm tarball unpacked into the same cache
 * folder as the harness CLIs, run against the scripted model server inside its loopback-only
 * network namespace, with a recording proxy in front of it that logs every A2A request
 * and every server-sent event as it passes.
 *
 * Facts about the pinned server that the helpers rely on:
 *
 * - its npm `bin` link does not start it (the entry point compares its own file name with
 *   `argv[1]`), so it is run as `node <package>/dist/a2a-server.mjs`;
 * - it serves its card at `/.well-known/agent-card.json` and JSON-RPC at `/`; the card's
 *   `url` is `http://localhost:<port>/`;
 * - it logs `Agent Server started on http://localhost:<port>` once listening;
 * - it sends usage statistics and tries to download ripgrep whatever its settings say,
 *   so it only ever runs inside a namespace with nothing but loopback.
 *
 * The same file, run as a program, is the recording proxy (see {@linkcode startA2aRecorder}).
 *
 * @module
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { harnessCliCacheDir, TEST_API_KEY } from "./harness_clis.ts";
import { firstLine } from "./process.ts";

/** The pinned package and the module its server starts from. */
export const GEMINI_A2A_PIN = {
  package: "@google/gemini-cli-a2a-server",
  version: "0.25.2",
  entry: "dist/a2a-server.mjs",
} as const;

/** Where the card is served, relative to the server's root. */
export const GEMINI_A2A_CARD_PATH = "/.well-known/agent-card.json";

const SELF = fileURLToPath(import.meta.url);
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const READY = ".observal-ready";

function installDir(): string {
  return join(harnessCliCacheDir(), `${GEMINI_A2A_PIN.package}@${GEMINI_A2A_PIN.version}`);
}

/** An installed server. */
export interface GeminiA2aInstall {
  /** Absolute path of the module to run with node. */
  entry: string;
  /** Node to run it with (the repo's Node 24 when installed, else `node` from PATH). */
  node: string;
  version: string;
}

function nodeBinary(): string {
  const local = join(REPO, "node_modules", "node", "bin", "node");
  return existsSync(local) ? local : "node";
}

function paths(): GeminiA2aInstall {
  return {
    entry: join(installDir(), "package", GEMINI_A2A_PIN.entry),
    node: nodeBinary(),
    version: GEMINI_A2A_PIN.version,
  };
}

function tail(text: string, lines = 20): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const node = dirname(nodeBinary());
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    env: {
      ...Deno.env.toObject(),
      PATH: [node === "." ? undefined : node, Deno.env.get("PATH")].filter(Boolean).join(":"),
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false",
    },
    clearEnv: true,
    stdin: "null",
    signal: AbortSignal.timeout(300_000),
  }).output().catch((e: Error) => ({
    code: -1,
    stdout: new Uint8Array(),
    stderr: new TextEncoder().encode(`could not run ${cmd}: ${e.message}`),
  }));
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (out.code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed:\n${tail(text)}`);
  return text;
}

/**
 * Fetches the package's tarball with `npm pack` and unpacks it. Its server is one bundled
 * module with everything it needs inside (wasm included), so the 500 MB of dependencies a
 * full `npm install` brings are not needed.
 */
async function install(): Promise<void> {
  const dir = installDir();
  const spec = `${GEMINI_A2A_PIN.package}@${GEMINI_A2A_PIN.version}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    const packed = await run("npm", ["pack", spec, "--silent"], dir);
    const tarball = packed.trim().split("\n").at(-1)!;
    await run("tar", ["-xzf", tarball], dir);
    rmSync(join(dir, tarball));
  } catch (e) {
    throw new Error(
      `Installing ${spec} for the A2A tests failed (it needs the npm registry, or ` +
        `OBSERVAL_TEST_CLI_CACHE pointing at a folder where it is installed): ${
          (e as Error).message
        }`,
    );
  }
  const { entry } = paths();
  const manifest = JSON.parse(readFileSync(join(dir, "package", "package.json"), "utf8"));
  if (manifest.version !== GEMINI_A2A_PIN.version || !existsSync(entry)) {
    throw new Error(`${spec} unpacked, but ${entry} is missing or reports ${manifest.version}`);
  }
  writeFileSync(join(dir, READY), `${spec}\n`);
}

/**
 * Installs the pinned Gemini CLI A2A server (its npm tarball, unpacked) into the harness CLI
 * cache folder unless it is there already; a file lock keeps parallel test files from
 * installing it twice at once.
 *
 * @returns the module to run and the node to run it with
 * @throws {Error} when npm or tar fails (never a skip)
 *
 * @example
 * ```ts ignore
 * const { node, entry } = await ensureGeminiA2aServer();
 * ```
 */
export async function ensureGeminiA2aServer(): Promise<GeminiA2aInstall> {
  const ready = join(installDir(), READY);
  const installed = () => existsSync(ready) && existsSync(paths().entry);
  if (installed()) return paths();
  const locks = join(harnessCliCacheDir(), ".locks");
  mkdirSync(locks, { recursive: true });
  const lock = await Deno.open(join(locks, "gemini-cli-a2a-server.lock"), {
    create: true,
    write: true,
  });
  try {
    await lock.lock(true);
    if (!installed()) await install();
  } finally {
    await lock.unlock();
    lock.close();
  }
  return paths();
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Options for {@linkcode geminiA2aEnv}. */
export interface GeminiA2aEnvOptions {
  /** The server's HOME; its settings and git identity are written there. */
  home: string;
  /** The folder it works in (CODER_AGENT_WORKSPACE_PATH). */
  workspace: string;
  /** The scripted model server's base URL, without a path. */
  modelUrl: string;
  /** CODER_AGENT_PORT; without it the server takes any free port. */
  port?: number;
}

/**
 * The complete environment for the server, and the files it reads under `home`: the model
 * endpoint and key, the workspace, YOLO mode (tools run without asking), settings with
 * telemetry off and a git identity. Nothing from the test process's environment leaks in
 * except PATH.
 *
 * @param options home, workspace, model URL and optional port
 * @returns the environment variables
 */
export function geminiA2aEnv(options: GeminiA2aEnvOptions): Record<string, string> {
  const { home, workspace, modelUrl, port } = options;
  // The server authenticates with GEMINI_API_KEY without an auth setting, and takes no
  // privacy setting from this file (usage statistics stay on); telemetry it does read.
  write(join(home, ".gemini", "settings.json"), JSON.stringify({ telemetry: { enabled: false } }));
  // Without an identity every file-editing tool call fails: it commits a checkpoint first.
  write(join(home, ".gitconfig"), "[user]\n\tname = Observal Test\n\temail = test@example.com\n");
  mkdirSync(join(home, "tmp"), { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    // It looks for IDE connection files under the temp folder: keep that in the run's folder.
    TMPDIR: join(home, "tmp"),
    PATH: [dirname(nodeBinary()), Deno.env.get("PATH") ?? "/usr/bin:/bin"].join(":"),
    LANG: "C.UTF-8",
    NO_COLOR: "1",
    GOOGLE_GEMINI_BASE_URL: modelUrl,
    GEMINI_API_KEY: TEST_API_KEY,
    CODER_AGENT_WORKSPACE_PATH: workspace,
    GEMINI_YOLO_MODE: "true",
  };
  if (port !== undefined) env.CODER_AGENT_PORT = String(port);
  return env;
}

/** A running Gemini CLI A2A server. */
export interface GeminiA2aAgent {
  port: number;
  /** Its root URL inside the namespace, e.g. `http://127.0.0.1:41242`. */
  url: string;
  /** Its card's URL inside the namespace. */
  cardUrl: string;
  /** The folder it works in, a git repository with one commit. */
  workspace: string;
  /** Everything it printed so far (it logs each event it publishes). */
  log(): string;
  /** Stops it (SIGTERM, then SIGKILL after 5 s). */
  close(): Promise<void>;
}

/** Options for {@linkcode startGeminiA2aAgent}. */
export interface StartGeminiA2aOptions {
  /** Argv prefix that enters a loopback-only network namespace; must not be empty. */
  enter: string[];
  /** The scripted model server's base URL, valid inside that namespace. */
  modelUrl: string;
  /** A temp folder for the server's home and workspace. */
  root: string;
  /** CODER_AGENT_PORT; without it the server takes any free port. */
  port?: number;
  /** @default 90_000 */
  startTimeoutMs?: number;
}

const STARTED = /Agent Server started on http:\/\/localhost:(\d+)/;

async function git(cwd: string, env: Record<string, string>, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args, cwd, env, clearEnv: true, stdin: "null" })
    .output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function collect(stream: ReadableStream<Uint8Array>, onText: (t: string) => void) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }));
}

/**
 * Starts the Gemini CLI A2A server in the namespace `enter` joins, with a fresh home and a
 * git workspace under `root`, and waits until it listens. It dies with the test process.
 *
 * @param options the namespace, the model server, a temp folder and an optional port
 * @returns the running server
 * @throws {Error} when `enter` is empty (the server would reach the internet), or when it
 *   exits or stays silent before listening
 *
 * @example
 * ```ts ignore
 * const model = await startModelServerInNetns();
 * const agent = await startGeminiA2aAgent({ enter: model.enter, modelUrl: model.url, root });
 * ```
 */
export async function startGeminiA2aAgent(options: StartGeminiA2aOptions): Promise<GeminiA2aAgent> {
  if (options.enter.length === 0) {
    throw new Error(
      "The Gemini CLI A2A server sends usage statistics and fetches ripgrep whatever its " +
        "settings say: it runs only inside a loopback-only network namespace, and this " +
        "machine cannot make one (unshare -n, nsenter and setpriv are needed)",
    );
  }
  const { node, entry } = await ensureGeminiA2aServer();
  const home = join(options.root, "gemini-home");
  const workspace = join(options.root, "gemini-workspace");
  mkdirSync(workspace, { recursive: true });
  const env = geminiA2aEnv({ home, workspace, modelUrl: options.modelUrl, port: options.port });
  await git(workspace, env, "init", "-q");
  writeFileSync(join(workspace, "README.md"), "# Scratch project\n");
  await git(workspace, env, "add", "README.md");
  await git(workspace, env, "commit", "-q", "-m", "init");
  // setpriv --pdeathsig: it dies with the test process even if the test is killed;
  // setpriv and nsenter exec in place, so the pid is the server's.
  const argv = ["setpriv", "--pdeathsig", "KILL", ...options.enter, node, entry];
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: workspace,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const { promise: listening, resolve: onPort } = Promise.withResolvers<number | null>();
  const onText = (t: string) => {
    text += t;
    const m = STARTED.exec(text);
    if (m) onPort(Number(m[1]));
  };
  const drained = Promise.all([collect(child.stdout, onText), collect(child.stderr, onText)]);
  const status = child.status.then((s) => {
    onPort(null);
    return s;
  });
  const timer = setTimeout(() => onPort(null), options.startTimeoutMs ?? 90_000);
  const port = await listening;
  clearTimeout(timer);
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      const kill = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
      }, 5000);
      await status;
      clearTimeout(kill);
      await drained;
    })();
  if (port === null) {
    await close();
    throw new Error(`The Gemini CLI A2A server did not start:\n${tail(text, 40)}`);
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    port,
    url,
    cardUrl: url + GEMINI_A2A_CARD_PATH,
    workspace,
    log: () => text,
    close,
  };
}

// ---------------------------------------------------------------------------------------------
// The recording proxy

/** One line of the recorder's log. */
export interface A2aRecord {
  /** Milliseconds since the epoch. */
  at: number;
  /** Numbers the HTTP exchanges in arrival order; every line of one exchange shares it. */
  exchange: number;
  /**
   * `request`: what the client sent (`method`, `path`, parsed `body`);
   * `response`: a whole answer (`status`, parsed `body`; for the card, the card as served);
   * `event`: one server-sent event (`body` = its parsed data);
   * `end`: the agent ended the stream; `client-closed`: the client went away first;
   * `upstream-error`: the agent could not be reached or broke the stream (`error`).
   */
  kind: "request" | "response" | "event" | "end" | "client-closed" | "upstream-error";
  method?: string;
  path?: string;
  status?: number;
  body?: unknown;
  error?: string;
}

/** A running recorder. */
export interface A2aRecorder {
  /** Its root URL inside the namespace. */
  url: string;
  /** The card URL to import: the agent's card, its endpoint pointed at the recorder. */
  cardUrl: string;
  /** Everything recorded so far, oldest first. */
  records(): A2aRecord[];
  close(): Promise<void>;
}

/**
 * Starts the recording proxy in the namespace `enter` joins, forwarding to `target`. It
 * passes requests and answers through unchanged, except that the card it serves names the
 * proxy as the agent's endpoint, so a client that imports it talks through the proxy. One
 * client connection maps to one connection to the agent, so a client that hangs up is seen
 * by the agent at once, as it would be without the proxy.
 *
 * @param options the namespace prefix (empty: this network) and the agent's root URL
 * @returns the proxy's URLs and its log
 */
export async function startA2aRecorder(
  options: { enter: string[]; target: string },
): Promise<A2aRecorder> {
  const dir = Deno.makeTempDirSync({ prefix: "observal-a2a-rec-" });
  const logFile = join(dir, "records.jsonl");
  const argv = [
    "setpriv",
    "--pdeathsig",
    "KILL",
    ...options.enter,
    Deno.execPath(),
    "run",
    "-A",
    SELF,
    "--target",
    options.target,
    "--log-file",
    logFile,
  ];
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const errDone = collect(child.stderr, (t) => void (err += t));
  const line = await firstLine(child.stdout);
  const read = () =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8").split("\n").filter((l) => l.length > 0).map((l) =>
        JSON.parse(l) as A2aRecord
      )
      : [];
  let final: A2aRecord[] | undefined;
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      final = read();
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await errDone;
      rmSync(dir, { recursive: true, force: true });
    })();
  const port = line?.match(/^listening (\d+)$/)?.[1];
  if (!port) {
    await close();
    throw new Error(`The A2A recorder did not start: ${line ?? ""}\n${err}`);
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    cardUrl: url + GEMINI_A2A_CARD_PATH,
    records: () => final ?? read(),
    close,
  };
}

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Points every URL of a card that is on `from`'s origin at `to`'s origin instead. */
function repointCard(card: unknown, from: string, to: string): unknown {
  const origin = (u: string) => new URL(u).origin;
  const targetOrigins = new Set([origin(from)]);
  const swap = (u: unknown) => {
    if (typeof u !== "string") return u;
    try {
      const parsed = new URL(u);
      // The pinned server names itself `localhost`; the proxy forwards by port.
      const sameServer = targetOrigins.has(parsed.origin) ||
        (parsed.hostname === "localhost" && parsed.port === new URL(from).port);
      return sameServer ? origin(to) + parsed.pathname + parsed.search : u;
    } catch {
      return u;
    }
  };
  if (typeof card !== "object" || card === null) return card;
  const c = { ...(card as Record<string, unknown>) };
  c.url = swap(c.url);
  if (Array.isArray(c.additionalInterfaces)) {
    c.additionalInterfaces = c.additionalInterfaces.map((i) =>
      typeof i === "object" && i !== null ? { ...i, url: swap((i as { url?: unknown }).url) } : i
    );
  }
  if (Array.isArray(c.supportedInterfaces)) {
    c.supportedInterfaces = c.supportedInterfaces.map((i) =>
      typeof i === "object" && i !== null ? { ...i, url: swap((i as { url?: unknown }).url) } : i
    );
  }
  return c;
}

/** Splits SSE text into the `data` of each complete event; returns the rest. */
function sseEvents(buffer: string): { events: string[]; rest: string } {
  const events: string[] = [];
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? "";
  for (const block of blocks) {
    const data = block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) =>
      l.slice(5).replace(/^ /, "")
    );
    if (data.length > 0) events.push(data.join("\n"));
  }
  return { events, rest };
}

const HOP_HEADERS = ["host", "connection", "content-length", "accept-encoding", "keep-alive"];

/** The proxy's server: runs until SIGTERM. */
async function serveRecorder(target: string, logFile: string): Promise<void> {
  writeFileSync(logFile, "");
  const log = (r: Omit<A2aRecord, "at">) =>
    appendFileSync(logFile, JSON.stringify({ at: Date.now(), ...r }) + "\n");
  // No pooled connections: each client connection gets its own connection to the agent.
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  let exchanges = 0;
  const stop = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: (addr) => console.log(`listening ${addr.port}`),
  }, async (req) => {
    const exchange = ++exchanges;
    const url = new URL(req.url);
    const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
    const parsed = parseJson(body);
    const method = typeof parsed === "object" && parsed !== null && "method" in parsed
      ? String((parsed as { method: unknown }).method)
      : req.method;
    log({ exchange, kind: "request", method, path: url.pathname, body: parsed });
    const headers = new Headers(req.headers);
    for (const h of HOP_HEADERS) headers.delete(h);
    let upstream: Response;
    try {
      upstream = await fetch(new URL(url.pathname + url.search, target), {
        method: req.method,
        headers,
        body: body === "" ? undefined : body,
        signal: req.signal,
        client,
      });
    } catch (e) {
      log({ exchange, kind: "upstream-error", error: String(e) });
      return new Response("recorder: agent unreachable", { status: 502 });
    }
    const type = upstream.headers.get("content-type") ?? "";
    if (!type.startsWith("text/event-stream") || upstream.body === null) {
      const text = await upstream.text();
      let answer = parseJson(text);
      log({ exchange, kind: "response", status: upstream.status, body: answer });
      if (url.pathname.endsWith("/agent-card.json") || url.pathname.endsWith("/agent.json")) {
        answer = repointCard(answer, target, url.origin);
        return Response.json(answer, { status: upstream.status });
      }
      return new Response(text, {
        status: upstream.status,
        headers: type ? { "content-type": type } : {},
      });
    }
    const reader = upstream.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let finished = false;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { value, done } = await reader.read();
          // The client went away while this read waited: already logged, nothing to pass on.
          if (finished) return;
          if (done) {
            finished = true;
            const { events } = sseEvents(buffer + "\n\n");
            for (const e of events) log({ exchange, kind: "event", body: parseJson(e) });
            log({ exchange, kind: "end" });
            controller.close();
            return;
          }
          buffer += decoder.decode(value, { stream: true });
          const { events, rest } = sseEvents(buffer);
          buffer = rest;
          for (const e of events) log({ exchange, kind: "event", body: parseJson(e) });
          controller.enqueue(value);
        } catch (e) {
          if (finished) return;
          finished = true;
          log({ exchange, kind: "upstream-error", error: String(e) });
          controller.error(e);
        }
      },
      cancel() {
        if (!finished) log({ exchange, kind: "client-closed" });
        finished = true;
        reader.cancel().catch(() => {});
      },
    });
    req.signal.addEventListener("abort", () => {
      if (!finished) {
        finished = true;
        log({ exchange, kind: "client-closed" });
        reader.cancel().catch(() => {});
      }
    });
    return new Response(stream, {
      status: upstream.status,
      headers: { "content-type": type, "cache-control": "no-cache" },
    });
  });
  const quit = () => stop.abort();
  Deno.addSignalListener("SIGTERM", quit);
  Deno.addSignalListener("SIGINT", quit);
  await server.finished;
  client.close();
}

// ---------------------------------------------------------------------------------------------
// Reading a recording

function short(text: string, max = 80): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function describePart(part: Record<string, unknown>): string {
  if (typeof part.text === "string") return `text ${JSON.stringify(short(part.text))}`;
  if (typeof part.data === "object" && part.data !== null) {
    const d = part.data as Record<string, unknown>;
    const request = d.request as Record<string, unknown> | undefined;
    const tool = request?.name ? ` ${String(request.name)}` : "";
    const status = typeof d.status === "string" ? ` ${d.status}` : "";
    return `data{${Object.keys(d).join(",")}}${tool}${status}`;
  }
  return `${String(part.kind ?? "part")}`;
}

/** One event as a short line: kind, state, final flag, message parts. */
export function describeA2aEvent(event: unknown): string {
  const result = (event as { result?: Record<string, unknown>; error?: unknown })?.result;
  if (!result) return `error ${JSON.stringify((event as { error?: unknown })?.error ?? event)}`;
  const status = result.status as
    | { state?: string; message?: { parts?: Record<string, unknown>[] } }
    | undefined;
  const parts = (status?.message?.parts ?? []).map(describePart);
  const kind = String(result.kind ?? "?");
  const final = result.final === true ? " final" : "";
  const coder = (result.metadata as { coderAgent?: { kind?: string } } | undefined)?.coderAgent
    ?.kind;
  const tag = coder ? ` [${coder}]` : "";
  if (kind === "artifact-update") {
    const a = result.artifact as { artifactId?: string } | undefined;
    return `artifact-update ${a?.artifactId ?? ""}`;
  }
  const msg = parts.length > 0 ? ` message: ${parts.join(" + ")}` : " (no message)";
  return `${kind} ${status?.state ?? ""}${final}${tag}${msg}`;
}

/**
 * The recording as text, one block per exchange: the JSON-RPC method and task, then each
 * event with its time since the request (`+75.012s`), and how the exchange ended.
 *
 * @param records what {@linkcode A2aRecorder.records} returned
 * @returns a readable transcript
 */
export function describeA2aTraffic(records: A2aRecord[]): string {
  const byExchange = new Map<number, A2aRecord[]>();
  for (const r of records) {
    const list = byExchange.get(r.exchange) ?? [];
    list.push(r);
    byExchange.set(r.exchange, list);
  }
  const lines: string[] = [];
  for (const [n, list] of byExchange) {
    const start = list[0].at;
    const request = list.find((r) => r.kind === "request");
    const params = (request?.body as { params?: Record<string, unknown> } | undefined)?.params;
    const message = params?.message as
      | { taskId?: string; parts?: Record<string, unknown>[] }
      | undefined;
    const taskId = message?.taskId ?? params?.id;
    const sent = message?.parts?.map(describePart).join(" + ");
    lines.push(
      `#${n} ${request?.method ?? "?"} ${request?.path ?? ""}${taskId ? ` task ${taskId}` : ""}${
        sent ? ` sends ${sent}` : ""
      }`,
    );
    for (const r of list) {
      const t = `+${((r.at - start) / 1000).toFixed(3)}s`;
      if (r.kind === "event") lines.push(`  ${t} ${describeA2aEvent(r.body)}`);
      else if (r.kind === "response") {
        const b = r.body as Record<string, unknown> | null;
        lines.push(
          `  ${t} ${r.status} ${
            b && typeof b === "object" && ("result" in b || "error" in b)
              ? describeA2aEvent(b)
              : short(JSON.stringify(b), 120)
          }`,
        );
      } else if (r.kind !== "request") {
        lines.push(`  ${t} ${r.kind}${r.error ? ` ${r.error}` : ""}`);
      }
    }
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { target: { type: "string" }, "log-file": { type: "string" } },
  });
  if (!values.target || !values["log-file"]) {
    console.error("usage: gemini_a2a.ts --target URL --log-file FILE");
    Deno.exit(2);
  }
  await serveRecorder(values.target, values["log-file"]);
}
