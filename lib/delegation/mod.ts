/**
 * Delegation, the caller's side: guards, and the service behind `observal delegate` and the
 * MCP tools (find, start, get, wait, list, cancel, reply). The worker's side (runs, the
 * worker process, reaping, the child's environment and sandbox) is lib/runner; what a
 * caller of the service needs from it (the launcher, telling a live worker from a dead
 * one) is passed on here. Reconcile has its own door, `reconcile.ts`: it prunes telemetry,
 * which no other command here loads.
 *
 * This door loads no runner: the local run (harness renderers, workspaces) and the remote
 * run (the A2A client) load when a task needs them.
 * @module
 */
export * from "./caller.ts";
export * from "./guards.ts";
export * from "./service.ts";
export {
  childEnv,
  detachedLauncher,
  type HarnessChoiceInput,
  type HarnessOption,
  type LaunchWorker,
  LOCAL_TIMEOUT_SECONDS,
  localPermissions,
  readPid,
  type Reaped,
  reapTask,
  remotePermissions,
  sweepWorkspaces,
  workerAlive,
} from "../runner/mod.ts";
