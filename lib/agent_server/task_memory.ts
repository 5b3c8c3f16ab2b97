/**
 * The A2A tasks a served Agent remembers, in memory and bounded: once more than `max` are
 * kept, the oldest that have ended are forgotten (a task still running never is). The
 * SDK's in-memory store, which it wraps for loading and listing, has no way to forget, so
 * forgetting rebuilds it from the tasks kept.
 * @module
 */
import type { Task } from "@a2a-js/sdk";
import { InMemoryTaskStore, type ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";

/** Tasks kept by default. */
export const MAX_KEPT_TASKS = 1000;

/** TaskState numbers that are final (completed, failed, canceled, rejected). */
const FINAL = new Set([3, 4, 5, 7]);

/** A TaskStore that keeps at most `max` ended tasks' worth of memory. */
export class TaskMemory implements TaskStore {
  #inner = new InMemoryTaskStore();
  /** Every task kept, oldest first, with the context it was last saved under. */
  readonly #kept = new Map<string, { task: Task; context: ServerCallContext }>();

  /**
   * @param max tasks kept
   * @param onForget told of each task forgotten, so that what belongs to it goes too
   */
  constructor(
    readonly max = MAX_KEPT_TASKS,
    readonly onForget?: (taskId: string, context: ServerCallContext) => void,
  ) {}

  /** How many tasks are kept now. */
  get size(): number {
    return this.#kept.size;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    this.#kept.delete(task.id);
    this.#kept.set(task.id, { task, context });
    await this.#inner.save(task, context);
    if (this.#kept.size > this.max) await this.#forget();
  }

  /** Whether `taskId` is kept and has not ended (whoever asked for it). */
  isRunning(taskId: string): boolean {
    const task = this.#kept.get(taskId)?.task;
    return task !== undefined && !FINAL.has(task.status?.state ?? 0);
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.#inner.load(taskId, context);
  }

  list(...args: Parameters<TaskStore["list"]>): ReturnType<TaskStore["list"]> {
    return this.#inner.list(...args);
  }

  /** Forgets the oldest ended tasks down to three quarters of `max`. */
  async #forget(): Promise<void> {
    let excess = this.#kept.size - Math.floor(this.max * 3 / 4);
    for (const [id, { task, context }] of this.#kept) {
      if (excess <= 0) break;
      if (!FINAL.has(task.status?.state ?? 0)) continue;
      this.#kept.delete(id);
      this.onForget?.(id, context);
      excess--;
    }
    const inner = new InMemoryTaskStore();
    for (const { task, context } of this.#kept.values()) await inner.save(task, context);
    this.#inner = inner;
  }
}
