/**
 * What the agent changed in its copy, as a patch the caller can `git apply`.
 * @module
 */
import { PATCH_FORMAT } from "./_git.ts";
import { ObservalError } from "../core/mod.ts";
import { assertOwnGitDir, gitInCopy, indexFile, recordTree } from "./_copy.ts";
import { formatBytes, nulFields } from "./_git.ts";
import type { Baseline, ChangeStat, Workspace, WorkspaceChanges } from "./types.ts";

/** Default cap on the size of a patch. */
export const MAX_PATCH_BYTES = 64 * 1024 * 1024;

/** Options for {@linkcode workspaceChanges}. */
export interface WorkspaceChangesOptions {
  /** The largest patch returned; a larger one is an error. @default MAX_PATCH_BYTES */
  maxPatchBytes?: number;
  signal?: AbortSignal;
}

const NOTHING: ChangeStat = { files: 0, insertions: 0, deletions: 0 };

/**
 * The patch from the baseline to the copy's working tree now (ignored files excluded),
 * leaving out every setup path, with a short diffstat. Apply it from the top of the
 * caller's repository: `git -C <repository> apply changes.patch` (git apply run in a
 * subdirectory skips files outside it).
 *
 * @throws {ObservalError} `RESOURCE_EXHAUSTED` when the patch passes `maxPatchBytes`.
 *
 * @example
 * ```ts
 * const { bytes, notes, stat } = await workspaceChanges(ws, baseline);
 * ```
 */
export async function workspaceChanges(
  ws: Workspace,
  baseline: Baseline,
  options: WorkspaceChangesOptions = {},
): Promise<WorkspaceChanges> {
  const { signal } = options;
  const empty = { patch: "", bytes: new Uint8Array(), notes: [], stat: { ...NOTHING } };
  if (ws.kind !== "git" || !baseline.baseTree) return empty;
  assertOwnGitDir(ws);
  const base = baseline.baseTree;
  const after = await recordTree(ws, "after", indexFile(ws, "base"), signal);
  if (after === base) return empty;

  const setup = baseline.setupPaths;
  const pathspec = ["--", ":(top)", ...setup.map((p) => `:(top,exclude,literal)${p}`)];
  const cap = options.maxPatchBytes ?? MAX_PATCH_BYTES;
  // Three reads of two trees, independent of each other: run together.
  const [patchOut, numstat, touched] = await Promise.all([
    gitInCopy(ws, ["diff-tree", "-r", "-p", ...PATCH_FORMAT, base, after, ...pathspec], {
      maxOutputBytes: cap,
      tooLarge: (n) =>
        new ObservalError(
          "RESOURCE_EXHAUSTED",
          `The agent's changes make a patch larger than the ${formatBytes(n)} cap`,
          { remediation: "Ask for a smaller change, or raise the patch size cap" },
        ),
      signal,
    }),
    gitInCopy(
      ws,
      ["diff-tree", "-r", "-z", "--numstat", "--no-renames", base, after, ...pathspec],
      {
        signal,
      },
    ).then(nulFields),
    setup.length === 0 ? [] : gitInCopy(ws, [
      "diff-tree",
      "-r",
      "-z",
      "--name-only",
      "--no-renames",
      base,
      after,
      "--",
      ...setup.map((p) => `:(top,literal)${p}`),
    ], { signal }).then(nulFields),
  ]);
  const notes = touched.length === 0 ? [] : [
    "The agent also changed files the agent install wrote; those changes are not in the " +
    `patch: ${touched.join(", ")}`,
  ];
  const bytes = patchOut.stdout;
  return { patch: new TextDecoder().decode(bytes), bytes, notes, stat: parseNumstat(numstat) };
}

/** Sums `--numstat -z` records ("added\tdeleted\tpath"; `-` for binary files). */
function parseNumstat(records: string[]): ChangeStat {
  const stat = { ...NOTHING };
  for (const record of records) {
    const m = /^(-|\d+)\t(-|\d+)\t/.exec(record);
    if (!m) continue;
    stat.files++;
    if (m[1] !== "-") stat.insertions += Number(m[1]);
    if (m[2] !== "-") stat.deletions += Number(m[2]);
  }
  return stat;
}
