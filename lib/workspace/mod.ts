/**
 * The throwaway git copy a registry Agent works in, and the patch that comes back from it.
 *
 * A delegation worker calls, in order: {@linkcode createWorkspace} from the caller's
 * folder; writes the agent's harness config into `ws.path`; {@linkcode markBaseline} with
 * the paths it wrote; runs the harness with `cwd = ws.path`; {@linkcode workspaceChanges}
 * for the patch; and {@linkcode removeWorkspace} always, failure or not. Nothing in the
 * caller's repository is written at any step.
 * @module
 */
export {
  createWorkspace,
  type CreateWorkspaceOptions,
  MAX_UNTRACKED_BYTES,
} from "./create_workspace.ts";
export { markBaseline, type MarkBaselineOptions } from "./mark_baseline.ts";
export {
  MAX_PATCH_BYTES,
  workspaceChanges,
  type WorkspaceChangesOptions,
} from "./workspace_changes.ts";
export { removeWorkspace } from "./remove_workspace.ts";
export {
  listWorkspaceRoots,
  WORKSPACE_PREFIX,
  workspaceRootOf,
  workspacesDir,
} from "./workspace_roots.ts";
export type * from "./types.ts";
export {
  type CapturedState,
  type CaptureOptions,
  captureRepoState,
  type RepoState,
  type RestoreOptions,
  restoreRepoState,
} from "./repo_state.ts";
export {
  type ApplyMode,
  applyPatch,
  type ApplyPatchOptions,
  checkPatch,
  headCommit,
  missingBlobs,
  type PatchApplied,
  type PatchCheck,
  patchPaths,
  patchStat,
  type RefusedFile,
} from "./apply_patch.ts";
export {
  addBaseObjects,
  BASE_PACK_FILE,
  baseObjects,
  MAX_BASE_PACK_BYTES,
  preimageIds,
} from "./base_objects.ts";
