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
}

/** A running child. */
export interface ChildHandle {
  pid: number;
  /** Resolves once the child has exited and its output is flushed. */
  exited: Promise<ChildExit>;
}

const DEFAULT_MAX = 16 * 1024 * 1024;

function capture(stream: Readable | null, path: string, max: number): Promise<number> {
  const fd = nodeFs().openSync(path, "a", 0o600);
  let kept = 0;
  let dropped = 0;
  return new Promise((resolve) => {
    const done = () => {
      try {
        if (dropped > 0) {
          nodeFs().writeSync(fd, `\n[observal: ${dropped} more bytes were dropped]\n`);
        }
        nodeFs().closeSync(fd);
      } catch { /* closed already */ }
      resolve(dropped);
    };
    if (!stream) return done();
    stream.on("data", (chunk: Uint8Array) => {
      const room = max - kept;
      if (room > 0) {
        const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
        nodeFs().writeSync(fd, part);
        kept += part.length;
      }
      dropped += Math.max(0, chunk.length - Math.max(room, 0));
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
  const child = nodeChildProcess().spawn(argv[0], argv.slice(1), {
    cwd: options.cwd,
    env: Object.fromEntries(
      Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    detached: true,
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    windowsHide: true,
  });
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  if (child.pid === undefined) throw new Error("the child has no pid");
  if (options.stdin !== undefined && child.stdin) {
    // A child that exits without reading its stdin must not crash us with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(options.stdin);
  }
  const out = capture(child.stdout, options.stdoutPath, max);
  const err = capture(child.stderr, options.stderrPath, max);
  const closed = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal }))
  );
  const exited = Promise.all([closed, out, err]).then(([c, stdout, stderr]) => ({
    ...c,
    dropped: { stdout, stderr },
  }));
  return { pid: child.pid, exited };
}
