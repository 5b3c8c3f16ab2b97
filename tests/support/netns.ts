/**
 * Loopback-only network namespaces for harness CLIs, so nothing a child does can leave the
 * machine. The scripted model server runs inside the namespace (a process of its own, since
 * the test process cannot serve from there) and children join it through `nsenter`.
 *
 * Where namespaces are not allowed, {@linkcode startModelServerInNetns} falls back to the
 * in-process server with an empty `enter` prefix and `isolated: false`.
 *
 * @module
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RecordedRequest, startModelServer } from "./model_server.ts";
import { firstLine } from "./process.ts";

const MAIN = fileURLToPath(new URL("./model_server_main.ts", import.meta.url));

let probe: Promise<boolean> | undefined;

async function run(args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(args[0], {
      args: args.slice(1),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

/**
 * Whether this machine lets us make a network namespace with only loopback up (probed once:
 * `unshare -n`, `ip link set lo up`, and `nsenter` and `setpriv` present).
 */
export function netnsSupported(): Promise<boolean> {
  probe ??= (async () =>
    Deno.build.os === "linux" &&
    await run(["unshare", "-n", "ip", "link", "set", "lo", "up"]) &&
    await run(["nsenter", "--version"]) &&
    await run(["setpriv", "--version"]))();
  return probe;
}

/** A scripted model server reachable from children started with `enter`. */
export interface NetnsModelServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`, valid inside the namespace. */
  url: string;
  port: number;
  /** The server process (its namespace is `/proc/<pid>/ns/net`), or null in the fallback. */
  pid: number | null;
  /** Argv prefix that runs a command in the server's namespace; empty in the fallback. */
  enter: string[];
  /** False when namespaces are not allowed and children share the host's network. */
  isolated: boolean;
  /** The requests so far, oldest first. */
  requests(): RecordedRequest[];
  /** Stops the server (and so the namespace, once its last process has gone). */
  close(): Promise<void>;
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text;
}

/**
 * Starts the scripted model server in a fresh network namespace with only `lo` up, or in
 * process when namespaces are not allowed here.
 *
 * @returns the server, the argv prefix that enters its namespace, and whether it is isolated
 *
 * @example
 * ```ts ignore
 * const model = await startModelServerInNetns();
 * try {
 *   const cmd = [...model.enter, "claude", "-p"]; // reaches model.url and nothing else
 * } finally {
 *   await model.close();
 * }
 * ```
 */
export async function startModelServerInNetns(): Promise<NetnsModelServer> {
  if (!(await netnsSupported())) {
    const server = await startModelServer();
    return { ...server, pid: null, enter: [], isolated: false };
  }
  const dir = mkdtempSync(join(tmpdir(), "observal-netns-"));
  const portFile = join(dir, "port");
  const logFile = join(dir, "requests.jsonl");
  // setpriv --pdeathsig: the server dies with the test process even if the test is killed;
  // unshare without --fork execs in place, so the pid we spawn is the server's pid.
  const child = new Deno.Command("setpriv", {
    args: [
      "--pdeathsig",
      "KILL",
      "unshare",
      "-n",
      "sh",
      "-c",
      'ip link set lo up && exec "$0" "$@"',
      Deno.execPath(),
      "run",
      "-A",
      MAIN,
      "--port-file",
      portFile,
      "--log-file",
      logFile,
    ],
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = drain(child.stderr);
  const line = await firstLine(child.stdout);
  const cleanup = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, 5000);
    await child.status;
    clearTimeout(timer);
    await stderr;
    rmSync(dir, { recursive: true, force: true });
  };
  if (line === null) {
    const err = await stderr;
    await cleanup();
    throw new Error(`Model server in a network namespace exited before listening: ${err}`);
  }
  const port = Number(readFileSync(portFile, "utf8"));
  const read = () =>
    readFileSync(logFile, "utf8").split("\n").filter((l) => l.length > 0).map((l) =>
      JSON.parse(l) as RecordedRequest
    );
  let final: RecordedRequest[] | undefined;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    enter: ["nsenter", `--net=/proc/${child.pid}/ns/net`, "--"],
    isolated: true,
    requests: () => final ?? read(),
    // The log goes with the temp dir, so keep what it held for assertions made after close.
    close: () => (closed ??= (async () => {
      final = read();
      await cleanup();
    })()),
  };
}

/**
 * Runs `argv` with exactly `env` (nothing inherited) and no stdin, inside the namespace
 * `enter` joins (empty: on the host), and collects what it printed.
 */
export async function runEntered(
  enter: readonly string[],
  argv: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const cmd = [...enter, ...argv];
  const out = await new Deno.Command(cmd[0], {
    args: cmd.slice(1),
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}
