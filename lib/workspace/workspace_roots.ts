/**
 * Where workspaces live and how to tell one from any other path: a direct child of
 * `<home>/delegations/ws/` whose name starts with {@linkcode WORKSPACE_PREFIX}.
 * @module
 */
import {
  hostPlatform,
  isAbsolute,
  join,
  lstatPath,
  nodeFs,
  nodePath,
  pathExists,
  realPath,
} from "../core/system/mod.ts";

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
  const dir = realPath(workspacesDir(home));
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
 * declare const ws: { root: string; path: string };
 * declare const home: string;
 * workspaceRootOf(`${ws.path}/src/a.ts`, home); // ws.root
 * workspaceRootOf(`${ws.root}/../..`, home); // undefined
 * ```
 */
export function workspaceRootOf(path: string, home: string): string | undefined {
  if (!isAbsolute(path)) return undefined;
  const dir = realPath(workspacesDir(home));
  const real = realPath(path);
  if (!dir || !real) return undefined;
  const name = firstSegmentBelow(dir, real);
  if (name === undefined || !isRootName(name)) return undefined;
  const root = join(dir, name);
  // Resolved already, so a symlink here would be a race; refuse it all the same.
  const st = lstatPath(root);
  return st?.isDirectory && !st.isSymlink ? root : undefined;
}

/**
 * The first segment of `path` below `dir` (both resolved); undefined for `dir` itself and
 * anything outside it. On Windows (drive letters, case, UNC) node:path decides.
 */
function firstSegmentBelow(dir: string, path: string): string | undefined {
  if (hostPlatform() === "win32") {
    const { isAbsolute, relative, sep } = nodePath();
    const rel = relative(dir, path);
    return rel === "" || isAbsolute(rel) ? undefined : rel.split(sep)[0];
  }
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  return path.startsWith(prefix) && path.length > prefix.length
    ? path.slice(prefix.length).split("/")[0]
    : undefined;
}

/** A name a workspace root may have (prefix plus a non-empty suffix, nothing path-like). */
export function isRootName(name: string): boolean {
  return name.startsWith(WORKSPACE_PREFIX) && name.length > WORKSPACE_PREFIX.length &&
    !name.includes("/") && !name.includes("\\") && name !== "." && name !== "..";
}

/** Whether anything (a file, a folder, a link, even a dangling one) is at `path`. */
export function exists(path: string): boolean {
  return lstatPath(path) !== undefined;
}
