/**
 * Running git in the workspace's copy, and recording its trees through private index
 * files. Private to lib/workspace.
 * @module
 */
import { copyFileSync, lstatSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { ObservalError } from "../core/mod.ts";
import { type GitResult, runGit, type RunGitOptions, text } from "./_git.ts";
import type { GitSettings } from "./types.ts";
import { exists } from "./workspace_roots.ts";

/** The parts of a git workspace that running git in its copy needs. */
export interface Copy {
  worktree: string;
  scratch: string;
  git: GitSettings;
}

/** Private index files, one per recorded tree. */
export type TreeName = "start" | "base" | "after";

/** The private index file for one tree. */
export function indexFile(copy: Pick<Copy, "scratch">, name: TreeName): string {
  return join(copy.scratch, `${name}.index`);
}

/**
 * Runs git in the copy. GIT_DIR and GIT_WORK_TREE are pinned, so a `core.worktree` or
 * `core.bare` the agent set cannot send the command elsewhere, and the copy's content
 * settings are overridden with the ones recorded at creation.
 */
export function gitInCopy(
  copy: Copy,
  args: readonly string[],
  options: Omit<RunGitOptions, "cwd" | "settings"> = {},
): Promise<GitResult> {
  return runGit(args, {
    ...options,
    cwd: copy.worktree,
    settings: copy.git,
    config: [...copy.git.config, ...(options.config ?? [])],
    env: { GIT_DIR: join(copy.worktree, ".git"), GIT_WORK_TREE: copy.worktree, ...options.env },
  });
}

/**
 * Records the copy's working tree as a tree object: a private index seeded from `seed`
 * (so git reuses its stat data instead of hashing every file again), `add -A`,
 * `write-tree`. No commit, ref, hook or signature is involved; ignored files never
 * enter the tree.
 */
export async function recordTree(
  copy: Copy,
  name: TreeName,
  seed: string | undefined,
  signal?: AbortSignal,
): Promise<string> {
  const index = indexFile(copy, name);
  seedIndex(seed, index);
  const env = { GIT_INDEX_FILE: index };
  await gitInCopy(copy, ["add", "-A"], { env, signal });
  return text(await gitInCopy(copy, ["write-tree"], { env, signal }));
}

/**
 * Copies an index file with its modification time: git compares file times with the
 * index's own time to spot entries changed in the same instant it was written
 * ("racily clean"), and a fresh time on the copy would hide them.
 */
export function seedIndex(from: string | undefined, to: string): void {
  rmSync(to, { force: true });
  if (from === undefined) return;
  let st;
  try {
    st = statSync(from);
  } catch {
    return; // No index yet (an unborn branch): git starts from an empty one.
  }
  copyFileSync(from, to);
  utimesSync(to, st.atime, st.mtime);
}

/**
 * Refuses to read a copy whose git directory was swapped for a link, a gitfile or a
 * `commondir` pointer: `add -A` would then write objects into another repository, such
 * as the caller's.
 */
export function assertOwnGitDir(copy: Pick<Copy, "worktree">): void {
  const gitDir = join(copy.worktree, ".git");
  const ok = isRealDir(gitDir) && isRealDir(join(gitDir, "objects")) &&
    !exists(join(gitDir, "commondir"));
  if (!ok) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      "The workspace's .git folder was replaced, so its changes cannot be read safely",
      {
        resource: gitDir,
        remediation: "Delegate again, and keep the agent from changing the .git folder",
      },
    );
  }
}

function isRealDir(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isDirectory() && !st.isSymbolicLink();
  } catch {
    return false;
  }
}
