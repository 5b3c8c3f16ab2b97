/**
 * The worker side of a delegation: how a worker process is started and told apart from a
 * dead one, the environment and sandbox its harness child runs in, reaping what a dead
 * worker left, and the task bookkeeping runs share. The caller's side (lib/delegation)
 * starts, follows and answers tasks on top of it.
 *
 * This door loads no runner: the local run (harness renderers, workspaces) loads through
 * `worker/mod.ts` when a worker reads its task, and the remote run (the A2A client)
 * through `remote/mod.ts`. Which harnesses can run here is behind `runnable/mod.ts`, and
 * the sandbox behind `sandbox/mod.ts`.
 * @module
 */
export { childEnv, passesToChild } from "./child_env.ts";
export { DEFAULT_MAX_DEPTH, LOCAL_TIMEOUT_SECONDS } from "./limits.ts";
export { ORPHAN_WORKSPACE_MS, type Reaped, reapTask, sweepWorkspaces } from "./reaper.ts";
export {
  agentMessage,
  markChanged,
  namingLog,
  readNewSessionBrief,
  saveNewSessionBrief,
  settle,
  userMessage,
} from "./task_ops.ts";
export * from "./worker_process.ts";
export { dropRepoState, loadRepoState, saveRepoState } from "./sent_repo_state.ts";
export { failedUnexpectedly, type WorkerDeps } from "./worker.ts";
export type { HarnessChoiceInput, HarnessOption } from "./harness_choice.ts";
export {
  localPermissions,
  type LocalSandbox,
  remotePermissions,
  type WorkerFence,
} from "./worker_permissions.ts";
