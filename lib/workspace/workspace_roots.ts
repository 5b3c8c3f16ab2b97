/**
 * Where workspaces live and how to tell one from any other path: a direct child of
 * `<home>/delegations/ws/` whose name starts with {@linkcode WORKSPACE_PREFIX}.
 * @module
 */
import { nodeFs, nodePath, pathExists } from "../core/host.ts";
import { join } from "../core/paths.ts";

/** Every workspace root's name starts with this. */
export const WORKSPACE_PREFIX = "observal-delegate-";

/**
 * The folder that holds every workspace: `<home>/delegations/ws`. It sits under the
 * observal home rather than the shared temp dir, because harnesses read instruction files
 * from parent folders, which another local user could plant in a shared one.
 *
 * @example
 * ```ts
 * workspacesDir("/home/me/.observal"); // "/home/me/.observal/delegations/ws"
 * ```
 */
export function workspacesDir(home: string): string {
  return join(home, "delegations", "ws");
}

/** The workspace roots under `home` (resolved paths, sorted); none when the folder is missing. */
export function listWorkspaceRoots(home: string): string[] {
  // Most homes have never held a workspace: say so without loading node:fs.
  if (!pathExists(workspacesDir(home))) return [];
  const dir = tryRealpath(workspacesDir(home));
  if (!dir) return [];
  return nodeFs().readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && isRootName(e.name))
    .map((e) => join(dir, e.name))
    .sort();
}

/**
 * The workspace root that contains `path` (the root itself or anything inside it), after
 * resolving symlinks and `..`; `undefined` for any other path, a relative one or one that
 * does not exist.
 *
 * @example
 * ```ts
 * workspaceRootOf(`${ws.path}/src/a.ts`, home); // ws.root
 * workspaceRootOf(`${ws.root}/../..`, home); // undefined
 * ```
 */
export function workspaceRootOf(path: string, home: string): string | undefined {
  const { isAbsolute, relative, sep } = nodePath();
  if (!isAbsolute(path)) return undefined;
  const dir = tryRealpath(workspacesDir(home));
  const real = tryRealpath(path);
  if (!dir || !real) return undefined;
  const rel = relative(dir, real);
  if (rel === "" || isAbsolute(rel)) return undefined;
  const name = rel.split(sep)[0];
  if (!isRootName(name)) return undefined;
  const root = join(dir, name);
  try {
    // Resolved already, so a symlink here would be a race; refuse it all the same.
    const st = nodeFs().lstatSync(root);
    return st.isDirectory() && !st.isSymbolicLink() ? root : undefined;
  } catch {
    return undefined;
  }
}

/** A name a workspace root may have (prefix plus a non-empty suffix, nothing path-like). */
export function isRootName(name: string): boolean {
  return name.startsWith(WORKSPACE_PREFIX) && name.length > WORKSPACE_PREFIX.length &&
    !name.includes("/") && !name.includes("\\") && name !== "." && name !== "..";
}

function tryRealpath(path: string): string | undefined {
  try {
    return nodeFs().realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Whether anything (a file, a folder, a link, even a dangling one) is at `path`. */
export function exists(path: string): boolean {
  try {
    nodeFs().lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
