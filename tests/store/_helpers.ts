/** Shared pieces for the store tests: a temp home, a settable clock and task builders. */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Task, TaskState } from "../../lib/a2a/mod.ts";
import type { Clock } from "../../lib/core/mod.ts";
import { openTaskStore, type TaskStore } from "../../lib/store/mod.ts";

/** A clock that stays where the test puts it. */
export interface ManualClock extends Clock {
  set(date: Date): void;
}

export function manualClock(start = new Date("2026-09-27T10:00:00Z")): ManualClock {
  let now = start;
  return {
    now: () => now,
    sleep: () => Promise.resolve(),
    set: (date) => void (now = date),
  };
}

/** A temp home with an open store; disposing closes the store and removes the folder. */
export interface Fixture extends Disposable {
  home: string;
  store: TaskStore;
  clock: ManualClock;
}

export function openFixture(): Fixture {
  const home = mkdtempSync(join(tmpdir(), "observal-store-"));
  const clock = manualClock();
  const store = openTaskStore({ home, clock });
  return {
    home,
    store,
    clock,
    [Symbol.dispose]() {
      store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A valid task; `meta` is merged into `metadata.observal`. */
export function makeTask(
  options: { id?: string; state?: TaskState; meta?: Record<string, unknown> } = {},
): Task {
  const id = options.id ?? crypto.randomUUID();
  return {
    id,
    contextId: crypto.randomUUID(),
    status: { state: options.state ?? "TASK_STATE_SUBMITTED", timestamp: "2026-09-27T10:00:00Z" },
    history: [{ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "brief" }] }],
    metadata: {
      observal: {
        target: "urn:air:registry.example:agent:reviewer",
        kind: "agent",
        depth: 0,
        chain: [],
        cwd: "/projects/app",
        createdAt: "2026-09-27T10:00:00Z",
        ...options.meta,
      },
    },
  };
}

/** `task` moved to `state`. */
export function withState(task: Task, state: TaskState): Task {
  return { ...task, status: { state, timestamp: "2026-09-27T10:05:00Z" } };
}

/** Every path under `dir`, sorted, for before/after comparisons. */
export function listTree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}
