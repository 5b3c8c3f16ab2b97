/**
 * Runs a long-lived child in its own process group with its output going to files, each
 * capped, so a chatty or hostile child can neither fill the disk nor our memory. On POSIX
 * systems the child can outlive the process that started it: a small shell keeps its
 * output and records how it ended, so another process can take it over
 * ({@linkcode adoptChild}).
 * @module
 */
import { hostPlatform } from "../core/system/mod.ts";
import { spawnPiped } from "./_piped_child.ts";
import { spawnWrapped } from "./_wrapped_child.ts";

import type { ChildRecord } from "./_wrapped_child.ts";

export { adoptChild, type ChildRecord } from "./_wrapped_child.ts";

/** Options for {@linkcode spawnChild}. */
export interface SpawnChildOptions {
  cwd: string;
  /** The complete environment (nothing is inherited implicitly). */
  env: Readonly<Record<string, string | undefined>>;
  /** Given to the child as its stdin; without it stdin is /dev/null. */
  stdin?: string;
  stdoutPath: string;
  stderrPath: string;
  /**
   * Where the child's end is recorded (its exit code, output dropped or not kept), for a
   * process that takes it over. @default `${stderrPath}.status`
   */
  statusPath?: string;
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
  /** The pid of the group's leader (the child, or the shell that keeps its output). */
  pid: number;
  /** Resolves once the child has exited and its output is flushed. */
  exited: Promise<ChildExit>;
  /** The first failed write of its output so far (a full disk), while it still runs. */
  fault(): Error | undefined;
  /** What another process needs to take the child over; absent where it cannot. */
  record?: ChildRecord;
  /** Lets this process end while the child runs on (once it is handed over). */
  release?(): void;
}

/** Bytes kept per stream by default. */
export const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;
/**
 * What a log keeps of its stream once a write to it failed. The rest is cut away: on a
 * full disk the space our own log took is what lets the task's failure be recorded.
 */
export const KEPT_ON_FAULT = 64 * 1024;

/**
 * Starts `argv` detached in its own process group (a new process group on Windows), with
 * stdout and stderr captured to files.
 *
 * @throws {Error} when the program cannot be started (e.g. ENOENT)
 */
export function spawnChild(
  argv: readonly string[],
  options: SpawnChildOptions,
): Promise<ChildHandle> {
  const max = options.maxBytes ?? DEFAULT_MAX_OUTPUT;
  return hostPlatform() === "win32"
    ? spawnPiped(argv, options, max)
    : spawnWrapped(argv, options, max);
}
