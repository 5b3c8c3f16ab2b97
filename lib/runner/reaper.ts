/**
 * Cleaning up after workers that died: a child still running in a dead worker's
 * workspace is stopped only when it is provably the one we started (same pid, same start
 * time, running inside that workspace); a reused pid is never signalled. Workspaces of
 * settled tasks are removed once nothing of ours runs in them.
 * @module
 */
import { nodeFs, pathExists } from "../core/system/mod.ts";
import { isFinal, type Task } from "../a2a/tasks/mod.ts";
import type { Context } from "../core/mod.ts";
import { killProcessesIn, matchProcess, signalGroup } from "../process/mod.ts";
import type { TaskStore } from "../store/mod.ts";
import {
  listWorkspaceRoots,
  removeAgentsSocketFolder,
  removeWorkspace,
} from "../workspace/roots/mod.ts";

/** A workspace with no task at all is removed once it is this old (a crash mid-creation). */
export const ORPHAN_WORKSPACE_MS = 24 * 60 * 60 * 1000;

/** What {@linkcode reapTask} did. */
export type Reaped = "nothing" | "removed" | "killed" | "left";

/**
 * For a task whose worker is gone: stops its child if provably ours, then removes its
 * workspace. A child that cannot be proven ours is left running, and its workspace with
 * it, until a later sweep finds it gone.
 */
export function reapTask(
  store: TaskStore,
  task: Task,
  home: string,
  options: { dryRun?: boolean } = {},
): Reaped {
  const meta = task.metadata.observal;
  const root = meta.workspaceRoot;
  let result: Reaped = "nothing";
  if (meta.childPid !== undefined) {
    const match = matchProcess(meta.childPid, meta.childStartTime, root);
    if (match === "unproven") return "left";
    if (options.dryRun) {
      return match === "ours" ? "killed" : root && pathExists(root) ? "removed" : "nothing";
    }
    if (match === "ours") {
      // It leads its own process group: the group signal takes its children too.
      signalGroup(meta.childPid, "SIGKILL");
      result = "killed";
    }
    // Whatever left the group (setsid) but still works in the copy, started after the
    // child: without a sandbox's PID namespace nothing else ends it.
    if (root && killProcessesIn(root, meta.childStartTime) > 0) {
      result = "killed";
    }
    // Settled already (update would leave it alone): the pid is forgotten all the same.
    store.forgetChild(task.id);
  } else if (root && meta.runnerStartTime && !options.dryRun) {
    // A runner that died between starting its child and recording it: what runs in the
    // copy and started after the runner is that child (or started by it).
    if (killProcessesIn(root, meta.runnerStartTime) > 0) result = "killed";
  }
  if (options.dryRun) return root && pathExists(root) ? "removed" : "nothing";
  removeAgentsSocketFolder(store.taskDir(task.id));
  if (root && pathExists(root) && removeWorkspace(root, home) && result === "nothing") {
    result = "removed";
  }
  return result;
}

/**
 * Removes workspaces nobody uses any more: those of settled tasks (after stopping a child
 * that is provably ours) and very old ones no task knows. `settle` lets the caller settle
 * a task whose worker died before it is judged.
 */
export function sweepWorkspaces(
  ctx: Pick<Context, "home" | "clock">,
  store: TaskStore,
  settle: (task: Task) => Task,
  options: { dryRun?: boolean } = {},
): { root: string; taskId?: string; reaped: Reaped }[] {
  const out: { root: string; taskId?: string; reaped: Reaped }[] = [];
  for (const root of listWorkspaceRoots(ctx.home)) {
    try {
      const owner = store.findByWorkspace(root);
      if (!owner) {
        const age = ctx.clock.now().getTime() - nodeFs().statSync(root).mtimeMs;
        if (age > ORPHAN_WORKSPACE_MS && (options.dryRun || removeWorkspace(root, ctx.home))) {
          out.push({ root, reaped: "removed" });
        }
        continue;
      }
      const task = settle(owner);
      if (!isFinal(task.status.state)) continue;
      out.push({ root, taskId: task.id, reaped: reapTask(store, task, ctx.home, options) });
    } catch { /* one bad workspace must not stop the sweep; the next one retries */ }
  }
  return out;
}
