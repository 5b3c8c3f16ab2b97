/**
 * Delegation: guards, the service behind `observal delegate` and the MCP tools, and the
 * detached worker that runs each task.
 * @module
 */
export * from "./caller.ts";
export * from "./guards.ts";
export * from "./service.ts";
export { runWorker } from "./worker.ts";
export { detachedLauncher, type LaunchWorker, readPid, workerAlive } from "./worker_process.ts";
