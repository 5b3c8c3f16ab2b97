/**
 * A task run in this process while the caller waits, and its handover to a worker when
 * the wait ends first: a quick task then costs one process instead of two. A remote task
 * is handed over once the remote task's id is saved; a local one before its child starts
 * (the worker starts over) or with its child left running (the worker follows it).
 * @module
 */
import { type FileLock, hostPid } from "../core/system/mod.ts";
import { isFinal, type Task } from "../a2a/tasks/mod.ts";
import type { Context, SelfPermissions } from "../core/mod.ts";
import type { EntryDocument } from "../registry/mod.ts";
import { stateWords, type TaskStore } from "../store/mod.ts";
import {
  failedUnexpectedly,
  reapTask,
  settle,
  type WorkerFence,
  workerLog,
  writePid,
  writePidNamespace,
} from "../runner/mod.ts";
import type { Caller } from "./caller.ts";
import { appendLog } from "./_helpers.ts";
import { launchWorker, recordStart, startedAnyway } from "./_launch.ts";
import type { Quit, WaitOptions } from "./_options.ts";
import type { ServiceState } from "./_state.ts";
import { HANDOVER_MS, waitTask } from "./_wait.ts";

/** What a run here holds and hands on: the agent, the runner lock, the worker's rights. */
export interface RunHere {
  entry: EntryDocument;
  lock: FileLock;
  perms: (fence: WorkerFence) => SelfPermissions;
  caller: Caller;
}

/** How a run here waits: as the caller asked, less what it keeps back for the handover. */
export type RunHereWait = WaitOptions & { seconds: number; reserveMs: number; quit?: Quit };

/**
 * Runs a task in this process while the caller waits, holding the task folder's runner
 * lock so that other processes see a live runner; its log is the worker's. When the wait
 * ends first (its time is up, Ctrl-C, the terminal closes), the run hands the task over
 * and a worker is started that goes on from there: a remote task once its id at the
 * agent is saved, without sending anything again; a local one at its next step.
 */
export async function runTaskHere(
  s: ServiceState,
  task: Task,
  here: RunHere,
  options: RunHereWait,
): Promise<Task> {
  const { store, ctx } = s.deps;
  const dir = store.taskDir(task.id);
  const log = workerLog(dir);
  const deps = {
    ctx: { ...ctx, io: { ...ctx.io, stderr: { write: (t: string) => appendLog(log, t) } } },
    store,
    registry: s.deps.registry,
  };
  const handover = new AbortController();
  s.runningHere.add(task.id);
  try {
    store.setWorkerPid(task.id, hostPid());
    writePid(dir, hostPid());
    writePidNamespace(dir);
  } catch { /* the runner lock proves this process alive all the same */ }
  const local = task.metadata.observal.kind === "agent";
  const running = (local
    ? import("../runner/local/mod.ts")
      .then(({ runLocal }) =>
        runLocal(deps, task, { handover: handover.signal, entry: here.entry })
      )
    : import("../runner/remote/mod.ts")
      .then(({ runRemote }) =>
        runRemote(deps, task, {
          entry: here.entry,
          handover: handover.signal,
          handoverMs: HANDOVER_MS,
        })
      ))
    .catch((err) => failedUnexpectedly(deps, task.id, err));
  const quit = () => {
    stoppedByUser(deps, task.id, local);
    options.quit?.stopped.push(task.id);
  };
  options.quit?.signal.addEventListener("abort", quit, { once: true });
  let failure: { err: unknown } | undefined;
  try {
    await recordStart(ctx.home, task, here.caller);
    // The handover and the worker's start end the wait rather than being added to it.
    await waitTask(s, task.id, options.seconds, options, running, options.reserveMs);
  } catch (err) {
    failure = { err: startedAnyway(err, task.id) };
  }
  handover.abort();
  try {
    // Settled, or handed over once the remote task's id is saved. Read again: a second
    // Ctrl-C meanwhile settled it as stopped by the user, and no worker must start then.
    await running;
    const ran = store.require(task.id);
    // The log ends as a worker's would: with how the task ended here.
    deps.ctx.io.stderr.write(
      `task ${task.id} ${
        isFinal(ran.status.state) ? stateWords(ran.status.state) : "handed over to a worker"
      }\n`,
    );
    if (!isFinal(ran.status.state)) {
      // The worker owns the task from here: a second Ctrl-C now only ends this process.
      options.quit?.signal.removeEventListener("abort", quit);
      try {
        launchWorker(s, ran, here.perms);
      } catch (err) {
        // No worker follows the task now: stop its child, or ask the agent to drop it.
        if (local) reapTask(store, store.require(task.id), ctx.home);
        else await (await import("../runner/remote/mod.ts")).abandonRemote(deps, ran);
        throw err;
      }
    }
  } finally {
    options.quit?.signal.removeEventListener("abort", quit);
    s.runningHere.delete(task.id);
    here.lock.release();
  }
  if (failure) throw failure.err;
  return s.self.get(task.id);
}

/**
 * Records a task this process runs itself as stopped by the person (a second Ctrl-C), just
 * before the process ends: synchronous, and never throws. A local task's child is
 * stopped and its copy removed first.
 */
function stoppedByUser(deps: { ctx: Context; store: TaskStore }, id: string, local: boolean): void {
  try {
    if (local) reapTask(deps.store, deps.store.require(id), deps.ctx.home);
    settle(
      deps.store,
      id,
      "TASK_STATE_CANCELED",
      local
        ? "Stopped by the user (interrupted twice); the agent's run was ended and its copy removed."
        : "Stopped by the user (interrupted twice) before the agent answered what was sent; the " +
          "agent was not told, and may have received the brief.",
      deps.ctx,
    );
    deps.ctx.io.stderr.write(`task ${id} stopped by the user\n`);
  } catch { /* the process ends anyway; the next look fails the task */ }
}
