/**
 * Deleting a workspace, and nothing that merely looks like one.
 * @module
 */
import { join, nodeFs, nodePath, resolve } from "../core/system/mod.ts";
import { ObservalError } from "../core/mod.ts";
import { exists, isRootName, workspaceRootOf, workspacesDir } from "./workspace_roots.ts";

/**
 * Deletes the workspace at `root` recursively (symlinks inside are removed, never
 * followed) and returns whether it is gone. A root that no longer exists counts as gone.
 *
 * @param root A path returned as `Workspace.root`.
 * @param home The observal home the workspace was created under.
 * @throws {ObservalError} `INVALID_ARGUMENT` when `root` is not itself a workspace root
 *   under `<home>/delegations/ws/` (a path inside one, a symlink to one, anything else).
 *
 * @example
 * ```ts
 * declare const ws: { root: string; path: string };
 * declare const home: string;
 * try {
 *   // ... run the agent in ws.path ...
 * } finally {
 *   removeWorkspace(ws.root, home);
 * }
 * ```
 */
export function removeWorkspace(root: string, home: string): boolean {
  // Loaded here, not with the module: most commands that can reap never need to.
  const { lstatSync, realpathSync, rmSync } = nodeFs();
  const { basename, dirname, isAbsolute } = nodePath();
  if (!exists(root)) {
    if (
      isAbsolute(root) && isRootName(basename(root)) &&
      isWorkspacesDir(dirname(resolve(root)), home)
    ) {
      return true;
    }
    throw refusal(root);
  }
  const st = lstatSync(root);
  if (
    st.isSymbolicLink() || !st.isDirectory() || workspaceRootOf(root, home) !== realpathSync(root)
  ) {
    throw refusal(root);
  }
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    // The agent may have left read-only folders behind: open them up and try once more.
    makeWritable(root);
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // Reported through the return value.
    }
  }
  return !exists(root);
}

function isWorkspacesDir(dir: string, home: string): boolean {
  const { realpathSync } = nodeFs();
  const wanted = resolve(workspacesDir(home));
  if (dir === wanted) return true;
  try {
    return realpathSync(dir) === realpathSync(wanted);
  } catch {
    return false;
  }
}

function makeWritable(dir: string): void {
  const { chmodSync, readdirSync } = nodeFs();
  try {
    chmodSync(dir, 0o700);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) makeWritable(join(dir, e.name));
    }
  } catch {
    // Best effort; whatever is left shows in the return value.
  }
}

function refusal(root: string): ObservalError {
  return new ObservalError(
    "INVALID_ARGUMENT",
    `Refusing to delete ${JSON.stringify(root)}: it is not a delegation workspace root`,
    {
      resource: root,
      remediation: "Pass the `root` of a workspace made by createWorkspace() with the same home",
    },
  );
}
