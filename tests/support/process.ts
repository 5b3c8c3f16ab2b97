/** Spawns observal (from source, under this Deno) as a child process; a caller's shell environment. */
import { fileURLToPath } from "node:url";
import { join } from "node:path";

export const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

export interface Spawned {
  /** Resolves with the first stdout line. */
  firstLine: Promise<string>;
  stderr(): string;
  /** Sends SIGTERM (once) and resolves with the exit code. */
  stop(): Promise<number>;
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  onText: (all: string) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let all = "";
  for await (const chunk of stream) {
    all += decoder.decode(chunk, { stream: true });
    onText(all);
  }
}

/** The first line a stream carries (null if it ends without one); the rest is discarded. */
export async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string | null> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = stream.getReader();
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return null;
      text += decoder.decode(value, { stream: true });
      const nl = text.indexOf("\n");
      if (nl >= 0) return text.slice(0, nl);
    }
  } finally {
    reader.releaseLock();
    stream.cancel().catch(() => {});
  }
}

// Deno.Command rather than node:child_process: the latter reports a child that handled
// SIGTERM and exited 0 as killed by the signal.
export function spawnObserval(args: string[], env: Record<string, string>): Spawned {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  let resolveLine!: (line: string) => void;
  let rejectLine!: (e: Error) => void;
  const firstLine = new Promise<string>((res, rej) => {
    resolveLine = res;
    rejectLine = rej;
  });
  const out = collect(child.stdout, (all) => {
    const nl = all.indexOf("\n");
    if (nl >= 0) resolveLine(all.slice(0, nl));
  });
  const errDone = collect(child.stderr, (all) => (err = all));
  const status = Promise.all([child.status, out, errDone]).then(([s]) => {
    rejectLine(new Error(`exited ${s.code} before printing a line: ${err}`));
    return s.code;
  });
  let stopped = false;
  return {
    firstLine,
    stderr: () => err,
    stop: () => {
      if (!stopped) {
        stopped = true;
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
      }
      return status;
    },
  };
}

/**
 * `observal ...` as its own process, run by `exec` (a deno); `kill` sends it a signal, and
 * `done` gives how long it ran from its spawn.
 */
export function spawnCli(
  env: Record<string, string | undefined>,
  cwd: string,
  args: string[],
  exec = Deno.execPath(),
) {
  const started = performance.now();
  const child = new Deno.Command(exec, {
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
    ms: performance.now() - started,
  }));
  return { pid: child.pid, kill: (sig: Deno.Signal) => child.kill(sig), done };
}

/** `observal ...` as its own process with `input` piped to its stdin; resolves when it ends. */
export async function runCliWithInput(
  env: Record<string, string | undefined>,
  cwd: string,
  args: string[],
  input: string | Uint8Array,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: env as Record<string, string>,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  // A command that refuses before reading closes its stdin: that write may fail.
  await writer.write(typeof input === "string" ? new TextEncoder().encode(input) : input)
    .catch(() => {});
  await writer.close().catch(() => {});
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/**
 * What a shell inside the caller's repository carries: its folder in PWD and OLDPWD (as
 * after `cd`), npm's INIT_CWD, and git pointed at the repository. None of it may lead a
 * delegated child out of its copy.
 */
export function callerShell(repo: string): Record<string, string> {
  return {
    PWD: repo,
    OLDPWD: repo,
    INIT_CWD: repo,
    GIT_DIR: join(repo, ".git"),
    GIT_WORK_TREE: repo,
    GIT_INDEX_FILE: join(repo, ".git", "index"),
  };
}

/**
 * The resident runners started for the observal home `home`, however observal runs: the
 * processes whose command line ends `delegate resident NAME` and whose environment has
 * that `OBSERVAL_HOME`.
 */
export function residentRunners(home: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const argv = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
      if (argv.at(-4) !== "delegate" || argv.at(-3) !== "resident") continue;
      const env = Deno.readTextFileSync(`/proc/${entry.name}/environ`).split("\0");
      if (env.includes(`OBSERVAL_HOME=${home}`)) found.push(Number(entry.name));
    } catch { /* gone, or not ours */ }
  }
  return found;
}

/** Whether the resident runner `pid` listens: its socket, named in its command line, is there. */
export function residentListening(pid: number): boolean {
  try {
    const name = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").at(-2);
    Deno.statSync(`/tmp/observal-resident-${Deno.uid()}/${name}.sock`);
    return true;
  } catch {
    return false;
  }
}

/** Ends the resident runners of `home` as the system would (SIGTERM); resolves once gone. */
export async function stopResidentRunners(home: string): Promise<void> {
  for (const pid of residentRunners(home)) Deno.kill(pid, "SIGTERM");
  for (let i = 0; i < 300 && residentRunners(home).length; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const left = residentRunners(home);
  if (left.length) throw new Error(`resident runners ${left.join(", ")} did not end`);
}
