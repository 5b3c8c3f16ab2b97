/**
 * What the delegation service's verbs share, handed to the plain functions that do their
 * work: the dependencies, the workers and runs of this process, and the service itself,
 * whose public verbs are called through it so that a subclass's overrides still apply.
 * @module
 */
import type { Task } from "../a2a/tasks/mod.ts";
import type { DelegationDeps, WaitOptions } from "./_options.ts";

/** The public verbs of the service that its own work calls. */
export interface ServiceVerbs {
  get(id: string): Task;
  wait(id: string, seconds: number, options?: WaitOptions): Promise<Task>;
  workerGone(task: Task): string | undefined;
  sweep(): void;
}

/** One service's state, made by its constructor; nothing of it is module-wide. */
export interface ServiceState {
  readonly deps: DelegationDeps;
  /** Workers this service started, in case the store could not record them. */
  readonly launched: Map<string, number>;
  /** Tasks this process runs itself, holding their runner locks. */
  readonly runningHere: Set<string>;
  /** Cancels sent to remote agents for tasks whose workers died; `drain` waits for them. */
  readonly telling: Set<Promise<void>>;
  /** The service, through its public verbs. */
  readonly self: ServiceVerbs;
}
