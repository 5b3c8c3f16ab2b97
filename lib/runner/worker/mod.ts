/**
 * Delegation, the worker's door: the hidden `observal delegate worker` process that owns
 * one task until it is final. It loads the runner a task needs (remote or local) once it
 * has read the task, and none of the service's machinery, so a worker starts its first
 * RPC soon after it starts. Everything else is behind the service's door, `../mod.ts`.
 *
 * @example
 * ```ts ignore
 * import { runWorker } from "./mod.ts";
 *
 * const code = await runWorker({ ctx, store, registry: () => client }, taskId);
 * ```
 * @module
 */
export { runWorker, type WorkerDeps } from "../worker.ts";
