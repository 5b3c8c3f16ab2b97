/**
 * The delegation service: find agents, start a task after every guard holds, follow it,
 * answer it and cancel it. The CLI and the MCP server are thin layers over this. The
 * worker's side (runs, the worker process and its fence, the sandbox, reaping) is
 * lib/runner.
 *
 * The class is the public surface. Its verbs' work is in plain functions beside it, which
 * take the service's one state object (`_state.ts`) or just what they need: finding
 * (`_find.ts`), starting (`_start.ts`, `_launch.ts`, `_run_here.ts`), following
 * (`_wait.ts`, `_liveness.ts`), replying (`_reply.ts`) and cancelling (`_cancel.ts`).
 * @module
 */
import type { Part, Task } from "../a2a/tasks/mod.ts";
import { serverTarget } from "../core/mod.ts";
import { type Caller, resolveCaller } from "./caller.ts";
import type { DelegationDeps, ReplyOptions, StartOptions, WaitOptions } from "./_options.ts";
import type { ServiceState } from "./_state.ts";
import { findAgents, type FoundAgent } from "./_find.ts";
import { startTask } from "./_start.ts";
import { cancelTask } from "./_cancel.ts";
import { replyTo } from "./_reply.ts";
import { waitTask } from "./_wait.ts";
import { drain, getTask, sweep, workerGone } from "./_liveness.ts";
import { workspaceRootOf } from "../workspace/roots/mod.ts";

export type { FoundAgent } from "./_find.ts";
export { REPLY_REFUSED_EXIT, ReplyRefusedError } from "./_reply.ts";
export { WORKER_START_MS } from "./_liveness.ts";
export { MAX_WAIT_SECONDS } from "./_wait.ts";
export { MIN_FREE_BYTES } from "./_launch.ts";
export type { DelegationDeps, Quit, ReplyOptions, StartOptions, WaitOptions } from "./_options.ts";

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
   * Approved, delegable agents that match a task description, leaving out those `caller`
   * may not delegate to (itself, and the agents above it). When `signal` aborts, the
   * search ends at once and this throws the signal's reason.
   */
  find(
    text: string,
    limit = 5,
    { signal, caller }: { signal?: AbortSignal; caller?: Caller } = {},
  ): Promise<FoundAgent[]> {
    return findAgents(this.#s.deps, text, limit, signal, caller);
  }

  /** Guards, then a new task and its worker. Nothing runs when a guard refuses. */
  start(ref: string, message: string, options: StartOptions): Promise<Task> {
    return startTask(this.#s, ref, message, options);
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
