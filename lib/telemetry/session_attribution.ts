/**
 * Which delegated agent a harness session belongs to. A delegated child's session is
 * attributed by its session id (recorded when the child started, or read from its
 * output), or by the workspace its cwd lies in; both work after the workspace is gone,
 * because the answer comes from the task store, never from files in the workspace.
 * @module
 */
import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { Task } from "../a2a/tasks/mod.ts";

/** A session id or parent session id as harnesses write them; nothing else is looked up. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Workspace roots are named so; see lib/workspace. */
const WORKSPACE_PREFIX = "observal-delegate-";

/** What attribution needs from the task store. */
export interface AttributionIndex {
  findByChildSession(sessionId: string): Task | undefined;
  findByWorkspace(workspaceRoot: string): Task | undefined;
}

/** The delegated agent a session belongs to. */
export interface Attribution {
  agentId: string;
  version?: string;
  /** The delegation task that ran it. */
  taskId: string;
  /** The registry identifier delegated to. */
  target: string;
  harness?: string;
  matchedBy: "session" | "parent-session" | "workspace";
}

function fromTask(task: Task, matchedBy: Attribution["matchedBy"]): Attribution | undefined {
  const meta = task.metadata.observal;
  if (!meta.agentId) return undefined;
  return {
    agentId: meta.agentId,
    version: meta.version,
    taskId: task.id,
    target: meta.target,
    harness: meta.harness,
    matchedBy,
  };
}

/** `<home>/delegations/ws/observal-delegate-…` that `cwd` lies in, without touching it. */
function workspaceCandidates(cwd: string, home: string): string[] {
  const parts = resolve(cwd).split(sep);
  const at = parts.findIndex((p) =>
    p.startsWith(WORKSPACE_PREFIX) && p.length > WORKSPACE_PREFIX.length
  );
  if (at < 0) return [];
  const root = parts.slice(0, at + 1).join(sep) || sep;
  const wsDir = join(home, "delegations", "ws");
  const candidates = new Set<string>();
  // Recorded roots are fully resolved; the folder above may still be there to resolve
  // even when the workspace itself is gone.
  for (const parent of [dirname(root), safeRealpath(dirname(root))]) {
    for (const expected of [resolve(wsDir), safeRealpath(wsDir)]) {
      if (parent && expected && parent === expected) candidates.add(join(parent, basename(root)));
    }
  }
  return [...candidates];
}

function safeRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Attributes a session: by its own id, then its parent session's id (a child's own
 * subagents), then by the delegated workspace its cwd lies in.
 *
 * @param index the task store (or anything that answers its two lookups)
 * @param options OBSERVAL_HOME, the session's cwd and ids
 * @returns the agent and version, or undefined when the session is not a delegated one
 */
export function attributeSession(
  index: AttributionIndex,
  options: { home: string; cwd?: string; sessionId?: string; parentSessionId?: string },
): Attribution | undefined {
  const ids: Array<[string | undefined, Attribution["matchedBy"]]> = [
    [options.sessionId, "session"],
    [options.parentSessionId, "parent-session"],
  ];
  for (const [id, how] of ids) {
    if (!id || !SESSION_ID.test(id)) continue;
    const task = index.findByChildSession(id);
    if (task && task.metadata.observal.childSessionId === id) {
      const found = fromTask(task, how);
      if (found) return found;
    }
  }
  if (!options.cwd) return undefined;
  for (const root of workspaceCandidates(options.cwd, options.home)) {
    const task = index.findByWorkspace(root);
    if (task && task.metadata.observal.workspaceRoot === root) {
      const found = fromTask(task, "workspace");
      if (found) return found;
    }
  }
  return undefined;
}
