/**
 * The delegation service: find agents, start a task after every guard holds, follow it,
 * answer it and cancel it. The CLI and the MCP server are thin layers over this. The
 * worker's side (runs, the worker process and its fence, the sandbox, reaping) is
 * lib/runner.
 *
 * One module past 400 lines: one class whose verbs share the workers this process launched
 * and the tasks it runs itself; splitting the verbs apart means passing that state around.
 * @module
 */
import { A2A_AGENT_CARD_MEDIA_TYPE } from "../a2a/cards/mod.ts";
import { type Part, type Task } from "../a2a/tasks/mod.ts";
import { isoSeconds, ObservalError, type SelfPermissions, serverTarget } from "../core/mod.ts";
import { type EntryDocument, pinnedEndpoint, type RegistryClient } from "../registry/mod.ts";
import { type Caller, DEFAULT_MAX_DEPTH, resolveCaller } from "./caller.ts";
import type { DelegationDeps, ReplyOptions, StartOptions, WaitOptions } from "./_options.ts";
import type { ServiceState } from "./_state.ts";
import {
  checkSpace,
  createTask,
  launchWorker,
  recordStart,
  startedAnyway,
  workerNet,
} from "./_launch.ts";
import { cancelTask } from "./_cancel.ts";
import { replyTo } from "./_reply.ts";
import { runTaskHere } from "./_run_here.ts";
import { handoverReserveMs, waitBudgetMs, waitTask } from "./_wait.ts";
import { drain, getTask, sweep, workerGone } from "./_liveness.ts";
import { agentIdOf } from "./_helpers.ts";
import { workspaceRootOf } from "../workspace/roots/mod.ts";
import { checkApproved, checkBreadth, checkCycle, checkDepth, checkMessage } from "./guards.ts";
import {
  type HarnessOption,
  LOCAL_TIMEOUT_SECONDS,
  localPermissions,
  remotePermissions,
  userMessage,
  type WorkerFence,
} from "../runner/mod.ts";

/** One agent `find` returns. */
export interface FoundAgent {
  identifier: string;
  name: string;
  kind: "agent" | "a2a";
  description?: string;
  score?: number;
  version?: string;
  harnesses?: string[];
  ref?: string;
  /** Whether it can take a task from here (a registry Agent needs a usable harness). */
  delegable: boolean;
  /** What is missing when it cannot. */
  unavailable?: string;
}

export { REPLY_REFUSED_EXIT, ReplyRefusedError } from "./_reply.ts";
export { WORKER_START_MS } from "./_liveness.ts";
export { MAX_WAIT_SECONDS } from "./_wait.ts";
export { MIN_FREE_BYTES } from "./_launch.ts";
export type { DelegationDeps, ReplyOptions, StartOptions, WaitOptions } from "./_options.ts";

/** The service. Stateless apart from its dependencies. */
export class DelegationService {
  readonly #s: ServiceState;

  constructor(deps: DelegationDeps) {
    this.#s = {
      deps,
      launched: new Map(),
      runningHere: new Set(),
      telling: new Set(),
      self: this,
    };
  }

  /**
   * Who is delegating: the environment's delegation variables, completed (and capped) from
   * the parent task, which is found by OBSERVAL_DELEGATION_TASK_ID or, when a harness
   * stripped the environment, by the workspace that contains the current directory.
   */
  caller(overrides: { harness?: string; agentId?: string } = {}): Caller {
    const { ctx, store } = this.#s.deps;
    return resolveCaller(ctx.env, overrides, {
      task: (id) => store.get(id),
      workspace: () => {
        const root = workspaceRootOf(ctx.cwd, ctx.home);
        return root ? { root, task: store.findByWorkspace(root) } : undefined;
      },
    });
  }

  /** Which registry calls go to, and whether they are signed in (the embedded one always is). */
  registryAccess(): { kind: "embedded" } | { kind: "remote"; url: string; signedIn: boolean } {
    const target = serverTarget(this.#s.deps.ctx);
    return target.kind === "embedded"
      ? target
      : { kind: "remote", url: target.url, signedIn: target.apiKey !== undefined };
  }

  /**
   * Approved, delegable agents that match a task description. When `signal` aborts, the
   * search ends at once and this throws the signal's reason.
   */
  async find(
    text: string,
    limit = 5,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<FoundAgent[]> {
    if (!text.trim()) {
      throw new ObservalError("INVALID_ARGUMENT", "Describe the task to find an agent for it");
    }
    const res = await this.#registry(signal).search({
      query: {
        text: text.slice(0, 2000),
        filter: {
          type: ["application/vnd.observal.agent+json", A2A_AGENT_CARD_MEDIA_TYPE],
          "obs:lifecycle": ["approved"],
        },
      },
      federation: "none",
      pageSize: Math.min(100, Math.max(3 * limit, 10)),
    });
    // Harness facts load only for commands that need them.
    const { harnessOptions, runnableHere } = await import("../runner/runnable/mod.ts");
    signal?.throwIfAborted();
    let options: HarnessOption[] | undefined;
    return res.results.filter((r) => r["obs:delegable"] === true).slice(0, limit).map((r) => {
      const kind = r.type === A2A_AGENT_CARD_MEDIA_TYPE ? "a2a" as const : "agent" as const;
      // A registry Agent runs here only if some harness it supports is installed here.
      const here = kind === "agent"
        ? runnableHere(
          r["obs:supportedHarnesses"] ?? [],
          options ??= harnessOptions(this.#s.deps.ctx.env, this.#s.deps.ctx.cwd),
        )
        : { runnable: true as const };
      return {
        identifier: r.identifier,
        name: r.displayName,
        kind,
        description: r.description,
        score: r.score,
        version: r.version,
        harnesses: r["obs:supportedHarnesses"],
        ref: r["obs:nativeRef"],
        delegable: here.runnable,
        unavailable: here.runnable ? undefined : here.missing,
      };
    });
  }

  /** The registry client, its calls ended at once when `signal` aborts. */
  #registry(signal?: AbortSignal): RegistryClient {
    const registry = this.#s.deps.registry();
    return signal ? registry.withSignal(signal) : registry;
  }

  /** Resolves a reference to the registry's current entry document. */
  async #resolve(ref: string, signal?: AbortSignal): Promise<EntryDocument> {
    const registry = this.#registry(signal);
    try {
      // An identifier, an Agent's namespace/name or UUID, or a unique prefix of either.
      return await registry.resolveEntry(ref);
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof ObservalError && err.code === "NOT_FOUND") {
        throw new ObservalError("NOT_FOUND", `No agent "${ref}" in the registry`, {
          remediation: "Find one with `observal delegate find <what you need>`",
          resource: ref,
        });
      }
      throw err;
    }
  }

  /** Guards, then a new task and its worker. Nothing runs when a guard refuses. */
  async start(ref: string, message: string, options: StartOptions): Promise<Task> {
    const { ctx, store } = this.#s.deps;
    const since = options.since ?? ctx.clock.now();
    const caller = options.caller;
    checkMessage(message);
    checkDepth(caller);
    if (caller.parentTaskId) checkBreadth(store.countChildren(caller.parentTaskId));
    const entry = await this.#resolve(ref, options.signal);
    checkApproved(entry, ref);
    const identifier = entry.identifier;
    const name = entry.displayName ?? ref;
    const isA2a = entry.type === A2A_AGENT_CARD_MEDIA_TYPE;
    const agentId = isA2a ? undefined : agentIdOf(identifier);
    checkCycle(caller, { identifier, agentId, name });
    this.sweep();

    let kindMeta: Record<string, unknown>;
    // Whether this process may run the remote task itself (`options.runHere`).
    let runHere = false;
    let reserveMs = 0;
    // What the worker may touch, once its task folder is known.
    let perms: (fence: WorkerFence) => SelfPermissions;
    if (isA2a) {
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
      if (options.runHere && (options.waitSeconds ?? 0) > 0) {
        const elapsedMs = ctx.clock.now().getTime() - since.getTime();
        reserveMs = handoverReserveMs(elapsedMs);
        // A run here needs some of the wait left once the handover is kept back.
        runHere = pinned?.card.capabilities?.streaming !== true &&
          waitBudgetMs(options.waitSeconds ?? 0) - elapsedMs - reserveMs > 0;
      }
      // The worker may reach the agent's endpoint and the configured registry, nothing else.
      const net = workerNet(this.#s.deps, iface.url);
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
      const { chooseHarness, harnessOptions } = await import("../runner/runnable/mod.ts");
      const choice = chooseHarness({
        supported,
        preferred: caller.harness,
        required: options.harness,
        options: harnessOptions(ctx.env, ctx.cwd),
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
      const net = workerNet(this.#s.deps);
      perms = (fence) => localPermissions(ctx, { ...choice, sandbox, sessionDir }, net, fence);
    }
    // Interrupted while looking the agent up: nothing exists yet, so nothing is left behind.
    options.signal?.throwIfAborted();
    checkSpace(this.#s.deps);

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
      createdAt: isoSeconds(now),
      timeoutSeconds: options.timeoutSeconds ?? (isA2a ? undefined : LOCAL_TIMEOUT_SECONDS),
      ...kindMeta,
    };
    for (const k of Object.keys(meta)) if (meta[k] === undefined) delete meta[k];
    const task: Task = {
      id,
      contextId,
      status: { state: "TASK_STATE_SUBMITTED", timestamp: isoSeconds(now) },
      history: [userMessage(message, id, contextId)],
      artifacts: [],
      metadata: { observal: meta as Task["metadata"]["observal"] },
    };
    const lock = createTask(this.#s.deps, task, runHere);
    const waiting = { since, onTick: options.onTick, signal: options.signal };
    if (lock) {
      return await runTaskHere(this.#s, task, { entry, lock, perms, caller }, {
        ...waiting,
        seconds: options.waitSeconds ?? 0,
        reserveMs,
        quit: options.quit,
      });
    }
    try {
      launchWorker(this.#s, task, perms);
    } finally {
      // Written once the worker is starting, so the two overlap; a failed launch is
      // recorded too.
      await recordStart(ctx.home, task, caller);
    }
    try {
      return await this.wait(id, options.waitSeconds ?? 0, waiting);
    } catch (err) {
      throw startedAnyway(err, id);
    }
  }

  /**
   * The task as stored, after settling it if its worker died or never started. Like every
   * method that takes a task id, it takes the id's first characters too, when they start
   * only one task ({@linkcode TaskStore.resolveId}).
   */
  get(id: string): Task {
    return getTask(this.#s, id);
  }

  /**
   * Waits for the cancels this service sent to remote agents for tasks whose workers died
   * (each bounded); a command calls it before it exits. Never throws.
   */
  async drain(): Promise<void> {
    await drain(this.#s);
  }

  /**
   * Why a task that is not final has no worker any more (it died, or never started within
   * the grace period), or undefined while its worker lives, or for a final task. Changes
   * nothing; {@linkcode DelegationService.get} settles such a task.
   */
  workerGone(task: Task): string | undefined {
    return workerGone(this.#s, task);
  }

  /**
   * Removes workspaces of settled tasks and stops children of dead workers that are
   * provably ours; runs on every start and status. Never throws.
   */
  sweep(): void {
    sweep(this.#s);
  }

  /**
   * Follows a task until it is final, the wait ends or `options.signal` aborts; returns it
   * either way.
   */
  wait(id: string, seconds: number, options: WaitOptions = {}): Promise<Task> {
    return waitTask(this.#s, id, seconds, options);
  }

  /** Newest tasks first. */
  list(limit = 20): { items: Task[]; total: number } {
    return this.#s.deps.store.list({ limit });
  }

  /**
   * Answers a remote task that waits for input and resumes it with a new worker. The
   * answer is text, or A2A parts (text and data). Of concurrent replies to one question
   * exactly one is taken; the others get a {@linkcode ReplyRefusedError}, as does a reply
   * that a cancel beat. A task that was not waiting for input when the caller began gets a
   * FAILED_PRECONDITION error.
   */
  reply(
    id: string,
    answer: string | readonly Part[],
    options: ReplyOptions = {},
  ): Promise<Task> {
    return replyTo(this.#s, id, answer, options);
  }

  /**
   * Cancels a task. A running worker is told through the store and tells the remote agent.
   * A remote task waiting for input has no worker: the request claims the question (replies
   * are refused from then on), approval is checked again and the agent is told here.
   * A running task is waited on for up to 15 s (`options` follow that wait, as in
   * {@linkcode DelegationService.wait}); a settled task is returned as it is.
   */
  cancel(id: string, options: WaitOptions = {}): Promise<Task> {
    return cancelTask(this.#s, id, options);
  }
}
