/**
 * Who is delegating: read once from the environment the caller runs in. A delegated child
 * gets these variables from its parent, so depth, breadth and cycles hold across levels.
 * @module
 */
import type { Env } from "../core/mod.ts";

/** Default and ceiling for OBSERVAL_DELEGATION_MAX_DEPTH. */
export const DEFAULT_MAX_DEPTH = 2;

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
}

function nonNegativeInt(raw: string | undefined, fallback: number): number {
  if (raw === undefined || !/^\d{1,6}$/.test(raw.trim())) return fallback;
  return Number(raw.trim());
}

/** Parses the OBSERVAL_DELEGATION_* variables; malformed values fall back to safe defaults. */
export function callerFromEnv(
  env: Env,
  overrides: { harness?: string; agentId?: string } = {},
): Caller {
  const chain = (env.OBSERVAL_DELEGATION_CHAIN ?? "").split(",").map((s) => s.trim()).filter(
    Boolean,
  );
  const parent = env.OBSERVAL_DELEGATION_TASK_ID?.trim();
  return {
    depth: nonNegativeInt(env.OBSERVAL_DELEGATION_DEPTH, 0),
    maxDepth: nonNegativeInt(env.OBSERVAL_DELEGATION_MAX_DEPTH, DEFAULT_MAX_DEPTH),
    parentTaskId: parent || undefined,
    chain,
    harness: overrides.harness ?? (env.OBSERVAL_HARNESS?.trim() || undefined),
    agentId: overrides.agentId ?? (env.OBSERVAL_AGENT_ID?.trim() || undefined),
    sessionHint: env.OBSERVAL_SESSION_ID || env.CLAUDE_SESSION_ID || env.KIRO_SESSION_ID ||
      undefined,
  };
}
