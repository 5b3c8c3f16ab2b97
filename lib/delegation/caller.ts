/**
 * Who is delegating. A delegated child gets its place in the chain from its parent
 * through OBSERVAL_DELEGATION_* variables; when a harness starts our MCP server with a
 * filtered environment, the same facts come from the task whose workspace the server runs
 * in. Either way depth, breadth and cycles hold across levels, and a limit recorded by a
 * parent cannot be raised from below.
 * @module
 */
import type { Task } from "../a2a/tasks/mod.ts";
import type { Env } from "../core/mod.ts";

import { DEFAULT_MAX_DEPTH } from "../runner/mod.ts";

export { DEFAULT_MAX_DEPTH };
/** Largest depth or depth limit accepted from the environment. */
export const MAX_DEPTH_VALUE = 100;

/** The delegation context of the current process. */
export interface Caller {
  /** How deep the caller already is (0 at the top level). */
  depth: number;
  maxDepth: number;
  /** The caller's own task when it is itself a delegated agent. */
  parentTaskId?: string;
  /** Identifiers and agent ids above the caller. */
  chain: string[];
  /** The caller's harness, when an agent inside a harness delegates. */
  harness?: string;
  /** The caller's own registry agent id. */
  agentId?: string;
  /** A session id to correlate telemetry with. */
  sessionHint?: string;
  /**
   * Set when the delegation variables cannot be trusted (malformed values): every
   * delegation is then refused with this reason rather than guessed at.
   */
  invalid?: string;
}

/** Reads a small non-negative integer; undefined when unset, NaN when malformed. */
function depthValue(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const text = raw.trim();
  if (!/^\d{1,3}$/.test(text) || Number(text) > MAX_DEPTH_VALUE) return Number.NaN;
  return Number(text);
}

function splitChain(raw: string | undefined): string[] {
  return (raw ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

/** Where {@linkcode resolveCaller} may look beyond the environment. */
export interface CallerLookups {
  /**
   * The delegated workspace that contains the current directory, if any, with the task the
   * store records for it (undefined when the store knows none).
   */
  workspace?: () => { root: string; task?: Task } | undefined;
  /** A stored task by id (the parent named by OBSERVAL_DELEGATION_TASK_ID). */
  task?: (id: string) => Task | undefined;
}

/**
 * The caller as the environment describes it, completed from the store: the parent task
 * (named by OBSERVAL_DELEGATION_TASK_ID, or found by the workspace that contains the
 * current directory) supplies what a filtered environment lost, and its recorded depth
 * limit caps the one in the environment.
 *
 * @param env the process environment
 * @param overrides the harness and agent id given on the command line, if any
 * @param lookups how to find the parent task
 */
export function resolveCaller(
  env: Env,
  overrides: { harness?: string; agentId?: string } = {},
  lookups: CallerLookups = {},
): Caller {
  const envDepth = depthValue(env.OBSERVAL_DELEGATION_DEPTH);
  const envMax = depthValue(env.OBSERVAL_DELEGATION_MAX_DEPTH);
  const invalid = Number.isNaN(envDepth)
    ? `OBSERVAL_DELEGATION_DEPTH is "${env.OBSERVAL_DELEGATION_DEPTH}", not a whole number from 0 to ${MAX_DEPTH_VALUE}`
    : Number.isNaN(envMax)
    ? `OBSERVAL_DELEGATION_MAX_DEPTH is "${env.OBSERVAL_DELEGATION_MAX_DEPTH}", not a whole number from 0 to ${MAX_DEPTH_VALUE}`
    : undefined;
  const envParent = env.OBSERVAL_DELEGATION_TASK_ID?.trim() || undefined;
  // Inside a delegated workspace its task is the parent, whatever the environment says:
  // an agent could otherwise name another task, or invent one, to reset depth and chain.
  const ws = lookups.workspace?.();
  const parent = ws ? ws.task : envParent ? lookups.task?.(envParent) : undefined;
  const untrusted = ws && !ws.task
    ? `this directory is inside a delegated workspace (${ws.root}) that no stored task owns`
    : ws && envParent && envParent !== ws.task?.id
    ? `OBSERVAL_DELEGATION_TASK_ID is "${envParent}", but this directory is the workspace of task ${ws.task?.id}`
    : undefined;
  const meta = parent?.metadata.observal;
  const recordedMax = typeof meta?.maxDepth === "number" ? meta.maxDepth : undefined;
  const parentDepth = meta ? meta.depth + 1 : undefined;
  const fromEnvMax = envMax === undefined || Number.isNaN(envMax) ? DEFAULT_MAX_DEPTH : envMax;

  const chain = env.OBSERVAL_DELEGATION_CHAIN !== undefined
    ? splitChain(env.OBSERVAL_DELEGATION_CHAIN)
    : meta
    ? [...meta.chain, meta.target, meta.agentId ?? ""].filter(Boolean)
    : [];
  if (meta && env.OBSERVAL_DELEGATION_CHAIN !== undefined) {
    // Whatever the environment says, the recorded chain above the parent still counts.
    for (const id of [...meta.chain, meta.target, meta.agentId ?? ""]) {
      if (id && !chain.includes(id)) chain.push(id);
    }
  }
  return {
    depth: Math.max(
      envDepth === undefined || Number.isNaN(envDepth) ? 0 : envDepth,
      parentDepth ?? 0,
    ),
    maxDepth: recordedMax === undefined ? fromEnvMax : Math.min(fromEnvMax, recordedMax),
    parentTaskId: parent?.id ?? envParent,
    chain,
    harness: overrides.harness ?? (env.OBSERVAL_HARNESS?.trim() || meta?.harness || undefined),
    agentId: overrides.agentId ?? (env.OBSERVAL_AGENT_ID?.trim() || meta?.agentId || undefined),
    sessionHint: env.OBSERVAL_SESSION_ID || env.CLAUDE_SESSION_ID || env.KIRO_SESSION_ID ||
      undefined,
    invalid: invalid ?? untrusted,
  };
}
