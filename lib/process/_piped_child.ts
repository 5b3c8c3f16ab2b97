/**
 * The child of {@linkcode spawnChild} on Windows: its output comes through pipes that this
 * process reads and caps, so the child cannot outlive the process that reads them.
 * @module
 */
import type { Readable } from "node:stream";
import { definedEnv, nodeChildProcess, nodeFs } from "../core/system/mod.ts";
import {
  type ChildExit,
  type ChildHandle,
  KEPT_ON_FAULT,
  type SpawnChildOptions,
} from "./spawn_child.ts";

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

/** Starts `argv` in a new process group, its stdout and stderr captured to files. */
export async function spawnPiped(
  argv: readonly string[],
  options: SpawnChildOptions,
  max: number,
): Promise<ChildHandle> {
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
    env: definedEnv(options.env),
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
  const exited = Promise.all([closed, out, err]).then(([c, stdout, stderr]): ChildExit => {
    const fault = stdout.fault ?? stderr.fault;
    return { ...c, dropped: { stdout: stdout.dropped, stderr: stderr.dropped }, fault };
  });
  return { pid: child.pid!, exited, fault: () => faulted };
}
