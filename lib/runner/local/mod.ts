/**
 * The local run's door: running a registry Agent in a copy of the caller's repository.
 * It loads the harness renderers and the workspace code, so the service imports it only
 * when it runs a local task itself.
 * @module
 */
export { type LocalRunDeps, runLocal } from "../local_run.ts";
