/**
 * The A2A tasks a served Agent remembers, in memory and bounded: once more than `max` are
 * kept, the oldest that have ended are forgotten (a task still running never is), and a
 * task that ended more than `ttlMs` ago is forgotten whatever the count. The
 * SDK's in-memory store, which it wraps for loading and listing, has no way to forget, so
 * forgetting rebuilds it from the tasks kept.
 * @module
 */
import type { Task } from "@a2a-js/sdk";
import { InMemoryTaskStore, type ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";

/** Tasks kept by default. */
export const MAX_KEPT_TASKS = 1000;
/** How long an ended task is kept by default: a day. */
export const TASK_TTL_MS = 24 * 60 * 60 * 1000;

/** TaskState numbers that are final (completed, failed, canceled, rejected). */
const FINAL = new Set([3, 4, 5, 7]);
/** TaskState numbers a blocking send stops waiting at: the final ones and the interrupted. */
const SETTLED = new Set([...FINAL, 6, 8]);

/** A TaskStore that keeps at most `max` ended tasks' worth of memory. */
export class TaskMemory implements TaskStore {
  #inner = new InMemoryTaskStore();
  /**
   * Every task kept, oldest first, with the context it was last saved under and, once it
   * has ended, when.
   */
  readonly #kept = new Map<
    string,
    { task: Task; context: ServerCallContext; endedAt?: number }
  >();
  /** Tasks kept at most. */
  readonly max: number;
  /** How long an ended task is kept, in ms. */
  readonly ttlMs: number;
  readonly onForget?: (taskId: string, context: ServerCallContext) => void;
  readonly now: () => number;
  /** Who waits for each task to settle (see `settled`). */
  readonly #waiters = new Map<string, Set<() => void>>();

  /**
   * @param options `max` tasks kept; `ttlMs`, how long an ended task is kept; `onForget`,
   *   told of each task forgotten, so that what belongs to it goes too; `now`, the clock (ms)
   */
  constructor(options: {
    max?: number;
    ttlMs?: number;
    onForget?: (taskId: string, context: ServerCallContext) => void;
    now?: () => number;
  } = {}) {
    this.max = options.max ?? MAX_KEPT_TASKS;
    this.ttlMs = options.ttlMs ?? TASK_TTL_MS;
    this.onForget = options.onForget;
    this.now = options.now ?? Date.now;
  }

  /** How many tasks are kept now. */
  get size(): number {
    return this.#kept.size;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const ended = FINAL.has(task.status?.state ?? 0);
    const endedAt = ended ? this.#kept.get(task.id)?.endedAt ?? this.now() : undefined;
    this.#kept.delete(task.id);
    this.#kept.set(task.id, { task, context, endedAt });
    await this.#inner.save(task, context);
    if (SETTLED.has(task.status?.state ?? 0)) {
      for (const wake of this.#waiters.get(task.id) ?? []) wake();
    }
    if (this.#kept.size > this.max || this.#expired()) await this.#forget();
  }

  /**
   * Resolves once `taskId` is saved ended or interrupted (input or auth required), at once
   * if it is so now or is not kept, or when `signal` aborts, whichever comes first.
   */
  settled(taskId: string, signal: AbortSignal): Promise<void> {
    const task = this.#kept.get(taskId)?.task;
    if (!task || SETTLED.has(task.status?.state ?? 0) || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.#waiters.get(taskId) ?? new Set();
      this.#waiters.set(taskId, waiters);
      const wake = () => {
        waiters.delete(wake);
        if (waiters.size === 0) this.#waiters.delete(taskId);
        signal.removeEventListener("abort", wake);
        resolve();
      };
      waiters.add(wake);
      signal.addEventListener("abort", wake, { once: true });
    });
  }

  /**
   * Whether `taskId` is kept and has not ended; with `context`, only if it is that caller's
   * (the same user, or no user for both).
   */
  isRunning(taskId: string, context?: ServerCallContext): boolean {
    const kept = this.#kept.get(taskId);
    if (!kept || FINAL.has(kept.task.status?.state ?? 0)) return false;
    return !context || kept.context.user?.userName === context.user?.userName;
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    if (this.#expired()) await this.#forget();
    return await this.#inner.load(taskId, context);
  }

  async list(...args: Parameters<TaskStore["list"]>): ReturnType<TaskStore["list"]> {
    if (this.#expired()) await this.#forget();
    return await this.#inner.list(...args);
  }

  /** Whether any ended task is past its time. */
  #expired(): boolean {
    const cutoff = this.now() - this.ttlMs;
    for (const { endedAt } of this.#kept.values()) {
      if (endedAt !== undefined && endedAt < cutoff) return true;
    }
    return false;
  }

  /**
   * Forgets the ended tasks past their time, then the oldest ended ones down to three
   * quarters of `max`.
   */
  async #forget(): Promise<void> {
    const cutoff = this.now() - this.ttlMs;
    let excess = this.#kept.size - Math.floor(this.max * 3 / 4);
    for (const [id, { endedAt, context }] of this.#kept) {
      if (endedAt === undefined) continue;
      if (excess > 0 || endedAt < cutoff) {
        this.#kept.delete(id);
        this.onForget?.(id, context);
        excess--;
      }
    }
    const inner = new InMemoryTaskStore();
    for (const { task, context } of this.#kept.values()) await inner.save(task, context);
    this.#inner = inner;
  }
}
