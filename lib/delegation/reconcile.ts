/**
 * `observal reconcile`: the clean-up every command does in passing, done on purpose and
 * reported. Settles tasks whose workers died, stops their children where they are provably
 * ours, removes workspaces nothing uses, prunes old settled tasks and capability-lock
 * lines, and lists the child sessions it can attribute to the agents that ran them.
 * @module
 */
import { isFinal, type Task } from "../a2a/tasks/mod.ts";
import type { Context } from "../core/mod.ts";
import type { TaskStore } from "../store/mod.ts";
import { CAPABILITY_LOCK_RETENTION_DAYS, pruneCapabilityLock } from "../telemetry/mod.ts";
import { reapTask, sweepWorkspaces } from "../runner/mod.ts";
import type { DelegationService } from "./service.ts";

/** Options for {@linkcode reconcile}. */
export interface ReconcileOptions {
  /** Say what would be done, change nothing. */
  dryRun: boolean;
  /** Settled tasks older than this many days are pruned. @default 30 */
  olderThanDays?: number;
  /** Child sessions of tasks started within this many hours are listed. @default 168 */
  sinceHours?: number;
}

/** What {@linkcode reconcile} did (or, in a dry run, would do). */
export interface ReconcileReport {
  dry_run: boolean;
  settled: { task_id: string; reason: string }[];
  workspaces: { root: string; task_id?: string; action: "killed" | "removed" | "left" }[];
  pruned: { tasks: number | null; folders: number | null; lock_lines: number | null };
  sessions: {
    task_id: string;
    child_session_id: string;
    agent_id: string;
    version?: string;
    harness?: string;
  }[];
}

/** Runs the clean-up; see the module doc. */
export function reconcile(
  deps: { ctx: Pick<Context, "home" | "clock">; store: TaskStore; service: DelegationService },
  options: ReconcileOptions,
): ReconcileReport {
  const { ctx, store, service } = deps;
  const { dryRun } = options;
  const report: ReconcileReport = {
    dry_run: dryRun,
    settled: [],
    workspaces: [],
    pruned: { tasks: null, folders: null, lock_lines: null },
    sessions: [],
  };

  for (const task of store.running()) {
    const reason = service.workerGone(task);
    if (!reason) continue;
    report.settled.push({ task_id: task.id, reason });
    // Settling a local task also reaps it (get() does both); say what that does.
    const root = task.metadata.observal.workspaceRoot;
    const action = root ? reapTask(store, task, ctx.home, { dryRun: true }) : "nothing";
    if (!dryRun) service.get(task.id);
    if (root && action !== "nothing") report.workspaces.push({ root, task_id: task.id, action });
  }

  // In a dry run a task with a dead worker is judged as if it had been settled.
  const settle = (t: Task): Task =>
    dryRun
      ? service.workerGone(t) ? { ...t, status: { state: "TASK_STATE_FAILED" } } : t
      : service.get(t.id);
  for (const w of sweepWorkspaces(ctx, store, settle, { dryRun })) {
    if (w.reaped === "nothing" || report.workspaces.some((r) => r.root === w.root)) continue;
    report.workspaces.push({ root: w.root, task_id: w.taskId, action: w.reaped });
  }

  const now = ctx.clock.now();
  if (!dryRun) {
    const before = new Date(now.getTime() - (options.olderThanDays ?? 30) * 86_400_000);
    const pruned = store.prune({ before });
    const lock = pruneCapabilityLock(ctx.home, {
      now,
      retentionDays: CAPABILITY_LOCK_RETENTION_DAYS,
    });
    report.pruned = { tasks: pruned.removed, folders: pruned.orphans, lock_lines: lock.removed };
  }

  const since = now.getTime() - (options.sinceHours ?? 168) * 3_600_000;
  for (const task of store.list({ limit: 200 }).items) {
    const meta = task.metadata.observal;
    if (Date.parse(meta.createdAt) < since) break;
    if (!meta.childSessionId || !meta.agentId || !isFinal(task.status.state)) continue;
    report.sessions.push({
      task_id: task.id,
      child_session_id: meta.childSessionId,
      agent_id: meta.agentId,
      version: meta.version,
      harness: meta.harness,
    });
  }
  return report;
}

/** The report as lines for people. */
export function reconcileLines(report: ReconcileReport): string[] {
  const would = report.dry_run ? "would be " : "";
  const lines: string[] = [];
  for (const s of report.settled) {
    lines.push(`task ${s.task_id} ${would}settled as failed: ${s.reason}`);
  }
  for (const w of report.workspaces) {
    const what = w.action === "killed"
      ? `its child ${report.dry_run ? "would be " : ""}stopped and the copy ${would}removed`
      : w.action === "removed"
      ? `${would}removed`
      : "left alone: a process that cannot be proven ours still runs in it";
    lines.push(`workspace ${w.root}${w.task_id ? ` (task ${w.task_id})` : ""}: ${what}`);
  }
  if (!report.dry_run) {
    const p = report.pruned;
    lines.push(
      `pruned ${p.tasks} settled task(s), ${p.folders} orphan folder(s), ${p.lock_lines} old capability-lock line(s)`,
    );
  }
  for (const s of report.sessions) {
    lines.push(
      `session ${s.child_session_id} (${s.harness ?? "harness"}) belongs to agent ${s.agent_id}${
        s.version ? `@${s.version}` : ""
      } (task ${s.task_id})`,
    );
  }
  if (lines.length === 0) lines.push("Nothing to reconcile.");
  return lines;
}
