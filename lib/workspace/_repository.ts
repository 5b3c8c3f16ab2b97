/**
 * Finding the caller's repository: its top, its common git folder and its HEAD, in one
 * git call. Private to lib/workspace.
 * @module
 */
import { realpathSync } from "node:fs";
import { ObservalError } from "../core/mod.ts";
import { runGit, text } from "./_git.ts";
import type { GitSettings } from "./types.ts";

/** The caller's repository, as seen from the caller's folder. */
export interface CallerRepository {
  /** The working tree's top folder, fully resolved. */
  top: string;
  /** The common git folder, absolute (a linked worktree's is its main repository's). */
  commonDir: string;
  /** HEAD's commit and that commit's tree; absent on an unborn branch. */
  head?: { commit: string; tree: string };
}

type Settings = Pick<GitSettings, "env" | "timeoutMs">;

// A full object id, SHA-1 or SHA-256.
const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The caller's repository, or undefined when `cwd` is not in a working tree (outside any
 * repository, in a bare one, inside a .git folder).
 *
 * @throws {ObservalError} `FAILED_PRECONDITION` when git refuses the repository (an unsafe
 *   owner, a broken config).
 */
export async function findRepository(
  cwd: string,
  settings: Settings,
  signal?: AbortSignal,
): Promise<CallerRepository | undefined> {
  // Options print in order, one line each. `--revs-only` drops a name that does not resolve
  // instead of failing, so an unborn HEAD prints no ids and the call still succeeds.
  const out = await runGit([
    "rev-parse",
    "--show-toplevel",
    "--path-format=absolute",
    "--git-common-dir",
    "--revs-only",
    "HEAD^{commit}",
    "HEAD^{tree}",
  ], { cwd, settings, okCodes: [0, 128], signal });
  if (out.code !== 0) return notFound(cwd, out.stderr);
  const lines = text(out).split("\n");
  // Two absolute paths, then both ids or neither. Anything else (a path holding a newline)
  // cannot be split safely: ask one question per call.
  const ids = lines.slice(2);
  if (
    lines.length >= 2 && lines[0] !== "" && lines[1] !== "" &&
    (ids.length === 0 || (ids.length === 2 && ids.every((id) => OBJECT_ID.test(id))))
  ) {
    return {
      top: realpathSync(lines[0]),
      commonDir: lines[1],
      ...(ids.length === 2 ? { head: { commit: ids[0], tree: ids[1] } } : {}),
    };
  }
  return await oneByOne(cwd, settings, signal);
}

/** The same answers, one git call each: the output then needs no splitting. */
async function oneByOne(
  cwd: string,
  settings: Settings,
  signal?: AbortSignal,
): Promise<CallerRepository | undefined> {
  const run = (args: string[], okCodes = [0]) =>
    runGit(["rev-parse", ...args], { cwd, settings, okCodes, signal });
  const topOut = await run(["--show-toplevel"], [0, 128]);
  if (topOut.code !== 0) return notFound(cwd, topOut.stderr);
  const [commonDir, commit, tree] = await Promise.all([
    run(["--path-format=absolute", "--git-common-dir"]).then(text),
    run(["-q", "--verify", "HEAD^{commit}"], [0, 1]),
    run(["-q", "--verify", "HEAD^{tree}"], [0, 1]),
  ]);
  return {
    top: realpathSync(text(topOut)),
    commonDir,
    ...(commit.code === 0 && tree.code === 0
      ? { head: { commit: text(commit), tree: text(tree) } }
      : {}),
  };
}

/** Undefined when git says `cwd` is in no working tree; otherwise why git refused. */
function notFound(cwd: string, stderr: string): undefined {
  if (/not a git repository|must be run in a work tree/i.test(stderr)) return undefined;
  throw new ObservalError(
    "FAILED_PRECONDITION",
    `git rev-parse failed: ${stderr.trim().slice(0, 300)}`,
    {
      resource: cwd,
      remediation: stderr.includes("safe.directory")
        ? "Mark the repository as safe with `git config --global --add safe.directory <path>`"
        : "Check the repository with `git status`, then try again",
    },
  );
}
