/**
 * A task's start on disk: the room it needs, its folder and row, its worker and what the
 * worker may reach, and the capability lock's record of it.
 * @module
 */
import type { Task } from "../a2a/tasks/mod.ts";
import { type FileLock, nodeFs } from "../core/system/mod.ts";
import {
  errorMessage,
  homeFault,
  ObservalError,
  type SelfPermissions,
  serverTarget,
} from "../core/mod.ts";
import {
  clearPid,
  prepareWorkerLog,
  readPid,
  settle,
  takeRunnerLock,
  type WorkerFence,
  workerLog,
  writePid,
  writePidNamespace,
} from "../runner/mod.ts";
import type { Caller } from "./caller.ts";
import { netPermissions, spaceRemediation } from "./_helpers.ts";
import type { DelegationDeps } from "./_options.ts";
import type { ServiceState } from "./_state.ts";

/**
 * Free disk space a task needs before it is started or resumed: its row, its worker's log
 * and what the worker writes. Below this the command refuses at once, rather than leave a
 * task that cannot be run or even marked failed.
 */
export const MIN_FREE_BYTES = 1024 * 1024;

/** Appends the start to the capability lock. Telemetry never blocks a delegation. */
export async function recordStart(home: string, task: Task, caller: Caller): Promise<void> {
  const meta = task.metadata.observal;
  try {
    // Telemetry loads here: only a start writes to the capability lock.
    const { appendCapabilityLock } = await import("../telemetry/mod.ts");
    appendCapabilityLock(home, {
      ts: meta.createdAt,
      harness: caller.harness,
      cwd: meta.cwd,
      identifier: meta.target,
      kind: meta.kind === "a2a" ? "external" : "agent",
      component_id: meta.agentId,
      native_ref: meta.nativeRef,
      version: meta.version,
      digest: meta.digest,
      mode: "delegated",
      source: "delegate",
      session_hint: caller.sessionHint,
      extra: { task_id: task.id, ...(meta.harness ? { child_harness: meta.harness } : {}) },
    });
  } catch { /* never in the way */ }
}

/**
 * Makes the task's folder and its worker log, then stores the task. The files come
 * first: when the disk is full the command fails before a task exists, rather than
 * leaving one that no worker will ever run. With `runHere`, the task folder's runner lock
 * is taken before the task is stored, so no other process ever sees the task without a
 * live runner; undefined is returned when it cannot be taken (a worker runs the task).
 */
export function createTask(
  deps: DelegationDeps,
  task: Task,
  runHere = false,
): FileLock | undefined {
  const { store } = deps;
  const dir = store.taskDir(task.id);
  let lock: FileLock | undefined;
  try {
    store.taskDir(task.id, { create: true });
    prepareWorkerLog(dir);
    lock = runHere ? takeRunnerLock(dir) : undefined;
  } catch (cause) {
    nodeFs().rmSync(dir, { recursive: true, force: true });
    throw homeFault(cause, deps.ctx.home, store.root) ?? new ObservalError(
      "UNAVAILABLE",
      `Cannot create the task folder ${dir}: ${errorMessage(cause)}`,
      { cause, resource: dir, remediation: spaceRemediation(deps.ctx.home) },
    );
  }
  try {
    store.insert(task);
  } catch (err) {
    lock?.release();
    nodeFs().rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return lock;
}

/**
 * What the worker may reach: the agent's endpoint and the configured registry, if remote.
 * A named host is listed bare as well: Deno checks a DNS lookup against the host alone.
 */
export function workerNet(deps: DelegationDeps, endpoint?: string): string[] {
  const target = serverTarget(deps.ctx);
  const urls = [endpoint ?? "", target.kind === "remote" ? target.url : ""];
  return [...new Set(urls.flatMap(netPermissions))];
}

/**
 * Starts the task's worker. If it cannot be started the task is settled as failed (it
 * never stays submitted) and the error says why and what to check.
 */
export function launchWorker(
  s: ServiceState,
  task: Task,
  perms: (fence: WorkerFence) => SelfPermissions,
): void {
  const { store, ctx } = s.deps;
  let pid: number;
  let dir: string;
  try {
    dir = store.taskDir(task.id, { create: true });
    clearPid(dir);
    pid = s.deps.launch(task.id, dir, perms({ taskDir: dir, storePath: store.path }));
  } catch (err) {
    const detail = errorMessage(err);
    let unsettled = "";
    try {
      settle(
        store,
        task.id,
        "TASK_STATE_FAILED",
        `The delegation worker could not be started: ${detail}`,
        ctx,
        { log: workerLog(store.taskDir(task.id)) },
      );
    } catch (settleErr) {
      // Then `status` fails it once the start grace period has passed.
      unsettled = ` (and the task could not be marked failed: ${errorMessage(settleErr)})`;
    }
    throw new ObservalError(
      "UNAVAILABLE",
      `The delegation worker for task ${task.id} could not be started: ${detail}${unsettled}`,
      {
        cause: err,
        resource: task.id,
        remediation: `The task is marked failed. Fix the cause (often a full disk or an ` +
          `unwritable ${ctx.home}), then run it again`,
      },
    );
  }
  s.launched.set(task.id, pid);
  // The worker records its own pid first thing too; whichever lands first is the same
  // pid, so a failure here is harmless.
  try {
    store.setWorkerPid(task.id, pid);
    if (!readPid(dir)) writePid(dir, pid);
    writePidNamespace(dir);
  } catch { /* the worker writes both itself */ }
}

/** Refuses to start or resume a task when the disk under OBSERVAL_HOME is (nearly) full. */
export function checkSpace(deps: DelegationDeps): void {
  const { store } = deps;
  const need = deps.minFreeBytes ?? MIN_FREE_BYTES;
  let free: number;
  try {
    const fs = nodeFs().statfsSync(store.root);
    free = Number(fs.bavail) * Number(fs.bsize);
  } catch {
    return; // Unknown: the writes themselves will say if the disk is full.
  }
  if (free >= need) return;
  throw new ObservalError(
    "UNAVAILABLE",
    `The disk that holds ${store.root} is full: ${Math.floor(free / 1024)} KiB free, and a ` +
      `delegation needs at least ${Math.ceil(need / 1024)} KiB`,
    {
      resource: store.root,
      remediation: "Free some space on that disk (or point OBSERVAL_HOME elsewhere), then " +
        "run it again; nothing was started",
    },
  );
}

/**
 * A wait that failed for want of a resource, after the task was started: whoever reads
 * this must learn its id to follow it later. Other errors are returned as they are.
 */
export function startedAnyway(err: unknown, id: string): unknown {
  if (!(err instanceof ObservalError) || err.code !== "UNAVAILABLE") return err;
  return new ObservalError(err.code, `${err.message} (task ${id} was started)`, {
    cause: err,
    resource: err.resource,
    remediation: `${err.remediation ?? "Try again later"}; then ` +
      `\`observal delegate status ${id}\` shows how the task ended`,
  });
}
