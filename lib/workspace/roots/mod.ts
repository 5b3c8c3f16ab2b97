/**
 * Workspaces, the roots door: where workspaces live, which folder is one, removing one,
 * and where the agent working in one reaches the broker outside its sandbox (its socket). The
 * delegation service and its reaper use it to clean up after settled tasks, and the
 * agent's observal-agents relay to find its way out, without loading the code that makes
 * copies and diffs them.
 *
 * @example
 * ```ts ignore
 * import { listWorkspaceRoots, removeWorkspace } from "./mod.ts";
 *
 * for (const root of listWorkspaceRoots(home)) removeWorkspace(root, home);
 * ```
 * @module
 */
export { removeWorkspace } from "../remove_workspace.ts";
export {
  AGENTS_SOCKET,
  AGENTS_SOCKET_ENV,
  agentsSocketFolder,
  agentsSocketPath,
  madeAgentsSocketFolder,
  makeAgentsSocketFolder,
  removeAgentsSocketFolder,
} from "../agents_socket.ts";
export {
  listWorkspaceRoots,
  WORKSPACE_PREFIX,
  workspaceRootOf,
  workspacesDir,
} from "../workspace_roots.ts";
