/**
 * What the delegation service takes: its dependencies, and the options of its verbs.
 * @module
 */
import type { Task } from "../a2a/tasks/mod.ts";
import type { Context } from "../core/mod.ts";
import type { RegistryClient } from "../registry/mod.ts";
import type { TaskStore } from "../store/mod.ts";
import type { LaunchWorker } from "../runner/mod.ts";
import type { Caller } from "./caller.ts";

/** What the service needs; built once per command. */
export interface DelegationDeps {
  ctx: Context;
  store: TaskStore;
  /** Opened on first use: `status` and `list` never touch the registry. */
  registry: () => RegistryClient;
  launch: LaunchWorker;
  /** Grace period for a worker to start. @default WORKER_START_MS */
  workerStartMs?: number;
  /** Free space needed under OBSERVAL_HOME to start or resume a task. @default MIN_FREE_BYTES */
  minFreeBytes?: number;
}

export interface StartOptions {
  caller: Caller;
  /** Seconds to wait for a result (0 returns at once). */
  waitSeconds?: number;
  /** Harness the child must run in (registry agents only). */
  harness?: string;
  /** `--sandbox` (auto, on, off): how a registry agent's child is sandboxed. */
  sandbox?: string;
  /** Longest the task may run, in seconds. @default 1800 */
  timeoutSeconds?: number;
  /**
   * The folder a registry agent's copy is made from (a served Agent's tree rebuilt from
   * its caller's repository state). @default the context's cwd
   */
  cwd?: string;
  /**
   * Run exactly this approved version of the Agent (a served Agent's, pinned when its
   * server started), also while a newer version waits for review.
   */
  pin?: { identifier: string; version?: string; digest?: string };
  /**
   * Continue this harness session of an earlier run (a served Agent's follow-up) when the
   * run uses the same harness and can resume it; otherwise the run starts a new session
   * told `fresh` instead of the message, and the task says why (`newSessionReason`).
   */
  resume?: { harness: string; sessionId?: string; fresh: string };
  /**
   * Send the caller's repository state with the brief to a remote agent that takes it
   * (the repository-state extension). @default true
   */
  sendRepo?: boolean;
  /** When the caller's clock started, so lookup and launch count against the wait. */
  since?: Date;
  onTick?: (task: Task) => void;
  /**
   * Stops the wait (the task keeps running) when it aborts; before the task exists it
   * stops the start instead, by throwing the signal's reason (a registry lookup under way
   * ends at once).
   */
  signal?: AbortSignal;
  /**
   * Let this process run the task itself while it waits, handing it to a worker only if it
   * stops waiting first: a quick task then costs one process instead of two. Taken only
   * where the runner lock can prove this process alive to others (under Deno, and under
   * Node on Linux); not for remote agents that stream (a handover would close the stream,
   * and some agents stop when it closes), nor for registry Agents on Windows (their child
   * cannot outlive this process there). @default false
   */
  runHere?: boolean;
  /**
   * The person insisting on stopping at once (a second Ctrl-C): a task this process runs
   * itself is then recorded, synchronously, as stopped by them, since the process ends
   * right after.
   */
  quit?: Quit;
}

/**
 * A stop at once, just before the process quits. Aborting `signal` runs its listeners
 * synchronously: a task this process still runs itself is stopped, and its id added to
 * `stopped`. A task a worker has taken over is not stopped, and not named.
 */
export interface Quit {
  signal: AbortSignal;
  stopped: string[];
}

/** Options for {@linkcode DelegationService.wait}. */
export interface WaitOptions {
  /** When the caller's clock started, so earlier work counts against the wait. */
  since?: Date;
  onTick?: (task: Task) => void;
  /** Ends the wait early (the task keeps running); the task is returned as it is. */
  signal?: AbortSignal;
}

/** Options for {@linkcode DelegationService.reply}. */
export interface ReplyOptions extends WaitOptions {
  /** Seconds to wait for a result after the reply is taken (0 returns at once). */
  waitSeconds?: number;
}
