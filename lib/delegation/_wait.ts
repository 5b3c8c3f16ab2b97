/**
 * Following a task until it is final or the wait ends, woken by its worker's writes, and
 * the time a run here keeps back from its wait for the handover to a worker.
 * @module
 */
import type * as NodeFs from "node:fs";
import { nodeFs } from "../core/system/mod.ts";
import { isFinal, type Task } from "../a2a/tasks/mod.ts";
import type { WaitOptions } from "./_options.ts";
import type { ServiceState } from "./_state.ts";

/** Longest wait a caller may ask for. */
export const MAX_WAIT_SECONDS = 1800;
const WAIT_POLL_MS = 250;
/**
 * The most a handover from a run here waits for a send in flight to be answered; after
 * that the worker sends the brief again (same message id). Taken out of the wait, with
 * the time to start the worker ({@linkcode LAUNCH_MS}), so `--wait N` ends after N s.
 */
export const HANDOVER_MS = 300;
/** About how long starting a worker and printing the task take, on a busy machine. */
const LAUNCH_MS = 200;

/**
 * What a run here keeps back from its wait for the handover, the worker's start and the
 * exit. The last two are work of this process, so they take longer the slower it has
 * been so far: half of what it took to get here (`elapsedMs`) is added. On a machine
 * so busy that nothing is left, the task goes to a worker at once.
 */
export function handoverReserveMs(elapsedMs: number): number {
  return HANDOVER_MS + LAUNCH_MS + Math.max(0, elapsedMs) / 2;
}

/** A wait of `seconds`, in range, in milliseconds. */
export function waitBudgetMs(seconds: number): number {
  return Math.min(Math.max(0, seconds), MAX_WAIT_SECONDS) * 1000;
}

/**
 * The service's `wait`, also woken when `running` (a run here) settles, and ending
 * `reserveMs` early (kept for the handover that follows).
 */
export async function waitTask(
  s: ServiceState,
  id: string,
  seconds: number,
  options: WaitOptions,
  running?: Promise<unknown>,
  reserveMs = 0,
): Promise<Task> {
  const { clock } = s.deps.ctx;
  id = s.deps.store.resolveId(id);
  const budget = waitBudgetMs(seconds) - reserveMs;
  const deadline = (options.since ?? clock.now()).getTime() + budget;
  const signal = options.signal;
  const interrupted = signal ? aborted(signal) : undefined;
  s.self.sweep();
  let wake: TaskWatch | undefined;
  try {
    for (;;) {
      const task = s.self.get(id);
      options.onTick?.(task);
      if (isFinal(task.status.state)) return task;
      const left = deadline - clock.now().getTime();
      if (left <= 0 || signal?.aborted) return task;
      // Wake as soon as the worker marks a change; the poll is only a fallback. A run
      // here wakes the wait itself when it ends, and a cancel from elsewhere ends it.
      if (!running) wake ??= watchTask(s.deps.store.taskDir(id));
      // Whatever wakes the wait, the poll's timer goes with it: a pending timer would
      // keep the process alive after the result is printed.
      const nap = new AbortController();
      try {
        await Promise.race([
          clock.sleep(Math.min(WAIT_POLL_MS, left), nap.signal).catch(() => {}),
          ...(wake ? [wake.changed()] : []),
          ...(interrupted ? [interrupted.promise] : []),
          ...(running ? [running] : []),
        ]);
      } finally {
        nap.abort();
      }
    }
  } finally {
    wake?.close();
    interrupted?.dispose();
  }
}

/** Resolves when `signal` aborts; `dispose` drops the listener once the wait is over. */
function aborted(signal: AbortSignal): { promise: Promise<void>; dispose(): void } {
  let onAbort = () => {};
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

interface TaskWatch {
  changed(): Promise<void>;
  close(): void;
}

/**
 * Resolves `changed()` when the task's `state` file changes (workers rewrite it on every
 * update). Never the store's own folder: watching it from a process that has the
 * database open loses SQLite's locks, and another process may then delete the live WAL.
 */
function watchTask(dir: string): TaskWatch {
  let notify: (() => void) | undefined;
  let watcher: ReturnType<typeof NodeFs.watch> | undefined;
  try {
    // Only the state file: other files change too, some because a waiter looks at them
    // (a liveness check opens the runner lock), which would wake the waiter again.
    watcher = nodeFs().watch(dir, (_event, name) => {
      if (name === null || String(name) === "state") notify?.();
    });
    watcher.on("error", () => {/* fall back to polling */});
  } catch { /* no file watching here: polling alone */ }
  return {
    changed: () => new Promise<void>((resolve) => (notify = resolve)),
    close: () => watcher?.close(),
  };
}
