/**
 * What the parts of a local run share: their dependencies, how a run ends, and the task
 * edits it makes on the way (progress, metadata).
 * @module
 */
import type { Artifact, Task } from "../a2a/mod.ts";
import { type Context, errorMessage, isoSeconds, ObservalError } from "../core/mod.ts";
import type { RegistryClient } from "../registry/mod.ts";
import type { TaskStore } from "../store/mod.ts";
import { agentMessage, markChanged } from "./task_ops.ts";

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
export type Outcome =
  | { state: "TASK_STATE_COMPLETED"; text: string; artifacts: Artifact[] }
  | { state: "TASK_STATE_FAILED"; text: string; log?: string }
  | { state: "TASK_STATE_CANCELED" | "TASK_STATE_REJECTED"; text: string };

export function update(deps: LocalRunDeps, id: string, fn: (t: Task) => Task): Task {
  const { task, changed } = deps.store.update(id, fn);
  return changed ? markChanged(deps.store, task) : task;
}

export function working(deps: LocalRunDeps, id: string, text: string): Task {
  return update(deps, id, (t) => ({
    ...t,
    status: {
      state: "TASK_STATE_WORKING",
      timestamp: isoSeconds(deps.ctx.clock.now()),
      message: agentMessage(text, t.id, t.contextId),
    },
  }));
}

export function observal(deps: LocalRunDeps, id: string, patch: Record<string, unknown>): Task {
  return update(deps, id, (t) => {
    const meta: Record<string, unknown> = { ...t.metadata.observal, ...patch };
    for (const k of Object.keys(meta)) if (meta[k] === undefined) delete meta[k];
    return { ...t, metadata: { ...t.metadata, observal: meta as Task["metadata"]["observal"] } };
  });
}

export function errorText(err: unknown): string {
  if (err instanceof ObservalError) {
    return [err.message, err.remediation].filter(Boolean).join(". ");
  }
  return errorMessage(err);
}
