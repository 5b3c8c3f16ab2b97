/**
 * Starting a task: every guard first, then the task built from the agent's entry, with
 * what its worker may touch, and either a worker for it or a run in this process.
 * @module
 */
import { A2A_AGENT_CARD_MEDIA_TYPE } from "../a2a/cards/mod.ts";
import { declaredRepoState, MAX_REPO_STATE_BYTES, type WireRepoState } from "../a2a/repo_state.ts";
import type { Task } from "../a2a/tasks/mod.ts";
import { type Env, isoSeconds, ObservalError, type SelfPermissions } from "../core/mod.ts";
import { hostPlatform } from "../core/system/mod.ts";
import type { HarnessKey } from "../harness/facts/mod.ts";
import { pinnedEndpoint } from "../registry/mod.ts";
import { DEFAULT_MAX_DEPTH } from "./caller.ts";
import { resolveAgent } from "./_find.ts";
import type { StartOptions } from "./_options.ts";
import type { ServiceState } from "./_state.ts";
import {
  checkSpace,
  createTask,
  launchWorker,
  recordStart,
  startedAnyway,
  workerNet,
} from "./_launch.ts";
import { runTaskHere } from "./_run_here.ts";
import { handoverReserveMs, waitBudgetMs } from "./_wait.ts";
import { agentIdOf } from "./_helpers.ts";
import { checkApproved, checkBreadth, checkCycle, checkDepth, checkMessage } from "./guards.ts";
import {
  LOCAL_TIMEOUT_SECONDS,
  localPermissions,
  remotePermissions,
  saveNewSessionBrief,
  saveRepoState,
  settle,
  userMessage,
  type WorkerFence,
} from "../runner/mod.ts";

/**
 * The entry as pinned: its approved version and digest while a newer version waits for
 * review (the registry still installs the approved one, digest checked). Rejected,
 * archived, or another entry: as found, for the guards to refuse.
 */
function pinnedVersion(
  found: Awaited<ReturnType<typeof resolveAgent>>,
  pin: NonNullable<StartOptions["pin"]>,
): Awaited<ReturnType<typeof resolveAgent>> {
  const lifecycle = found["obs:lifecycle"];
  if (found.identifier !== pin.identifier) return found;
  if (lifecycle !== "approved" && lifecycle !== "pending") return found;
  return {
    ...found,
    version: pin.version,
    "obs:artifactDigest": pin.digest,
    "obs:lifecycle": "approved",
    // A registry reports a pending entry as not delegable; the pinned version was, when
    // pinned. An approved entry says for itself (it may have been made not delegable).
    ...lifecycle === "pending" ? { "obs:delegable": true } : {},
  };
}

/** The service's `start`: nothing runs when a guard refuses. */
export async function startTask(
  s: ServiceState,
  ref: string,
  message: string,
  options: StartOptions,
): Promise<Task> {
  const { store } = s.deps;
  // A served Agent's run copies the tree rebuilt from its caller's state, not this folder.
  const ctx = options.cwd ? { ...s.deps.ctx, cwd: options.cwd } : s.deps.ctx;
  const since = options.since ?? ctx.clock.now();
  const caller = options.caller;
  checkMessage(message);
  /** What the child is told: the message, or a resume's `fresh` brief in a new session. */
  let told = message;
  if (options.resume) checkMessage(options.resume.fresh);
  checkDepth(caller);
  if (caller.parentTaskId) checkBreadth(store.countChildren(caller.parentTaskId));
  const found = await resolveAgent(s.deps, ref, options.signal);
  const entry = options.pin ? pinnedVersion(found, options.pin) : found;
  checkApproved(entry, ref);
  const identifier = entry.identifier;
  const name = entry.displayName ?? ref;
  const isA2a = entry.type === A2A_AGENT_CARD_MEDIA_TYPE;
  const agentId = isA2a ? undefined : agentIdOf(identifier);
  checkCycle(caller, { identifier, agentId, name });

  let kindMeta: Record<string, unknown>;
  /** The caller's repository state, for an agent that takes it with the brief. */
  let captured: { state: WireRepoState; top: string } | undefined;
  // Whether the agent's task could run in this process at all; the wait decides below.
  let runnable = false;
  let reserveMs = 0;
  // What the worker may touch, once its task folder is known.
  let perms: (fence: WorkerFence) => SelfPermissions;
  if (isA2a) {
    if (options.resume) told = options.resume.fresh;
    if (options.harness) {
      throw new ObservalError("INVALID_ARGUMENT", "--harness applies to registry agents only", {
        remediation: `${name} is a remote agent; drop --harness`,
      });
    }
    const pinned = pinnedEndpoint(entry);
    const iface = pinned?.iface;
    if (!iface) {
      throw new ObservalError(
        "FAILED_PRECONDITION",
        `${name} has no callable JSON-RPC endpoint`,
        {
          remediation: "Ask its owner to publish a JSONRPC interface in the Agent Card",
        },
      );
    }
    kindMeta = { kind: "a2a", remoteUrl: iface.url };
    const takes = options.sendRepo === false ? undefined : declaredRepoState(pinned.card);
    if (takes) {
      const { captureRepoState } = await import("../workspace/mod.ts");
      captured = await captureRepoState({
        cwd: ctx.cwd,
        env: ctx.env,
        thin: takes.repository,
        maxBytes: Math.min(takes.maxBytes, MAX_REPO_STATE_BYTES),
        signal: options.signal,
      });
      // Where the agent's changes.patch applies.
      if (captured) kindMeta.repository = captured.top;
    }
    // A streaming agent's task goes to a worker at once (its stream is the worker's).
    runnable = pinned?.card.capabilities?.streaming !== true;
    // The worker may reach the agent's endpoint and the configured registry, nothing else.
    const net = workerNet(s.deps, iface.url);
    perms = (fence) => remotePermissions(ctx, net, fence);
  } else {
    if (!agentId) {
      throw new ObservalError(
        "INVALID_ARGUMENT",
        `Could not tell which registry agent ${identifier} names`,
        { remediation: "Pass the identifier from `observal delegate find` (urn:air:...)" },
      );
    }
    const supported = entry["obs:supportedHarnesses"] ?? [];
    const { chooseHarness, harnessProbe } = await import("../runner/runnable/mod.ts");
    const choice = chooseHarness({
      supported,
      preferred: caller.harness,
      required: options.harness,
      probe: harnessProbe(ctx.env, ctx.cwd),
      agentName: name,
    });
    const { chooseTaskSandbox } = await import("../runner/sandbox/mod.ts");
    const sandbox = await chooseTaskSandbox(ctx, options.sandbox, choice.key);
    kindMeta = {
      kind: "agent",
      agentId,
      harness: choice.key,
      nativeRef: entry["obs:nativeRef"],
      sandbox: sandbox.kind,
      sandboxMounts: sandbox.mounts,
      notes: sandbox.notice ? [sandbox.notice] : undefined,
    };
    // A Pi run's session file is written where Pi keeps its sessions, before Pi starts.
    const sessionDir = choice.key === "pi"
      ? (await import("../harness/facts/mod.ts")).piSessionRoot(ctx.env)
      : undefined;
    let resumeDir: string | undefined;
    if (options.resume) {
      const session = await resumeOrNot(options.resume, choice.key, ctx.env);
      if ("sessionId" in session) {
        kindMeta.resumeSessionId = session.sessionId;
        // The worker looks for the session again before the harness starts.
        resumeDir = (await import("../harness/mod.ts")).sessionRoot(choice.key, ctx.env);
      } else {
        kindMeta.newSessionReason = session.reason;
        told = options.resume.fresh;
      }
    }
    const net = workerNet(s.deps);
    perms = (fence) =>
      localPermissions(ctx, { ...choice, sandbox, sessionDir, resumeDir }, net, fence);
    // A child run here must be able to outlive this process: not on Windows.
    runnable = hostPlatform() !== "win32";
  }
  // Whether this process runs the task itself (`options.runHere`).
  let runHere = false;
  if (runnable && options.runHere && (options.waitSeconds ?? 0) > 0) {
    const elapsedMs = ctx.clock.now().getTime() - since.getTime();
    reserveMs = handoverReserveMs(elapsedMs);
    // A run here needs some of the wait left once the handover is kept back.
    runHere = waitBudgetMs(options.waitSeconds ?? 0) - elapsedMs - reserveMs > 0;
  }
  // Interrupted while looking the agent up: nothing exists yet, so nothing is left behind.
  options.signal?.throwIfAborted();
  try {
    checkSpace(s.deps);
  } catch {
    // Copies that settled tasks left behind may be what fills the disk. Otherwise the
    // sweep waits for the wait that follows every start, once the worker is starting.
    s.self.sweep();
    checkSpace(s.deps);
  }

  const now = ctx.clock.now();
  const id = crypto.randomUUID();
  const contextId = crypto.randomUUID();
  const meta: Record<string, unknown> = {
    target: identifier,
    targetName: name,
    version: entry.version,
    digest: entry["obs:artifactDigest"],
    parentHarness: caller.harness,
    parentAgentId: caller.agentId,
    parentTaskId: caller.parentTaskId,
    depth: caller.depth,
    maxDepth: caller.maxDepth ?? DEFAULT_MAX_DEPTH,
    chain: caller.chain,
    cwd: ctx.cwd,
    pinnedVersion: entry !== found || undefined,
    createdAt: isoSeconds(now),
    timeoutSeconds: options.timeoutSeconds ?? (isA2a ? undefined : LOCAL_TIMEOUT_SECONDS),
    ...kindMeta,
  };
  for (const k of Object.keys(meta)) if (meta[k] === undefined) delete meta[k];
  const task: Task = {
    id,
    contextId,
    status: { state: "TASK_STATE_SUBMITTED", timestamp: isoSeconds(now) },
    history: [userMessage(told, id, contextId)],
    artifacts: [],
    metadata: { observal: meta as Task["metadata"]["observal"] },
  };
  const lock = createTask(s.deps, task, runHere);
  if (kindMeta.resumeSessionId && options.resume) {
    // Kept for the worker: the session may go before the run starts.
    saveNewSessionBrief(store.taskDir(id), options.resume.fresh);
  }
  if (captured) {
    try {
      saveRepoState(store.taskDir(id), captured.state);
    } catch (err) {
      lock?.release();
      settle(
        store,
        id,
        "TASK_STATE_FAILED",
        `The repository state could not be saved: ${err}`,
        ctx,
      );
      throw err;
    }
  }
  const waiting = { since, onTick: options.onTick, signal: options.signal };
  if (lock) {
    return await runTaskHere(s, task, { entry, lock, perms, caller }, {
      ...waiting,
      seconds: options.waitSeconds ?? 0,
      reserveMs,
      quit: options.quit,
    });
  }
  try {
    launchWorker(s, task, perms);
  } finally {
    // Written once the worker is starting, so the two overlap; a failed launch is
    // recorded too.
    await recordStart(ctx.home, task, caller);
  }
  try {
    return await s.self.wait(id, options.waitSeconds ?? 0, waiting);
  } catch (err) {
    throw startedAnyway(err, id);
  }
}

/** The earlier session the run resumes, or why it starts a new one. */
async function resumeOrNot(
  resume: NonNullable<StartOptions["resume"]>,
  harness: HarnessKey,
  env: Env,
): Promise<{ sessionId: string } | { reason: string }> {
  const { getHarness, normalizeHarness, resumableSession } = await import("../harness/mod.ts");
  const name = getHarness(harness).display_name;
  let before: HarnessKey | undefined;
  try {
    before = normalizeHarness(resume.harness);
  } catch {
    before = undefined;
  }
  if (!before) return { reason: "the earlier run's harness is not known" };
  if (before !== harness) {
    return { reason: `this run uses ${name}, the earlier one ${getHarness(before).display_name}` };
  }
  if (!resume.sessionId) return { reason: `${name} named no session in the earlier run` };
  return resumableSession(harness, resume.sessionId, env);
}
