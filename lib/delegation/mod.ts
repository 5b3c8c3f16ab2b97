/**
 * Delegation: guards, the service behind `observal delegate` and the MCP tools, and the
 * detached worker that runs each task.
 * @module
 */
export * from "./caller.ts";
export * from "./guards.ts";
export * from "./service.ts";
export * from "./harness_choice.ts";
export { childEnv } from "./child_env.ts";
export { LOCAL_TIMEOUT_SECONDS } from "./limits.ts";
export { runLocal } from "./local_run.ts";
export { type Reaped, reapTask, sweepWorkspaces } from "./reaper.ts";
export { runWorker } from "./worker.ts";
export { detachedLauncher, type LaunchWorker, readPid, workerAlive } from "./worker_process.ts";
export {
  reconcile,
  reconcileLines,
  type ReconcileOptions,
  type ReconcileReport,
} from "./reconcile.ts";
