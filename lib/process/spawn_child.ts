/**
 * Runs a long-lived child in its own process group with its output going to files, each
 * capped, so a chatty or hostile child can neither fill the disk nor our memory.
 * @module
 */
import type { Readable } from "node:stream";
import { nodeChildProcess, nodeFs } from "../core/system/mod.ts";

/** Options for {@linkcode spawnChild}. */
export interface SpawnChildOptions {
  cwd: string;
  /** The complete environment (nothing is inherited implicitly). */
  env: Readonly<Record<string, string | undefined>>;
  /** Written to the child's stdin, which is then closed; without it stdin is /dev/null. */
  stdin?: string;
  stdoutPath: string;
  stderrPath: string;
  /** Bytes kept per stream; the rest is counted and dropped. @default 16 MiB */
  maxBytes?: number;
}

/** How a child ended. */
export interface ChildExit {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  signal: string | null;
  /** Bytes each stream wrote beyond the cap (0 when nothing was dropped). */
  dropped: { stdout: number; stderr: number };
  /**
   * Why the output could no longer be kept (a full disk, say), when it could not: the
   * first failed write. The rest of that stream was read and dropped.
   */
  fault?: Error;
}

/** A running child. */
export interface ChildHandle {
  pid: number;
  /** Resolves once the child has exited and its output is flushed. */
  exited: Promise<ChildExit>;
  /** The first failed write of its output so far (a full disk), while it still runs. */
  fault(): Error | undefined;
}

const DEFAULT_MAX = 16 * 1024 * 1024;
/**
 * What a log keeps of its stream once a write to it failed. The rest is cut away: on a
 * full disk the space our own log took is what lets the task's failure be recorded.
 */
const KEPT_ON_FAULT = 64 * 1024;

/** What one capture ends with. */
interface Captured {
  dropped: number;
  fault?: Error;
}

/**
 * Copies `stream` into the open file `fd` up to `max` bytes. A failed write (a full disk)
 * stops the copying but never the reading, and never throws: the child is not blocked and
 * the worker does not crash; the failure is reported when the stream ends.
 */
function capture(
  stream: Readable | null,
  fd: number,
  max: number,
  onFault: (err: Error) => void,
): Promise<Captured> {
  const fs = nodeFs();
  let kept = 0;
  let dropped = 0;
  let fault: Error | undefined;
  return new Promise((resolve) => {
    const done = () => {
      try {
        if (dropped > 0 && !fault) {
          fs.writeSync(fd, `\n[observal: ${dropped} more bytes were dropped]\n`);
        }
      } catch { /* the count is in the result all the same */ }
      try {
        fs.closeSync(fd);
      } catch { /* closed already */ }
      resolve({ dropped, fault });
    };
    if (!stream) return done();
    stream.on("data", (chunk: Uint8Array) => {
      const room = fault ? 0 : max - kept;
      const before = kept;
      if (room > 0) {
        const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
        try {
          // A disk that is nearly full takes part of a write before it refuses the rest.
          for (let at = 0; at < part.length;) {
            const n = fs.writeSync(fd, part, at);
            at += n;
            kept += n;
          }
        } catch (err) {
          fault = err as Error;
          onFault(fault);
          try {
            fs.ftruncateSync(fd, Math.min(kept, KEPT_ON_FAULT));
          } catch { /* nothing more to free */ }
        }
      }
      dropped += chunk.length - (kept - before);
    });
    stream.on("end", done);
    stream.on("error", done);
  });
}

/**
 * Starts `argv` detached in its own process group (a new process group on Windows), with
 * stdout and stderr captured to files.
 *
 * @throws {Error} when the program cannot be started (the spawn error, e.g. ENOENT)
 */
export async function spawnChild(
  argv: readonly string[],
  options: SpawnChildOptions,
): Promise<ChildHandle> {
  const max = options.maxBytes ?? DEFAULT_MAX;
  // The logs are opened first: a disk that cannot take them stops the run before a child
  // exists that nobody would read.
  const fs = nodeFs();
  const outFd = fs.openSync(options.stdoutPath, "a", 0o600);
  let errFd: number;
  try {
    errFd = fs.openSync(options.stderrPath, "a", 0o600);
  } catch (err) {
    fs.closeSync(outFd);
    throw err;
  }
  const child = nodeChildProcess().spawn(argv[0], argv.slice(1), {
    cwd: options.cwd,
    env: Object.fromEntries(
      Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    detached: true,
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    windowsHide: true,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    if (child.pid === undefined) throw new Error("the child has no pid");
  } catch (err) {
    fs.closeSync(outFd);
    fs.closeSync(errFd);
    throw err;
  }
  if (options.stdin !== undefined && child.stdin) {
    // A child that exits without reading its stdin must not crash us with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(options.stdin);
  }
  let faulted: Error | undefined;
  const onFault = (e: Error) => void (faulted ??= e);
  const out = capture(child.stdout, outFd, max, onFault);
  const err = capture(child.stderr, errFd, max, onFault);
  const closed = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal }))
  );
  const exited = Promise.all([closed, out, err]).then(([c, stdout, stderr]) => {
    const fault = stdout.fault ?? stderr.fault;
    return { ...c, dropped: { stdout: stdout.dropped, stderr: stderr.dropped }, fault };
  });
  return { pid: child.pid!, exited, fault: () => faulted };
}
