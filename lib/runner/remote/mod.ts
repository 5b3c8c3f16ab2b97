/**
 * The remote run's door: calling a remote agent over A2A for a task, and cancelling or
 * abandoning it there. It loads the A2A client, so the service imports it only when it
 * runs a remote task itself or cancels one.
 * @module
 */
export { abandonRemote, cancelRemote } from "../remote_cancel.ts";
export {
  REMOTE_TIMEOUT_MS,
  type RemoteRunDeps,
  type RemoteRunOptions,
  runRemote,
} from "../remote_run.ts";
