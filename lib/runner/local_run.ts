/**
 * Runs a registry Agent inside the worker: a throwaway copy of the caller's repository,
 * the agent's harness configuration written into it, the harness CLI run headless there,
 * and the child's edits returned as `changes.patch`. The copy is always removed; the
 * caller's repository is never touched.
 * @module
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Task } from "../a2a/mod.ts";
import { ObservalError } from "../core/mod.ts";
import {
  forksSession,
  getHarness,
  type HarnessKey,
  type HeadlessPlan,
  normalizeHarness,
  planHeadlessRun,
  type ResumableSession,
  resumableSession,
} from "../harness/mod.ts";
import { processIdentity, spawnChild } from "../process/mod.ts";
import { hostPid } from "../core/system/mod.ts";
import { sandboxedCommand } from "./sandboxed_command.ts";
import type { EntryDocument } from "../registry/mod.ts";
import {
  type Baseline,
  createWorkspace,
  markBaseline,
  removeWorkspace,
  type Workspace,
} from "../workspace/mod.ts";
import { agentsSocketPath, removeAgentsSocketFolder } from "../workspace/roots/mod.ts";
import { childBroker } from "./agents_broker.ts";
import { childEnv } from "./child_env.ts";
import { fetchAgent, type FetchedAgent, type InstalledAgent, writeAgent } from "./install_agent.ts";
import { harnessOption } from "./harness_choice.ts";
import { LOCAL_TIMEOUT_SECONDS } from "./limits.ts";
import { readNewSessionBrief, settle } from "./task_ops.ts";
import { logFile, workerLog } from "./worker_process.ts";
import { errorText, type LocalRunDeps, observal, type Outcome, working } from "./_local_ops.ts";
import { childOutcome, handedOver } from "./local_child.ts";
import { cancelLeft, finish, followHandedOver } from "./local_end.ts";

export type { LocalRunDeps } from "./_local_ops.ts";

/**
 * The registry's approval, checked again at run time: it may have been withdrawn. A run
 * started by the command that just checked it (`checked`) takes that entry.
 */
async function stillApproved(
  deps: LocalRunDeps,
  task: Task,
  checked?: EntryDocument,
): Promise<string | undefined> {
  const meta = task.metadata.observal;
  let entry: EntryDocument;
  try {
    entry = checked ?? await deps.registry().entry(meta.target);
  } catch (err) {
    if (err instanceof ObservalError && err.code === "NOT_FOUND") {
      return "it was removed from the registry";
    }
    throw err;
  }
  // A pinned version runs while a newer one waits for review; the install then takes
  // that version only if the registry still has it approved, digest checked.
  if (meta.pinnedVersion && entry["obs:lifecycle"] === "pending") return undefined;
  if (entry["obs:lifecycle"] !== "approved" || entry["obs:delegable"] === false) {
    return "it is no longer approved";
  }
  return undefined;
}

/**
 * Prepares the copy and runs the child in it. With `handover`, the run stops when it
 * aborts: before the child starts ("not started": a worker starts over), or leaving the
 * child running for a worker to follow ("handed over").
 */
async function execute(
  deps: LocalRunDeps,
  task: Task,
  ws: Workspace,
  fetched: Promise<FetchedAgent>,
  handover?: AbortSignal,
): Promise<Outcome | "handed over" | "not started"> {
  const { ctx, store } = deps;
  const id = task.id;
  const meta = task.metadata.observal;
  const harness = normalizeHarness(meta.harness ?? "");
  const facts = getHarness(harness);
  const option = harnessOption(harness, ctx.env, meta.cwd);
  if (!option.binary) {
    return {
      state: "TASK_STATE_FAILED",
      text: `${facts.display_name} cannot run here any more: ${option.unavailable}. ${
        option.fix ?? `Install ${option.name} (${option.program}), then delegate again`
      }.`,
    };
  }

  const agent = await writeAgent(deps, await fetched, ws);
  observal(deps, id, { agentName: agent.displayName, version: agent.version });
  const baseline = await markBaseline(ws, agent.written);
  if (handover?.aborted) return "not started";
  const sessionId = randomUUID();
  // Found again here: the session may have gone since the task was started.
  let resume: ResumableSession | undefined;
  let message = (task.history?.[0]?.parts ?? []).map((p) => p.text ?? "").join("\n");
  if (meta.resumeSessionId) {
    const found = resumableSession(harness, meta.resumeSessionId, ctx.env);
    if ("file" in found) resume = found;
    else {
      // Its brief was written for the session it meant to resume: a new one gets the brief
      // that recalls the earlier runs, kept for this when the task started.
      message = readNewSessionBrief(deps.store.taskDir(id));
      observal(deps, id, {
        resumeSessionId: undefined,
        newSessionReason: `${found.reason} (it went after the task started)`,
      });
    }
  }
  const plan = planHeadlessRun({
    harness,
    binary: option.binary,
    agentName: agent.name,
    instructions: agent.instructions,
    message,
    workdir: ws.path,
    scratch: ws.scratch,
    sessionId,
    resume,
    mcpServers: agent.servers,
    env: ctx.env,
    now: ctx.clock.now(),
  });
  for (const file of plan.files) {
    mkdirSync(dirname(file.path), { recursive: true, mode: 0o700 });
    writeFileSync(file.path, file.content, { mode: 0o600 });
  }
  if (store.cancelRequested(id)) {
    return { state: "TASK_STATE_CANCELED", text: "Canceled by the caller." };
  }
  if (handover?.aborted) return "not started";

  working(
    deps,
    id,
    `Running ${agent.displayName} in ${facts.display_name}${
      resume
        ? forksSession(harness)
          ? `, continuing session ${resume.sessionId} in a fork`
          : `, resuming session ${resume.sessionId}`
        : ""
    }.`,
  );
  const dir = store.taskDir(id, { create: true });
  const logs = { stdout: join(dir, logFile("stdout")), stderr: join(dir, logFile("stderr")) };
  const env = childEnv(ctx.env, store.require(id), ws.path, agentsSocketPath(dir));
  const broker = await childBroker(ctx, store.require(id), {
    ws,
    taskDir: dir,
    sessionId: plan.sessionId,
  });
  try {
    return await startChild(
      deps,
      id,
      { plan, env, ws, dir, logs, agent, harness, baseline },
      handover,
    );
  } finally {
    broker?.close();
  }
}

/** What {@linkcode startChild} starts. */
interface ChildStart {
  plan: HeadlessPlan;
  env: Record<string, string>;
  ws: Workspace;
  dir: string;
  logs: { stdout: string; stderr: string };
  agent: InstalledAgent;
  harness: HarnessKey;
  baseline: Baseline;
}

/** Starts the child in its sandbox and watches it to the run's outcome. */
async function startChild(
  deps: LocalRunDeps,
  id: string,
  start: ChildStart,
  handover?: AbortSignal,
): Promise<Outcome | "handed over"> {
  const { ctx, store } = deps;
  const { plan, env, ws, dir, logs, agent, harness } = start;
  const meta = store.require(id).metadata.observal;
  let child;
  let startedAt: number;
  try {
    const launch = sandboxedCommand({
      kind: meta.sandbox ?? "none",
      argv: plan.argv,
      env,
      workspaceRoot: ws.root,
      cwd: ws.path,
      scratch: ws.scratch,
      taskDir: dir,
      mounts: meta.sandboxMounts,
      reads: [
        meta.cwd,
        ...(ws.kind === "git" ? [ws.repository] : []),
        ...Object.values(agent.servers).flatMap((s) => [s.command, ...(s.args ?? [])]),
      ],
    });
    startedAt = ctx.clock.now().getTime();
    child = await spawnChild(launch.argv, {
      cwd: ws.path,
      // The harness's own settings win: Codex keeps its temp folder out of /tmp.
      env: { ...env, ...launch.env, ...plan.env },
      stdin: plan.stdin,
      stdoutPath: logs.stdout,
      stderrPath: logs.stderr,
    });
  } catch (err) {
    return {
      state: "TASK_STATE_FAILED",
      text: `${getHarness(harness).display_name} could not be started: ${errorText(err)}.`,
    };
  }
  return await childOutcome(
    deps,
    id,
    {
      harness,
      plan,
      logs,
      ws,
      baseline: start.baseline,
      taskDir: dir,
      timeoutSeconds: meta.timeoutSeconds ?? LOCAL_TIMEOUT_SECONDS,
      startedAt,
      sandbox: meta.sandbox,
    },
    child,
    handover,
  );
}

/**
 * Runs one local task, or follows the child a run here handed over. Always leaves the task
 * settled and the copy gone, unless `handover` aborts first: then the task is returned
 * unsettled, for a worker to start over (nothing left running) or to follow its child.
 *
 * @param options.handover aborted when the process running the task must let it go
 * @param options.entry the agent's entry, as the command that started the task just
 *   checked it
 */
export async function runLocal(
  deps: LocalRunDeps,
  task: Task,
  options: { handover?: AbortSignal; entry?: EntryDocument } = {},
): Promise<Task> {
  const { ctx, store } = deps;
  const id = task.id;
  const { handover } = options;
  if (handedOver(store.taskDir(id))) return await followHandedOver(deps, id);
  const refused = await stillApproved(deps, task, options.entry);
  if (refused) {
    const name = task.metadata.observal.targetName ?? "The agent";
    return settle(
      store,
      id,
      "TASK_STATE_REJECTED",
      `${name} can no longer take this task: ${refused}.`,
      ctx,
    );
  }
  if (store.cancelRequested(id)) {
    return settle(store, id, "TASK_STATE_CANCELED", "Canceled by the caller.", ctx);
  }
  if (handover?.aborted) return store.require(id);
  working(deps, id, "Preparing a copy of the repository.");
  const copying = createWorkspace({
    home: ctx.home,
    cwd: task.metadata.observal.cwd,
    env: ctx.env,
    // Recorded at once: a runner that dies mid-copy, or before it records its child,
    // leaves a copy (and whatever was started in it) its reaper can find.
    onRoot: (root) =>
      observal(deps, id, {
        workspaceRoot: root,
        runnerStartTime: processIdentity(hostPid())?.startTime,
      }),
  });
  // Fetched while git makes the copy, which leaves this process waiting.
  const fetched = fetchAgent(
    deps,
    task,
    normalizeHarness(task.metadata.observal.harness ?? ""),
    agentsSocketPath(store.taskDir(id)),
  );
  fetched.catch(() => {}); // awaited once the copy exists
  let ws: Workspace;
  try {
    ws = await copying;
  } catch (err) {
    // A task whose caller ended meanwhile may have lost the copy it was copying from.
    if (store.cancelRequested(id)) {
      return settle(store, id, "TASK_STATE_CANCELED", "Canceled by the caller.", ctx);
    }
    return settle(
      store,
      id,
      "TASK_STATE_FAILED",
      `Could not prepare the delegated workspace: ${errorText(err)}`,
      ctx,
      { log: workerLog(store.taskDir(id)) },
    );
  }
  observal(deps, id, {
    workspaceRoot: ws.root,
    workspace: ws.kind === "git" ? "git-worktree" : "empty",
    // The patch is relative to the repository's top: `git apply` run in a subfolder would
    // skip the files outside it, so the apply hint names this folder.
    repository: ws.kind === "git" ? ws.repository : undefined,
    notes: ws.notes.length ? ws.notes : undefined,
  });
  let outcome: Outcome | "handed over" | "not started";
  let left: string[] = [];
  try {
    outcome = await execute(deps, store.require(id), ws, fetched, handover);
  } catch (err) {
    ctx.io.stderr.write(`${err instanceof Error ? err.stack ?? err.message : err}\n`);
    // Canceled meanwhile, the run may have failed for that (the copy it copied is gone).
    outcome = store.cancelRequested(id)
      ? { state: "TASK_STATE_CANCELED", text: "Canceled by the caller." }
      : { state: "TASK_STATE_FAILED", text: errorText(err) };
  } finally {
    // A child handed over still works in the copy.
    if (outcome! !== "handed over") {
      left = await cancelLeft(deps, id);
      removeWorkspace(ws.root, ctx.home);
      removeAgentsSocketFolder(store.taskDir(id));
    }
  }
  if (outcome === "handed over" || outcome === "not started") return store.require(id);
  return finish(deps, id, outcome, left);
}
