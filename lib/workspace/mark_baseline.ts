/**
 * The line between what the agent install wrote into the copy and what the agent did.
 * @module
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ObservalError } from "../core/mod.ts";
import {
  assertOwnGitDir,
  gitInCopy,
  indexFile,
  recordTree,
  withCallerFiltersSince,
} from "./_copy.ts";
import { nulFields } from "./_git.ts";
import type { Baseline, GitWorkspace, Workspace } from "./types.ts";

/** Options for {@linkcode markBaseline}. */
export interface MarkBaselineOptions {
  signal?: AbortSignal;
}

/**
 * Records the copy's tree after the agent install wrote its files and before the agent
 * runs. Every path that differs from the start tree, plus every path in `writtenPaths`,
 * becomes a setup path: `workspaceChanges()` leaves them out of the patch.
 *
 * @param writtenPaths Paths the install wrote, relative to `ws.path` (or absolute inside
 *   the copy). Ignored files are welcome here: they never enter a tree anyway.
 * @throws {ObservalError} `INVALID_ARGUMENT` for a written path outside the copy.
 *
 * @example
 * ```ts
 * import type { Workspace } from "./types.ts";
 * declare const ws: Workspace;
 * const baseline = await markBaseline(ws, [".claude/agents/reviewer.md"]);
 * ```
 */
export async function markBaseline(
  ws: Workspace,
  writtenPaths: readonly string[] = [],
  options: MarkBaselineOptions = {},
): Promise<Baseline> {
  if (ws.kind !== "git") return { setupPaths: [] };
  const written = writtenPaths.map((p) => topPath(ws, p));
  assertOwnGitDir(ws);
  // Before the agent runs, only our install has written the copy.
  const copy = await withCallerFiltersSince(ws, ws.configDigest, options.signal);
  const baseTree = await recordTree(copy, "base", indexFile(ws, "start"), options.signal);
  const changed = baseTree === ws.startTree ? [] : nulFields(
    await gitInCopy(
      copy,
      ["diff-tree", "-r", "-z", "--name-only", "--no-renames", ws.startTree, baseTree],
      { signal: options.signal },
    ),
  );
  return { baseTree, setupPaths: [...new Set([...changed, ...written])].sort() };
}

/** `p` as a `/`-separated path relative to the copy's top. */
function topPath(ws: GitWorkspace, p: string): string {
  const rel = relative(ws.worktree, resolve(ws.path, p));
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `The written path ${JSON.stringify(p)} is not inside the workspace copy`,
      { resource: p, remediation: "Pass paths relative to the workspace path" },
    );
  }
  return rel.split(sep).join("/");
}
