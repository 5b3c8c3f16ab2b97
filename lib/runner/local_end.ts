/**
 * How a local run ends: the tasks its agent left unsettled are ended, and the task is
 * settled with the run's outcome, also when a worker follows a child handed over to it.
 * @module
 */
import { isInterrupted, type Task } from "../a2a/mod.ts";
import { isoSeconds } from "../core/mod.ts";
import { removeAgentsSocketFolder, removeWorkspace } from "../workspace/roots/mod.ts";
import { agentMessage, markChanged, namingLog } from "./task_ops.ts";
import { workerLog } from "./worker_process.ts";
import { reapTask } from "./reaper.ts";
import { errorText, type LocalRunDeps, type Outcome } from "./_local_ops.ts";
import { adoptedOutcome } from "./local_child.ts";

/**
 * Ends the tasks the agent delegated and left unsettled, before its copy goes: nobody is
 * left to take their results or answer their questions, and running ones work on copies of
 * it. A running task's worker stops it; a task waiting for input has none, so its remote
 * agent is told here (at most a few seconds, all at once). Their ids.
 */
export async function cancelLeft(deps: LocalRunDeps, id: string): Promise<string[]> {
  const { store } = deps;
  const left = store.unsettledChildren(id);
  const waiting = left.map((child) => store.requestCancel(child))
    .filter((task) => isInterrupted(task.status.state));
  if (waiting.length) {
    // The A2A client loads only when a remote agent must be told.
    const { cancelRemote } = await import("./remote_cancel.ts");
    await Promise.all(
      waiting.map((task) =>
        cancelRemote(deps, task).catch((err) =>
          deps.ctx.io.stderr.write(`could not cancel task ${task.id}: ${errorText(err)}\n`)
        )
      ),
    );
  }
  return left;
}

/** Follows the child a run here handed over to its end, then settles the task. */
export async function followHandedOver(deps: LocalRunDeps, id: string): Promise<Task> {
  const { ctx, store } = deps;
  let outcome: Outcome;
  let left: string[];
  try {
    const adopted = await adoptedOutcome(deps, id);
    if (!adopted) throw new Error("the handover record could not be read");
    left = await cancelLeft(deps, id);
    removeWorkspace(adopted.ws.root, ctx.home);
    removeAgentsSocketFolder(store.taskDir(id));
    outcome = adopted.outcome;
  } catch (err) {
    ctx.io.stderr.write(`${err instanceof Error ? err.stack ?? err.message : err}\n`);
    outcome = { state: "TASK_STATE_FAILED", text: errorText(err) };
    left = await cancelLeft(deps, id);
    // The child the run recorded is stopped if it is provably ours, and its copy removed.
    reapTask(store, store.require(id), ctx.home);
  }
  return finish(deps, id, outcome, left);
}

/**
 * Settles the task with the run's outcome; last, so whoever sees it finds the copy gone.
 * `left`: the tasks the agent delegated that had not ended, now canceled or asked to stop.
 */
export function finish(deps: LocalRunDeps, id: string, outcome: Outcome, left: string[]): Task {
  const { ctx, store } = deps;
  if (left.length) {
    const text = `${outcome.text.replace(/\s*$/, "")}\n\n${left.length} task(s) the agent ` +
      `delegated were still running or waiting for input and were canceled: ${left.join(", ")}.`;
    outcome = { ...outcome, text };
  }
  const log = outcome.state === "TASK_STATE_FAILED"
    ? outcome.log ?? workerLog(store.taskDir(id))
    : undefined;
  const { task: done } = store.update(id, (t) => ({
    ...t,
    status: {
      state: outcome.state,
      timestamp: isoSeconds(ctx.clock.now()),
      message: agentMessage(log ? namingLog(outcome.text, log) : outcome.text, t.id, t.contextId),
    },
    artifacts: "artifacts" in outcome ? outcome.artifacts : t.artifacts,
    ...(log
      ? { metadata: { ...t.metadata, observal: { ...t.metadata.observal, logPath: log } } }
      : {}),
  }));
  return markChanged(store, done);
}
