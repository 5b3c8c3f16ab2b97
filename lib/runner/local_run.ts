/**
 * Runs a registry Agent inside the worker: a throwaway copy of the caller's repository,
 * the agent's harness configuration written into it, the harness CLI run headless there,
 * and the child's edits returned as `changes.patch`. The copy is always removed; the
 * caller's repository is never touched.
 * @module
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Artifact, type Task, textArtifact } from "../a2a/mod.ts";
import { type Context, homeFault, isoSeconds, ObservalError } from "../core/mod.ts";
import {
  forksSession,
  getHarness,
  headlessErrorLine,
  normalizeHarness,
  parseHeadlessOutput,
  planHeadlessRun,
  type ResumableSession,
  resumableSession,
  stripAnsi,
} from "../harness/mod.ts";
import { killProcessesIn, processIdentity, spawnChild, terminateGroup } from "../process/mod.ts";
import { sandboxedCommand } from "./sandboxed_command.ts";
import type { EntryDocument, RegistryClient } from "../registry/mod.ts";
import type { TaskStore } from "../store/mod.ts";
import {
  BASE_PACK_FILE,
  baseObjects,
  createWorkspace,
  markBaseline,
  removeWorkspace,
  type Workspace,
  workspaceChanges,
} from "../workspace/mod.ts";
import { childEnv } from "./child_env.ts";
import { installAgent } from "./install_agent.ts";
import { harnessOption } from "./harness_choice.ts";
import { LOCAL_TIMEOUT_SECONDS } from "./limits.ts";
import { agentMessage, markChanged, namingLog, readNewSessionBrief, settle } from "./task_ops.ts";
import { logFile, workerLog } from "./worker_process.ts";

/** How often the worker looks for a cancel request while the child runs. */
const CANCEL_CHECK_MS = 200;
/** How long the child's process group gets between SIGTERM and SIGKILL. */
const TERMINATE_GRACE_MS = 10_000;
/** Output of the child we read back to find its answer (the logs keep up to 16 MiB). */
const MAX_OUTPUT_READ = 16 * 1024 * 1024;

/** What a local run needs. */
export interface LocalRunDeps {
  ctx: Context;
  store: TaskStore;
  registry: () => RegistryClient;
}

/**
 * How the run ended, before the workspace is removed and the task settled. A failure names
 * the log to read: the child's stderr once it ran, else the worker's own log.
 */
type Outcome =
  | { state: "TASK_STATE_COMPLETED"; text: string; artifacts: Artifact[] }
  | { state: "TASK_STATE_FAILED"; text: string; log?: string }
  | { state: "TASK_STATE_CANCELED" | "TASK_STATE_REJECTED"; text: string };

function update(deps: LocalRunDeps, id: string, fn: (t: Task) => Task): Task {
  const { task, changed } = deps.store.update(id, fn);
  return changed ? markChanged(deps.store, task) : task;
}

function working(deps: LocalRunDeps, id: string, text: string): Task {
  return update(deps, id, (t) => ({
    ...t,
    status: {
      state: "TASK_STATE_WORKING",
      timestamp: isoSeconds(deps.ctx.clock.now()),
      message: agentMessage(text, t.id, t.contextId),
    },
  }));
}

function observal(deps: LocalRunDeps, id: string, patch: Record<string, unknown>): Task {
  return update(deps, id, (t) => {
    const meta: Record<string, unknown> = { ...t.metadata.observal, ...patch };
    for (const k of Object.keys(meta)) if (meta[k] === undefined) delete meta[k];
    return { ...t, metadata: { ...t.metadata, observal: meta as Task["metadata"]["observal"] } };
  });
}

function errorText(err: unknown): string {
  if (err instanceof ObservalError) {
    return [err.message, err.remediation].filter(Boolean).join(". ");
  }
  return err instanceof Error ? err.message : String(err);
}

/** The registry's approval, checked again at run time: it may have been withdrawn. */
async function stillApproved(deps: LocalRunDeps, task: Task): Promise<string | undefined> {
  const meta = task.metadata.observal;
  let entry: EntryDocument;
  try {
    entry = await deps.registry().entry(meta.target);
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

function readBounded(path: string): string {
  try {
    const text = readFileSync(path, "utf8");
    return text.length > MAX_OUTPUT_READ ? text.slice(0, MAX_OUTPUT_READ) : text;
  } catch {
    return "";
  }
}

/** Waits for the child, a cancel request or the deadline, whichever comes first. */
async function waitForChild(
  deps: LocalRunDeps,
  id: string,
  child: Awaited<ReturnType<typeof spawnChild>>,
  deadline: number,
): Promise<"exited" | "canceled" | "timeout" | "fault"> {
  const { clock } = deps.ctx;
  let exited = false;
  child.exited.then(() => (exited = true));
  for (;;) {
    // The check's timer goes when the child exits first: it would hold the worker open.
    const nap = new AbortController();
    try {
      await Promise.race([child.exited, clock.sleep(CANCEL_CHECK_MS, nap.signal).catch(() => {})]);
    } finally {
      nap.abort();
    }
    if (exited) return "exited";
    // Output that cannot be kept (a full disk) ends the run: its answer would be lost.
    const why = deps.store.cancelRequested(id)
      ? "canceled"
      : child.fault()
      ? "fault"
      : clock.now().getTime() >= deadline
      ? "timeout"
      : undefined;
    if (why) {
      await terminateGroup(child.pid, { clock, graceMs: TERMINATE_GRACE_MS, exited: child.exited });
      await child.exited;
      return why;
    }
  }
}

function statText(stat: { files: number; insertions: number; deletions: number }): string {
  const files = `${stat.files} file${stat.files === 1 ? "" : "s"} changed`;
  return `${files}, +${stat.insertions} -${stat.deletions}`;
}

async function execute(deps: LocalRunDeps, task: Task, ws: Workspace): Promise<Outcome> {
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

  const agent = await installAgent(deps, task, harness, ws);
  observal(deps, id, { agentName: agent.displayName, version: agent.version });
  const baseline = await markBaseline(ws, agent.written);
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
  const env = childEnv(ctx.env, store.require(id), ws.path);
  let child;
  try {
    const launch = sandboxedCommand({
      kind: meta.sandbox ?? "none",
      argv: plan.argv,
      env,
      observalHome: ctx.home,
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
      text: `${facts.display_name} could not be started: ${errorText(err)}.`,
    };
  }
  const childStartTime = processIdentity(child.pid)?.startTime;
  observal(deps, id, { childPid: child.pid, childStartTime, childSessionId: plan.sessionId });

  const timeout = meta.timeoutSeconds ?? LOCAL_TIMEOUT_SECONDS;
  const why = await waitForChild(deps, id, child, ctx.clock.now().getTime() + timeout * 1000);
  // A sandbox's PID namespace ends with its first process; without one, whatever the
  // child left running in its copy (setsid escapes its group) is ended here.
  if (meta.sandbox !== "bwrap") killProcessesIn(ws.root, childStartTime);
  observal(deps, id, { childPid: undefined, childStartTime: undefined });
  if (why === "canceled") return { state: "TASK_STATE_CANCELED", text: "Canceled by the caller." };
  if (why === "timeout") {
    return {
      state: "TASK_STATE_FAILED",
      text: `Timed out after ${timeout} seconds.`,
      log: logs.stderr,
    };
  }

  const exit = await child.exited;
  if (why === "fault" || exit.fault) {
    const fault = exit.fault ?? child.fault();
    const said = errorText(
      homeFault(fault, ctx.home, dir) ?? `Cannot write the task's logs in ${dir}: ${fault}`,
    );
    return {
      state: "TASK_STATE_FAILED",
      text: `${facts.display_name}'s output could not be kept, so its answer was lost. ${said}`,
      log: logs.stderr,
    };
  }
  const stdout = readBounded(logs.stdout);
  const stderr = readBounded(logs.stderr);
  const result = parseHeadlessOutput(harness, {
    stdout,
    stderr,
    exitCode: exit.code,
    outputFileText: plan.outputFile ? readBounded(plan.outputFile) || undefined : undefined,
  }, plan);
  if (result.sessionId) observal(deps, id, { childSessionId: result.sessionId });

  const changes = await workspaceChanges(ws, baseline);
  const notes = [...ws.notes, ...changes.notes];
  if (notes.length) observal(deps, id, { notes });
  // The harness's own words for what went wrong, when it said any.
  const said = () =>
    headlessErrorLine(harness, { stdout, stderr: stripAnsi(stderr), exitCode: exit.code }, result);
  if (exit.code !== 0 || result.error) {
    const line = said();
    const how = exit.code === null
      ? `was stopped by ${exit.signal}`
      : exit.code === 0
      ? "reported an error"
      : `exited with code ${exit.code}`;
    return {
      state: "TASK_STATE_FAILED",
      text: `${facts.display_name} ${how}${line ? `: ${line}` : ""}`,
      log: logs.stderr,
    };
  }
  if (!result.text && !changes.patch) {
    const line = said();
    return {
      state: "TASK_STATE_FAILED",
      text: `${facts.display_name} returned no answer and made no changes${
        line ? `: ${line}` : ""
      }`,
      log: logs.stderr,
    };
  }
  const artifacts: Artifact[] = [];
  if (result.text) artifacts.push(textArtifact("result", result.text));
  if (changes.patch) {
    const patchPath = join(dir, "changes.patch");
    writeFileSync(patchPath, changes.bytes, { mode: 0o600 });
    // What `delegate apply --3way` needs that goes with the copy: the preimages of files
    // the caller had changed but not committed.
    const base = ws.kind === "git" ? await baseObjects(ws, changes.patch) : undefined;
    if (base) writeFileSync(join(dir, BASE_PACK_FILE), base, { mode: 0o600 });
    observal(deps, id, { patchPath });
    artifacts.push(textArtifact("changes.patch", changes.patch, "text/x-diff"));
  }
  const done = changes.patch
    ? `Done. Proposed changes attached (${statText(changes.stat)}).`
    : "Done.";
  return {
    state: "TASK_STATE_COMPLETED",
    text: changes.omitted.length ? `${done} ${omittedText(changes.omitted)}` : done,
    artifacts,
  };
}

/** The files too large for the patch, named in the result so nobody takes it as whole. */
function omittedText(omitted: readonly { path: string; bytes: number }[]): string {
  const named = omitted.slice(0, 5).map((f) => `${f.path} (${formatSize(f.bytes)})`).join(", ");
  const more = omitted.length > 5 ? ` and ${omitted.length - 5} more` : "";
  return `Left out of the patch as too large: ${named}${more}; see the task's notes.`;
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
    : `${Math.ceil(bytes / 1024)} KiB`;
}

/** The worker's run of one local task. Always leaves the task settled and the copy gone. */
export async function runLocal(deps: LocalRunDeps, task: Task): Promise<Task> {
  const { ctx, store } = deps;
  const id = task.id;
  const refused = await stillApproved(deps, task);
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
  working(deps, id, "Preparing a copy of the repository.");
  let ws: Workspace;
  try {
    ws = await createWorkspace({ home: ctx.home, cwd: task.metadata.observal.cwd, env: ctx.env });
  } catch (err) {
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
  let outcome: Outcome;
  try {
    outcome = await execute(deps, store.require(id), ws);
  } catch (err) {
    ctx.io.stderr.write(`${err instanceof Error ? err.stack ?? err.message : err}\n`);
    outcome = { state: "TASK_STATE_FAILED", text: errorText(err) };
  } finally {
    removeWorkspace(ws.root, ctx.home);
  }
  // Settled last: whoever sees the final state also finds the copy gone.
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
