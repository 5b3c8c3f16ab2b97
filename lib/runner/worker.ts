/**
 * The hidden `observal delegate worker TASK_ID` command: the detached process that owns a
 * task until it is final. It imports only what the task needs, starting the import of its
 * runner as soon as the task is read.
 * @module
 */
import { isFinal, type Task } from "../a2a/tasks/mod.ts";
import { hostPid } from "../core/system/mod.ts";
import { errorMessage, ObservalError } from "../core/mod.ts";
import { stateWords } from "../store/mod.ts";
import type { RemoteRunDeps } from "./remote_run.ts";
import { settle } from "./task_ops.ts";
import { workerLog, writePid } from "./worker_process.ts";

/** What a worker needs: the Context, the task store and the registry client (opened lazily). */
export type WorkerDeps = RemoteRunDeps;

/** Runs one task to a final state; returns the exit code (1 when the task is unknown). */
export async function runWorker(deps: WorkerDeps, taskId: string): Promise<number> {
  const { store, ctx } = deps;
  const task = store.get(taskId);
  if (!task) {
    ctx.io.stderr.write(`No delegated task with id ${taskId}\n`);
    return 1;
  }
  // The runner the task needs starts loading now, overlapping the bookkeeping below.
  const runner = task.metadata.observal.kind === "agent"
    ? import("./local_run.ts")
    : import("./remote_run.ts");
  runner.catch(() => {/* reported where it is awaited */});
  // First thing: a starting worker must never look like a missing one.
  writePid(store.taskDir(taskId, { create: true }), hostPid());
  store.setWorkerPid(taskId, hostPid());
  if (isFinal(task.status.state)) return 0;
  if (store.cancelRequested(taskId)) {
    // Canceled before this worker began: a reply it was started for is never sent.
    const dropped = store.takeReply(taskId) !== undefined;
    // A resumed remote task is still waiting for input at the agent's end: tell it.
    let result: Task;
    try {
      result = task.metadata.observal.kind === "a2a" && task.metadata.observal.remoteTaskId
        ? await (await import("./remote_cancel.ts")).cancelRemote(deps, task)
        : settle(store, taskId, "TASK_STATE_CANCELED", "Canceled by the caller.", ctx);
    } catch (err) {
      const detail = errorMessage(err);
      result = settle(
        store,
        taskId,
        "TASK_STATE_CANCELED",
        `Canceled by the caller, but the remote agent was not told: ${detail}.`,
        ctx,
      );
    }
    ctx.io.stderr.write(
      `task ${taskId} ${stateWords(result.status.state)}${
        dropped ? " (the pending reply was not sent)" : ""
      }\n`,
    );
    return 0;
  }
  let result: Task;
  try {
    const loaded = await runner;
    result = "runLocal" in loaded
      ? await loaded.runLocal(deps, task)
      : await loaded.runRemote(deps, task);
  } catch (err) {
    result = failedUnexpectedly(deps, taskId, err);
  }
  // The cancel flag is left as it is: on a settled task it means nothing, and on a task
  // that now waits for input it is a cancel's claim that must keep replies out. Clearing
  // it here could also wipe a request made for the next run (a reply accepted and a
  // cancel made while this process was still ending).
  ctx.io.stderr.write(`task ${taskId} ${stateWords(result.status.state)}\n`);
  return 0;
}

/** Settles a task whose run threw (a runner always settles what it expects), logging why. */
export function failedUnexpectedly(deps: WorkerDeps, taskId: string, err: unknown): Task {
  const { store, ctx } = deps;
  const message = err instanceof ObservalError
    ? [err.message, err.remediation].filter(Boolean).join(". ")
    : "The delegation worker failed unexpectedly";
  ctx.io.stderr.write(`${err instanceof Error ? err.stack ?? err.message : err}\n`);
  return settle(store, taskId, "TASK_STATE_FAILED", message, ctx, {
    log: workerLog(store.taskDir(taskId)),
  });
}
