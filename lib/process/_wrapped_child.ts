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
import { definedEnv, nodeChildProcess, nodeFs, resolve } from "../core/system/mod.ts";
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
  /**
   * The program's `exit N`; beside it `<statusPath>.out` and `.err` hold each stream's
   * `fault MESSAGE` (a failed write) and `dropped N` (bytes past the cap).
   */
  statusPath: string;
}

/**
 * $1 bytes kept per stream, $2 and $3 the logs, $4 the status file, then the program.
 * A stream's keeper stops writing at the cap, or at a failed write (a full disk), and
 * reads the rest to the end so the program is never blocked. The program's exit code is
 * recorded as soon as it exits; the shell itself ends once both streams are closed.
 *
 * What the shell records goes into files made beforehand and filled with spaces, and is
 * written over them (`1<>`, no truncation): that needs no new space on a full disk, which
 * is exactly when a keeper has a failed write to report.
 */
const SCRIPT = `max=$1 out=$2 err=$3 status=$4
shift 4
keep() {
  if failed=$(head -c "$max" 2>&1 >> "$1"); then
    n=$(wc -c); n=$((n+0))
    if [ "$n" -gt 0 ]; then
      printf '\\n[observal: %s more bytes were dropped]\\n' "$n" >> "$1"
      printf 'dropped %s\\n' "$n" 1<> "$status.$2"
    fi
  else
    printf 'fault %.200s\\n' "$failed" 1<> "$status.$2"
    n=$(wc -c)
    printf 'fault %.200s\\ndropped %s\\n' "$failed" "$((n+0))" 1<> "$status.$2"
  fi
} 2>/dev/null
{ { "$@" 2>&1 1>&3 3>&-; printf 'exit %s\\n' "$?" 1<> "$status"; } | keep "$err" err; } 3>&1 |
  keep "$out" out
`;

/** Room made beforehand in each status file, in bytes (see the script). */
const STATUS_ROOM = 512;

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
    const room = " ".repeat(STATUS_ROOM);
    for (const file of statusFiles(statusPath)) fs.writeFileSync(file, room, { mode: 0o600 });
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
        env: definedEnv(options.env),
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

/** The status file and each stream's, as the script names them. */
function statusFiles(statusPath: string): [string, string, string] {
  return [statusPath, `${statusPath}.out`, `${statusPath}.err`];
}

/** A status file's lines, without the room left over. */
function statusLines(path: string): string[] {
  try {
    return nodeFs().readFileSync(path, "utf8").split("\n").map((l) => l.trim()).filter(Boolean);
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
  const [, out, err] = statusFiles(record.statusPath);
  return () => {
    if (seen) return seen;
    for (const [file, log] of [[out, record.stdoutPath], [err, record.stderrPath]]) {
      const line = statusLines(file).find((l) => l.startsWith("fault "));
      if (!line) continue;
      const message = line.slice("fault ".length) || "a write failed";
      seen = Object.assign(new Error(message), { code: errnoOf(message) });
      try {
        const fs = nodeFs();
        if (fs.statSync(log).size > KEPT_ON_FAULT) fs.truncateSync(log, KEPT_ON_FAULT);
      } catch { /* nothing more to free */ }
      return seen;
    }
    return undefined;
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
  const [exit, out, err] = statusFiles(record.statusPath);
  const droppedIn = (file: string) =>
    Number(statusLines(file).find((l) => l.startsWith("dropped "))?.split(" ")[1]) || 0;
  const dropped = { stdout: droppedIn(out), stderr: droppedIn(err) };
  const said = statusLines(exit).find((l) => l.startsWith("exit "));
  const code: number | null = said ? Number(said.split(" ")[1]) : null;
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
