/**
 * The environment a delegated child runs with: the caller's, pointed at the child's copy
 * instead of the caller's repository, with its place in the delegation chain (so the
 * child's own delegations are guarded) and who it is (for attribution).
 * @module
 */
import type { Task } from "../a2a/tasks/mod.ts";
import type { Env } from "../core/mod.ts";
import { AGENTS_SOCKET_ENV } from "../workspace/roots/mod.ts";
import { DEFAULT_MAX_DEPTH } from "./limits.ts";

/** Variables that describe the caller and must not leak into the child as its own. */
const CALLER_ONLY = new Set([
  "OBSERVAL_AGENT_ID",
  "OBSERVAL_AGENT_VERSION",
  "OBSERVAL_SESSION_ID",
  AGENTS_SOCKET_ENV,
]);

/**
 * Variables that name the caller's folder. A child that trusts them works in the caller's
 * repository instead of its copy (OpenCode takes its project from `$PWD`; npm scripts
 * from `$INIT_CWD`).
 */
const CALLER_PLACES = new Set([
  "OLDPWD",
  "INIT_CWD",
  "PROJECT_CWD",
  "npm_config_local_prefix",
  "npm_package_json",
]);

/** Git variables that only say who is writing; every other `GIT_*` can redirect git. */
const GIT_IDENTITY = new Set([
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
]);

/**
 * Whether `name` may pass from the caller to the child. `GIT_DIR`, `GIT_WORK_TREE`,
 * `GIT_INDEX_FILE`, `GIT_CONFIG_*` and the rest would point the child's git at the
 * caller's repository, so only the identity variables pass.
 */
export function passesToChild(name: string): boolean {
  if (CALLER_ONLY.has(name) || CALLER_PLACES.has(name) || name === "PWD") return false;
  return !name.startsWith("GIT_") || GIT_IDENTITY.has(name);
}

/**
 * The child's environment for a local task.
 *
 * @param env the worker's environment (the caller's, as the CLI or MCP server had it)
 * @param task the task being run (kind "agent", with harness and agentId set)
 * @param cwd the folder the child starts in (its copy); `PWD` names it
 * @param agentsSocket the broker's socket, where the child's observal-agents server relays
 */
export function childEnv(
  env: Env,
  task: Task,
  cwd: string,
  agentsSocket?: string,
): Record<string, string> {
  const meta = task.metadata.observal;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && passesToChild(k)) out[k] = v;
  }
  // The target and the agent id both go on the chain, so a loop is caught either way.
  const chain = [...meta.chain, meta.target, meta.agentId ?? ""].filter(Boolean);
  Object.assign(out, {
    PWD: cwd,
    OBSERVAL_DELEGATION_DEPTH: String(meta.depth + 1),
    OBSERVAL_DELEGATION_MAX_DEPTH: String(meta.maxDepth ?? DEFAULT_MAX_DEPTH),
    OBSERVAL_DELEGATION_CHAIN: chain.join(","),
    OBSERVAL_DELEGATION_TASK_ID: task.id,
    // A resident runner is for a person's terminal: one an agent started would outlive its
    // task (it runs from `/`, where no reaper looks).
    OBSERVAL_RESIDENT: "off",
  });
  if (meta.harness) out.OBSERVAL_HARNESS = meta.harness;
  if (meta.agentId) out.OBSERVAL_AGENT_ID = meta.agentId;
  if (meta.version) out.OBSERVAL_AGENT_VERSION = meta.version;
  if (agentsSocket) out[AGENTS_SOCKET_ENV] = agentsSocket;
  return out;
}
