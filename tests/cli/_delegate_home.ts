/**
 * A temp OBSERVAL_HOME with tasks written straight into a real task store, for the delegate
 * commands that read tasks (list, status, logs, cancel) without running any.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Task, TaskState } from "../../lib/a2a/mod.ts";
import { systemClock } from "../../lib/core/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { cli, type CliResult } from "../support/cli.ts";

export interface TaskHome extends Disposable {
  home: string;
  env: Record<string, string>;
  /** Stores a task; `id` may be given to control its prefix. */
  add(options?: {
    id?: string;
    state?: TaskState;
    name?: string;
    kind?: "agent" | "a2a";
    text?: string;
    meta?: Record<string, unknown>;
  }): Task;
  /** The task's folder, created. */
  dir(id: string): string;
  /** Writes a file into the task's folder. */
  write(id: string, file: string, text: string): string;
  /** Runs `observal ...` in process with this home. */
  observal(args: string[], options?: { tty?: boolean }): Promise<CliResult>;
}

/** A fresh task id that starts with `prefix`. */
export function idStarting(prefix: string): string {
  return prefix + crypto.randomUUID().slice(prefix.length);
}

export function taskHome(): TaskHome {
  const home = mkdtempSync(join(tmpdir(), "observal-cli-tasks-"));
  const env = { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" };
  let n = 0;
  return {
    home,
    env,
    add(o = {}) {
      const id = o.id ?? crypto.randomUUID();
      // One second apart, so "newest first" is well defined.
      const at = new Date(Date.UTC(2026, 8, 27, 10, 0, n++)).toISOString().replace(".000", "");
      const task: Task = {
        id,
        contextId: crypto.randomUUID(),
        status: {
          state: o.state ?? "TASK_STATE_COMPLETED",
          timestamp: at,
          ...(o.text
            ? {
              message: {
                messageId: crypto.randomUUID(),
                role: "ROLE_AGENT",
                parts: [{ text: o.text }],
              },
            }
            : {}),
        },
        history: [],
        artifacts: [],
        metadata: {
          observal: {
            target: "urn:air:test:a2a:agent",
            targetName: o.name ?? "Test Agent",
            kind: o.kind ?? "a2a",
            depth: 0,
            chain: [],
            cwd: home,
            createdAt: at,
            ...o.meta,
          },
        },
      };
      using store = openTaskStore({ home, clock: { ...systemClock, now: () => new Date(at) } });
      return store.insert(task);
    },
    dir(id) {
      const dir = join(home, "delegations", id);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    write(id, file, text) {
      const path = join(this.dir(id), file);
      writeFileSync(path, text);
      return path;
    },
    observal: (args, options = {}) => cli(args, { env, cwd: home, tty: options.tty }),
    [Symbol.dispose]: () => rmSync(home, { recursive: true, force: true }),
  };
}
