/**
 * Delegation: guards, the service behind `observal delegate` and the MCP tools, how a
 * detached worker is started and told apart from a dead one, and reaping. Reconcile has
 * its own door, `reconcile.ts`: it prunes telemetry, which no other command here loads.
 *
 * This door loads no runner: the local run (harness renderers, workspaces) and the remote
 * run (the A2A client) load when a task needs them. The worker process itself enters
 * through its own door, `worker/mod.ts`. Choosing a harness loads the harness facts.
 * @module
 */
export * from "./caller.ts";
export * from "./guards.ts";
export * from "./service.ts";
// Harness choice is behind its own door, ./runnable/mod.ts: it loads the harness facts.
export type { HarnessChoiceInput, HarnessOption } from "./harness_choice.ts";
export { childEnv } from "./child_env.ts";
export { LOCAL_TIMEOUT_SECONDS } from "./limits.ts";
export { type Reaped, reapTask, sweepWorkspaces } from "./reaper.ts";
export { detachedLauncher, type LaunchWorker, readPid, workerAlive } from "./worker_process.ts";
