/**
 * Putting a task's patch into the caller's repository, all or nothing: `git apply --check`
 * first, naming every file that does not apply and why, then `git apply`. Also the
 * summaries `delegate diff` shows (`--stat`, the changed paths).
 * @module
 */
import { preimageIds } from "./base_objects.ts";
import { ObservalError } from "../core/mod.ts";
import { GIT_TIMEOUT_MS, gitEnv, type GitResult, nulFields, runGit, text } from "./_git.ts";

/** Options every call here takes. */
export interface ApplyPatchOptions {
  /** The caller's environment; only what git needs is passed on. */
  env: Readonly<Record<string, string | undefined>>;
  /** Limit for each git call, in milliseconds. @default 120000 */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** How to apply: `--3way` (which updates the index too) and `--index`. */
export interface ApplyMode {
  threeWay?: boolean;
  index?: boolean;
}

/** One file of the patch that does not apply, and git's reasons. */
export interface RefusedFile {
  path: string;
  reasons: string[];
}

/** What {@linkcode checkPatch} found: nothing refused means the patch applies whole. */
export interface PatchCheck {
  refused: RefusedFile[];
  /** git's error lines that name no file of the patch (a malformed patch, say). */
  other: string[];
}

/** What {@linkcode applyPatch} did. */
export interface PatchApplied {
  /** Files left with conflict markers by a three-way merge (they are unmerged in the index). */
  conflicts: string[];
}

function git(
  args: readonly string[],
  cwd: string,
  options: ApplyPatchOptions,
  more: { okCodes?: number[]; input?: string } = {},
): Promise<GitResult> {
  const settings = { env: gitEnv(options.env), timeoutMs: options.timeoutMs ?? GIT_TIMEOUT_MS };
  return runGit(args, { cwd, settings, signal: options.signal, ...more });
}

function modeFlags(mode: ApplyMode): string[] {
  if (mode.threeWay) return ["--3way"];
  return mode.index ? ["--index"] : [];
}

/**
 * The paths a patch touches, in its order. Runs anywhere: `git apply --numstat` reads the
 * patch only.
 *
 * @param patchPath the patch file
 * @param cwd any folder (the task's)
 */
export async function patchPaths(
  patchPath: string,
  cwd: string,
  options: ApplyPatchOptions,
): Promise<string[]> {
  const r = await git(["apply", "--numstat", "-z", patchPath], cwd, options);
  // `added\tdeleted\tpath` records; a rename would add two more fields, but patches are
  // written with --no-renames.
  return nulFields(r).map((f) => f.split("\t").slice(2).join("\t"));
}

/** `git apply --stat` of the patch: one line a file and a total, as git prints it. */
export async function patchStat(
  patchPath: string,
  cwd: string,
  options: ApplyPatchOptions,
): Promise<string> {
  return text(await git(["apply", "--stat", patchPath], cwd, options));
}

/**
 * Checks that the whole patch applies to the repository's working tree (and index, with
 * `--index` or `--3way`), writing nothing. With `--3way` a file that would merge with
 * conflicts still passes: git reports conflicts only when it applies.
 *
 * @param top the top of the caller's repository (git apply in a subfolder skips the rest)
 * @param patchPath the patch file
 */
export async function checkPatch(
  top: string,
  patchPath: string,
  mode: ApplyMode,
  options: ApplyPatchOptions,
): Promise<PatchCheck> {
  const r = await git(["apply", "--check", ...modeFlags(mode), patchPath], top, options, {
    okCodes: [0, 1],
  });
  if (r.code === 0) return { refused: [], other: [] };
  return refusals(r, await patchPaths(patchPath, top, options));
}

/**
 * Applies the patch; call {@linkcode checkPatch} first, so a refusal leaves everything as
 * it was. With `--3way`, files that merged with conflicts are returned.
 *
 * @throws {ObservalError} FAILED_PRECONDITION when git refused after all (the repository
 * changed since the check); git applies nothing then
 */
export async function applyPatch(
  top: string,
  patchPath: string,
  mode: ApplyMode,
  options: ApplyPatchOptions,
): Promise<PatchApplied> {
  const r = await git(["apply", ...modeFlags(mode), patchPath], top, options, { okCodes: [0, 1] });
  if (r.code === 0) return { conflicts: [] };
  // `U path` lines: a three-way merge applied everything, some of it with conflicts.
  const conflicts = r.stderr.split("\n").flatMap((l) => l.startsWith("U ") ? [l.slice(2)] : []);
  if (mode.threeWay && conflicts.length > 0) return { conflicts };
  throw new ObservalError(
    "FAILED_PRECONDITION",
    `git apply refused the patch after checking it: ${r.stderr.trim().slice(0, 300)}`,
    { remediation: "The repository changed meanwhile; check it with `git status` and retry" },
  );
}

/**
 * The preimage blobs the patch names (its `index` lines) that the repository lacks: a
 * three-way merge needs them.
 */
export async function missingBlobs(
  top: string,
  patch: string,
  options: ApplyPatchOptions,
): Promise<string[]> {
  const asked = preimageIds(patch);
  if (asked.length === 0) return [];
  const input = asked.map((id) => `${id}\n`).join("");
  const answers = text(await git(["cat-file", "--batch-check"], top, options, { input }));
  const lines = answers.split("\n");
  return asked.filter((_, i) => lines[i]?.endsWith(" missing"));
}

/** The commit HEAD names, or undefined before the first commit. */
export async function headCommit(
  top: string,
  options: ApplyPatchOptions,
): Promise<string | undefined> {
  const r = await git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], top, options, {
    okCodes: [0, 1],
  });
  return r.code === 0 ? text(r) : undefined;
}

/**
 * git's error lines grouped by the file they name. git writes `error: patch failed:
 * <path>:<line>` then `error: <path>: <reason>`; a path is matched against the patch's own
 * paths, so one holding `: ` is still found.
 */
function refusals(r: GitResult, paths: readonly string[]): PatchCheck {
  const byPath = new Map<string, string[]>();
  const other: string[] = [];
  const longestFirst = [...new Set(paths)].sort((a, b) => b.length - a.length);
  for (const line of r.stderr.split("\n")) {
    const msg = line.replace(/^error: /, "").trim();
    if (!msg) continue;
    const failed = msg.match(/^patch failed: (.*):(\d+)$/);
    if (failed) {
      add(byPath, failed[1], `the lines at ${failed[2]} changed`);
      continue;
    }
    const path = longestFirst.find((p) =>
      msg.startsWith(`${p}: `) || msg.endsWith(` '${p}'`) || msg.endsWith(` ${p}`)
    );
    if (path === undefined) other.push(msg);
    else add(byPath, path, msg.startsWith(`${path}: `) ? msg.slice(path.length + 2) : msg);
  }
  const refused = [...byPath].map(([path, reasons]) => ({ path, reasons }));
  return { refused, other };
}

function add(map: Map<string, string[]>, path: string, reason: string): void {
  const reasons = map.get(path) ?? [];
  if (!reasons.includes(reason)) reasons.push(reason);
  map.set(path, reasons);
}
