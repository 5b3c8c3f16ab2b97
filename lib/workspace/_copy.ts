/**
 * Running git in the workspace's copy, and recording its trees through private index
 * files. Private to lib/workspace.
 * @module
 */
import { createHash } from "node:crypto";
import { copyFileSync, lstatSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { ObservalError } from "../core/mod.ts";
import { assertCommandsOutside, copyFilterPins } from "./_filters.ts";
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
 * enter the tree. Both commands may run clean filters: once the agent has had the copy,
 * pass the copy {@linkcode withCallerFilters} returns.
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
 * The copy with every filter its own config defines beyond the caller's switched off (the
 * agent may have added one): git commands in the copy (`add`, even `write-tree`) run clean
 * filters, and ours run outside any sandbox.
 *
 * @throws {ObservalError} `FAILED_PRECONDITION` when the agent changed a filter of the
 *   caller's in a way the copy cannot undo.
 */
export async function withCallerFilters(copy: Copy, signal?: AbortSignal): Promise<Copy> {
  const pins = await copyFilterPins(
    copy.worktree,
    copy.git,
    (args) => gitInCopy(copy, args, { okCodes: [0, 1], signal }),
  );
  if (pins.length === 0) return copy;
  return { ...copy, git: { ...copy.git, config: [...copy.git.config, ...pins] } };
}

/**
 * {@linkcode withCallerFilters} for a copy nobody but us has had yet: while the copy's own
 * config is byte for byte what creation left (`digest`, from {@linkcode configDigest}), it
 * defines no filter beyond those creation's git calls saw, so git is not asked again; the
 * reproduced filters' commands are still checked against the files now in the copy.
 */
export async function withCallerFiltersSince(
  copy: Copy,
  digest: string | undefined,
  signal?: AbortSignal,
): Promise<Copy> {
  if (digest === undefined || configDigest(copy.worktree) !== digest) {
    return await withCallerFilters(copy, signal);
  }
  assertCommandsOutside(copy.worktree, copy.git);
  return copy;
}

/** SHA-256 of the copy's own config file (empty when there is none). */
export function configDigest(worktree: string): string {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(join(worktree, ".git", "config"));
  } catch {
    bytes = new Uint8Array();
  }
  return createHash("sha256").update(bytes).digest("hex");
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

/** The size of each object in `ids` that the copy has (objects it lacks are left out). */
export async function objectSizes(
  copy: Copy,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (ids.length === 0) return out;
  const result = await gitInCopy(copy, ["cat-file", "--batch-check=%(objectname) %(objectsize)"], {
    input: ids.join("\n") + "\n",
    signal,
  });
  for (const line of text(result).split("\n")) {
    const m = /^([0-9a-f]+) (\d+)$/.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

/** The content of each blob in `ids` (ids are hex, so one per line is safe). */
export async function readBlobs(
  copy: Copy,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  if (ids.length === 0) return out;
  const { stdout } = await gitInCopy(copy, ["cat-file", "--batch"], {
    input: ids.join("\n") + "\n",
    signal,
  });
  // Each answer: "<id> <type> <size>\n<content>\n", or "<id> missing\n".
  let at = 0;
  while (at < stdout.byteLength) {
    const nl = stdout.indexOf(10, at);
    if (nl < 0) break;
    const header = new TextDecoder().decode(stdout.subarray(at, nl)).split(" ");
    at = nl + 1;
    if (header.length !== 3) continue;
    const size = Number(header[2]);
    out.set(header[0], stdout.subarray(at, at + size));
    at += size + 1;
  }
  return out;
}
