/**
 * The child of {@linkcode spawnChild} on POSIX systems, and taking such a child over.
 *
 * A small shell leads the child's process group. It runs the program with its stdout and
 * stderr piped through `head -c` into the logs (the cap) and `wc -c` (counting the rest),
 * and appends to a status file how the program ended. None of that runs in the process
 * that started it, so the child goes on when that process exits, and any process that
 * holds its {@linkcode ChildRecord} can follow it to its end ({@linkcode adoptChild}).
 * @module
 */
import type { Clock } from "../core/mod.ts";
import { nodeChildProcess, nodeFs, resolve } from "../core/system/mod.ts";
import { findExecutable } from "./find_executable.ts";
import { processIdentity } from "./process_identity.ts";
import {
  type ChildExit,
  type ChildHandle,
  KEPT_ON_FAULT,
  type SpawnChildOptions,
} from "./spawn_child.ts";

/** What another process needs to follow a started child to its end: plain data. */
export interface ChildRecord {
  /** The shell that leads the child's process group. */
  pid: number;
  /** The shell's start time, which a later process given the same pid does not share. */
  startTime?: string;
  stdoutPath: string;
  stderrPath: string;
  /** Lines the shell appends: `exit N`, `dropped out|err N`, `fault out|err MESSAGE`. */
  statusPath: string;
}

/**
 * $1 bytes kept per stream, $2 and $3 the logs, $4 the status file, then the program.
 * A stream's keeper stops writing at the cap, or at a failed write (a full disk), and
 * reads the rest to the end so the program is never blocked. The program's exit code
 * is recorded as soon as it exits; the shell itself ends once both streams are closed.
 */
const SCRIPT = `max=$1 out=$2 err=$3 status=$4
shift 4
keep() {
  if failed=$(head -c "$max" 2>&1 >> "$1"); then
    n=$(wc -c); n=$((n+0))
    if [ "$n" -gt 0 ]; then
      printf '\\n[observal: %s more bytes were dropped]\\n' "$n" >> "$1"
      echo "dropped $2 $n" >> "$status"
    fi
  else
    echo "fault $2 $failed" | head -n 1 >> "$status"
    n=$(wc -c); echo "dropped $2 $((n+0))" >> "$status"
  fi
} 2>/dev/null
{ { "$@" 2>&1 1>&3 3>&-; echo "exit $?" >> "$status"; } | keep "$err" err; } 3>&1 | keep "$out" out
`;

/** How often a child taken over is looked for (it is not ours to wait for). */
const ADOPTED_POLL_MS = 100;

/** Starts `argv` under the keeping shell, detached in its own process group. */
export async function spawnWrapped(
  argv: readonly string[],
  options: SpawnChildOptions,
  max: number,
): Promise<ChildHandle> {
  const fs = nodeFs();
  const program = argv[0] ?? "";
  const found = program.includes("/")
    ? findExecutable(resolve(options.cwd, program))
    : findExecutable(program, { path: options.env.PATH });
  if (!found) {
    // As a direct spawn would fail, before any child exists.
    throw Object.assign(new Error(`spawn ${program} ENOENT`), { code: "ENOENT", path: program });
  }
  const statusPath = options.statusPath ?? `${options.stderrPath}.status`;
  // The logs and the status file are made first: a disk that cannot take them stops the
  // run before a child exists that nobody would follow.
  const opened: number[] = [];
  try {
    fs.closeSync(fs.openSync(options.stdoutPath, "a", 0o600));
    const errFd = fs.openSync(options.stderrPath, "a", 0o600);
    opened.push(errFd);
    fs.writeFileSync(statusPath, "", { mode: 0o600 });
    let stdin: number | "ignore" = "ignore";
    if (options.stdin !== undefined) {
      // A file, not a pipe: the child reads it at its own pace, also after we are gone.
      // It is unlinked once open, so nothing of it stays behind.
      const file = `${statusPath}.stdin`;
      fs.writeFileSync(file, options.stdin, { mode: 0o600 });
      stdin = fs.openSync(file, "r");
      opened.push(stdin);
      fs.rmSync(file, { force: true });
    }
    const child = nodeChildProcess().spawn(
      "/bin/sh",
      [
        "-c",
        SCRIPT,
        "observal-child",
        String(max),
        options.stdoutPath,
        options.stderrPath,
        statusPath,
        ...argv,
      ],
      {
        cwd: options.cwd,
        env: Object.fromEntries(
          Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined),
        ),
        detached: true,
        stdio: [stdin, "ignore", errFd],
      },
    );
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error("the child has no pid");
    const record: ChildRecord = {
      pid,
      startTime: processIdentity(pid)?.startTime,
      stdoutPath: options.stdoutPath,
      stderrPath: options.stderrPath,
      statusPath,
    };
    const closed = new Promise<string | null>((resolve) =>
      child.once("close", (_code, signal) => resolve(signal))
    );
    const fault = faultWatch(record);
    return {
      pid,
      record,
      exited: closed.then((signal) => readStatus(record, signal, fault)),
      fault,
      release: () => child.unref(),
    };
  } finally {
    for (const fd of opened) {
      try {
        fs.closeSync(fd);
      } catch { /* closed already */ }
    }
  }
}

/**
 * Follows a child another process started, from its record: it has ended once its shell
 * is gone (or its pid now names another process).
 */
export function adoptChild(record: ChildRecord, clock: Clock): ChildHandle {
  const fault = faultWatch(record);
  const exited = (async () => {
    while (processIdentity(record.pid)?.startTime === record.startTime) {
      await clock.sleep(ADOPTED_POLL_MS);
    }
    return readStatus(record, null, fault);
  })();
  return { pid: record.pid, record, exited, fault };
}

/** The status file's lines. */
function statusLines(record: ChildRecord): string[] {
  try {
    return nodeFs().readFileSync(record.statusPath, "utf8").split("\n");
  } catch {
    return [];
  }
}

/**
 * The first failed write of the child's output, checked from its status file. Once one
 * is seen, that log is cut to {@linkcode KEPT_ON_FAULT} bytes, as the space it took may
 * be what lets the task's failure be recorded.
 */
function faultWatch(record: ChildRecord): () => Error | undefined {
  let seen: Error | undefined;
  return () => {
    if (seen) return seen;
    const line = statusLines(record).find((l) => l.startsWith("fault "));
    if (!line) return undefined;
    const [, stream, ...words] = line.split(" ");
    const message = words.join(" ") || "a write failed";
    seen = Object.assign(new Error(message), { code: errnoOf(message) });
    const log = stream === "out" ? record.stdoutPath : record.stderrPath;
    try {
      const fs = nodeFs();
      if (fs.statSync(log).size > KEPT_ON_FAULT) fs.truncateSync(log, KEPT_ON_FAULT);
    } catch { /* nothing more to free */ }
    return seen;
  };
}

/** The error code a failed write's message names, as Node would report it. */
function errnoOf(message: string): string | undefined {
  const codes: [RegExp, string][] = [
    [/no space left/i, "ENOSPC"],
    [/quota/i, "EDQUOT"],
    [/read-only file system/i, "EROFS"],
    [/permission denied/i, "EACCES"],
    [/input\/output error/i, "EIO"],
  ];
  return codes.find(([re]) => re.test(message))?.[1];
}

/**
 * How the child ended, from its status file. No `exit` line means the program never
 * reported one: the group was stopped (by `signal` when the shell's own end is known).
 */
function readStatus(
  record: ChildRecord,
  signal: string | null,
  faulted: () => Error | undefined,
): ChildExit {
  const lines = statusLines(record);
  const dropped = { stdout: 0, stderr: 0 };
  let code: number | null = null;
  for (const line of lines) {
    const [word, a, b] = line.split(" ");
    if (word === "exit") code = Number(a);
    if (word === "dropped") dropped[a === "out" ? "stdout" : "stderr"] += Number(b) || 0;
  }
  const fault = faulted();
  if (code === null || !Number.isSafeInteger(code)) return { code: null, signal, dropped, fault };
  // A shell reports a program ended by signal N as 128 + N.
  const name = code > 128 ? signalName(code - 128) : undefined;
  return name
    ? { code: null, signal: name, dropped, fault }
    : { code, signal: null, dropped, fault };
}

function signalName(n: number): string | undefined {
  const signals = globalThis.process.getBuiltinModule("node:os").constants.signals;
  return Object.entries(signals).find(([, v]) => v === n)?.[0];
}
