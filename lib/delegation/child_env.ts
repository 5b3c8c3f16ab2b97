/**
 * The environment a delegated child runs with: the caller's, with its place in the
 * delegation chain, so the child's own delegations are guarded, and with who it is, for
 * attribution.
 * @module
 */
import type { Task } from "../a2a/tasks/mod.ts";
import type { Env } from "../core/mod.ts";
import { DEFAULT_MAX_DEPTH } from "./caller.ts";

/** Variables that describe the caller and must not leak into the child as its own. */
const CALLER_ONLY = ["OBSERVAL_AGENT_ID", "OBSERVAL_AGENT_VERSION", "OBSERVAL_SESSION_ID"];

/**
 * The child's environment for a local task.
 *
 * @param env the worker's environment (the caller's, as the CLI or MCP server had it)
 * @param task the task being run (kind "agent", with harness and agentId set)
 */
export function childEnv(env: Env, task: Task): Record<string, string> {
  const meta = task.metadata.observal;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && !CALLER_ONLY.includes(k)) out[k] = v;
  }
  // The target and the agent id both go on the chain, so a loop is caught either way.
  const chain = [...meta.chain, meta.target, meta.agentId ?? ""].filter(Boolean);
  Object.assign(out, {
    OBSERVAL_DELEGATION_DEPTH: String(meta.depth + 1),
    OBSERVAL_DELEGATION_MAX_DEPTH: String(meta.maxDepth ?? DEFAULT_MAX_DEPTH),
    OBSERVAL_DELEGATION_CHAIN: chain.join(","),
    OBSERVAL_DELEGATION_TASK_ID: task.id,
  });
  if (meta.harness) out.OBSERVAL_HARNESS = meta.harness;
  if (meta.agentId) out.OBSERVAL_AGENT_ID = meta.agentId;
  if (meta.version) out.OBSERVAL_AGENT_VERSION = meta.version;
  return out;
}
