/**
 * The harness child of a local run, from its start to the run's outcome: it is watched for
 * a cancel request, the deadline and output that cannot be kept; then its answer is read,
 * and its edits become `changes.patch`. Everything it needs but the child's handle is
 * plain data ({@linkcode ChildRun}).
 * @module
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Artifact, textArtifact } from "../a2a/mod.ts";
import { homeFault, ObservalError } from "../core/mod.ts";
import { isWithin, pathExists } from "../core/system/mod.ts";
import {
  getHarness,
  type HarnessKey,
  headlessErrorLine,
  type HeadlessPlan,
  parseHeadlessOutput,
  stripAnsi,
} from "../harness/mod.ts";
import {
  adoptChild,
  type ChildHandle,
  type ChildRecord,
  killProcessesIn,
  processIdentity,
  terminateGroup,
} from "../process/mod.ts";
import {
  BASE_PACK_FILE,
  type Baseline,
  baseObjects,
  type Workspace,
  workspaceChanges,
} from "../workspace/mod.ts";
import { childBroker } from "./agents_broker.ts";
import { errorText, type LocalRunDeps, observal, type Outcome } from "./_local_ops.ts";
import { logFile } from "./worker_process.ts";

/** How often the worker looks for a cancel request while the child runs. */
const CANCEL_CHECK_MS = 200;
/** How long the child's process group gets between SIGTERM and SIGKILL. */
const TERMINATE_GRACE_MS = 10_000;
/** Output of the child we read back to find its answer (the logs keep up to 16 MiB). */
const MAX_OUTPUT_READ = 16 * 1024 * 1024;

/** What the run knows of its child once it has started. */
export interface ChildRun {
  harness: HarnessKey;
  plan: HeadlessPlan;
  /** The child's captured output. */
  logs: { stdout: string; stderr: string };
  ws: Workspace;
  baseline: Baseline;
  /** The task's folder, where the patch goes. */
  taskDir: string;
  timeoutSeconds: number;
  /** When the child started (ms since the epoch): its timeout counts from here. */
  startedAt: number;
  /**
   * The task's sandbox (`bwrap`, `seatbelt`, `none`): without a PID namespace, what the
   * child left running in its copy is ended here.
   */
  sandbox?: string;
}

/** What a run that hands its child over leaves for the process that takes it. */
interface HandedOver {
  run: ChildRun;
  child: ChildRecord;
}

/** The file in a task folder that a run handing its child over leaves. */
export function handoverFile(taskDir: string): string {
  return join(taskDir, "child.json");
}

/** Whether a run here handed this task's child over to a worker. */
export function handedOver(taskDir: string): boolean {
  return pathExists(handoverFile(taskDir));
}

/**
 * Watches the started child to its end and makes the run's outcome of it. When
 * `handover` aborts while the child runs (and the child can outlive this process), the
 * child is left running and what the next process needs is written to the task folder
 * ({@linkcode adoptedOutcome}): "handed over" is returned, and the copy must stay.
 *
 * @param run what the run knows of its child
 * @param child the child's handle, as started
 */
export async function childOutcome(
  deps: LocalRunDeps,
  id: string,
  run: ChildRun,
  child: ChildHandle,
  handover?: AbortSignal,
): Promise<Outcome | "handed over"> {
  const { ctx } = deps;
  const { harness, plan, logs, ws, baseline, taskDir: dir } = run;
  const facts = getHarness(harness);
  const childStartTime = child.record?.startTime ?? processIdentity(child.pid)?.startTime;
  const known = { childPid: child.pid, childStartTime, childSessionId: plan.sessionId };
  try {
    try {
      observal(deps, id, known);
    } catch (err) {
      // The child's own output may have filled the disk before its pid was kept: noticing
      // that fault cuts its log, which gives back the room the record needs.
      if (!child.fault()) throw err;
      observal(deps, id, known);
    }
  } catch (err) {
    // A child no later process could find must not outlive this run.
    await terminateGroup(child.pid, {
      clock: ctx.clock,
      graceMs: TERMINATE_GRACE_MS,
      exited: child.exited,
    });
    const exit = await child.exited;
    const fault = exit.fault ?? child.fault();
    if (fault) return lostOutput(deps, run, fault);
    throw err;
  }

  const timeout = run.timeoutSeconds;
  const deadline = run.startedAt + timeout * 1000;
  const why = await waitForChild(deps, id, child, deadline, child.record && handover);
  if (why === "handover") {
    const left: HandedOver = { run, child: child.record! };
    writeFileSync(handoverFile(dir), JSON.stringify(left), { mode: 0o600 });
    child.release?.();
    return "handed over";
  }
  // A sandbox's PID namespace ends with its first process; without one, whatever the
  // child left running in its copy (setsid escapes its group) is ended here.
  if (run.sandbox !== "bwrap") killProcessesIn(ws.root, childStartTime);
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
  const fault = exit.fault ?? (why === "fault" ? child.fault() : undefined);
  if (fault) return lostOutput(deps, run, fault);
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
      ? `was stopped${exit.signal ? ` by ${exit.signal}` : ""}`
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

function readBounded(path: string): string {
  try {
    const text = readFileSync(path, "utf8");
    return text.length > MAX_OUTPUT_READ ? text.slice(0, MAX_OUTPUT_READ) : text;
  } catch {
    return "";
  }
}

/**
 * The outcome of a child that a run here handed over (see {@linkcode childOutcome}),
 * watched from this process: its timeout still counts from its start. Undefined when the
 * task folder holds no handover.
 */
export async function adoptedOutcome(
  deps: LocalRunDeps,
  id: string,
): Promise<{ outcome: Outcome; ws: Workspace } | undefined> {
  const dir = deps.store.taskDir(id);
  const file = handoverFile(dir);
  let left: HandedOver;
  try {
    left = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  checkHandedOver(left, deps.store.require(id).metadata.observal, dir);
  const child = adoptChild(left.child, deps.ctx.clock);
  // The run that handed the child over took its broker along: listen again here.
  const broker = await childBroker(deps.ctx, deps.store.require(id), {
    ws: left.run.ws,
    taskDir: dir,
    sessionId: left.run.plan.sessionId,
  });
  let outcome;
  try {
    outcome = await childOutcome(deps, id, left.run, child);
  } finally {
    broker?.close();
  }
  rmSync(file, { force: true });
  return { outcome: outcome as Outcome, ws: left.run.ws };
}

/**
 * Refuses a handover record that does not describe this task's own child, copy and logs:
 * the task folder is writable to the child itself, and the record names a process to
 * signal and files to read into the answer. The task's row is what the run recorded.
 *
 * @throws {ObservalError} FAILED_PRECONDITION naming what does not match
 */
function checkHandedOver(
  left: HandedOver,
  meta: { childPid?: number; childStartTime?: string; workspaceRoot?: string; harness?: string },
  taskDir: string,
): void {
  const { run, child } = left;
  // Handovers happen on POSIX systems only (see spawnChild), where isWithin applies.
  const inside = (path: unknown, dir: string | undefined) =>
    typeof path === "string" && dir !== undefined && isWithin(resolve(path), dir);
  const logs = {
    stdout: join(taskDir, logFile("stdout")),
    stderr: join(taskDir, logFile("stderr")),
  };
  const wrong = [
    child?.pid !== meta.childPid || child?.startTime !== meta.childStartTime ? "the child" : "",
    run?.harness !== meta.harness ? "the harness" : "",
    run?.taskDir !== taskDir || run?.logs?.stdout !== logs.stdout ||
      run?.logs?.stderr !== logs.stderr || child?.stdoutPath !== logs.stdout ||
      child?.stderrPath !== logs.stderr || !inside(child?.statusPath, taskDir)
      ? "the logs"
      : "",
    run?.ws?.root !== meta.workspaceRoot || !inside(run?.ws?.path, meta.workspaceRoot) ||
      !inside(run?.ws?.scratch, meta.workspaceRoot) ||
      (run?.plan?.outputFile !== undefined && !inside(run.plan.outputFile, meta.workspaceRoot))
      ? "the copy"
      : "",
  ].filter(Boolean);
  if (wrong.length) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `The handover record in ${taskDir} does not match the task (${
        wrong.join(", ")
      }), so its child was not followed`,
      { remediation: "Run the task again; the harness may have written into its task folder" },
    );
  }
}

/** The outcome of a child whose output could not be written (a full disk, say). */
function lostOutput(deps: LocalRunDeps, run: ChildRun, fault: Error): Outcome {
  const said = errorText(
    homeFault(fault, deps.ctx.home, run.taskDir) ??
      `Cannot write the task's logs in ${run.taskDir}: ${fault}`,
  );
  return {
    state: "TASK_STATE_FAILED",
    text: `${getHarness(run.harness).display_name}'s output could not be kept, so its answer ` +
      `was lost. ${said}`,
    log: run.logs.stderr,
  };
}

/**
 * Waits for the child, a cancel request, the deadline or the handover, whichever comes
 * first.
 */
async function waitForChild(
  deps: LocalRunDeps,
  id: string,
  child: ChildHandle,
  deadline: number,
  handover?: AbortSignal,
): Promise<"exited" | "canceled" | "timeout" | "fault" | "handover"> {
  const { clock } = deps.ctx;
  let exited = false;
  child.exited.then(() => (exited = true));
  for (;;) {
    // The check's timer goes when the child exits first: it would hold the worker open.
    const nap = new AbortController();
    // A handover wakes the nap as the check's own end does.
    const woken = handover ? AbortSignal.any([nap.signal, handover]) : nap.signal;
    try {
      await Promise.race([child.exited, clock.sleep(CANCEL_CHECK_MS, woken).catch(() => {})]);
    } finally {
      nap.abort();
    }
    if (exited) return "exited";
    if (handover?.aborted) return "handover";
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
