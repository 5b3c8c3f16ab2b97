/**
 * What the agent changed in its copy, as a patch the caller can `git apply`.
 * @module
 */
import { ObservalError } from "../core/mod.ts";
import {
  assertOwnGitDir,
  type Copy,
  gitInCopy,
  indexFile,
  objectSizes,
  readBlobs,
  recordTree,
  withCallerFilters,
} from "./_copy.ts";
import { approxBytes, formatBytes, GIT_MAX_OUTPUT_BYTES, nulFields, PATCH_FORMAT } from "./_git.ts";
import { NumstatThenPatch, sumNumstat } from "./_numstat.ts";
import { filesToLeaveOut, PatchBudget, type PatchRead } from "./_patch_budget.ts";
import { MAX_COMPARED_BYTES, onlySchemaChanged } from "./_schema_only.ts";
import type { Baseline, ChangeStat, OmittedFile, Workspace, WorkspaceChanges } from "./types.ts";

/** Default cap on the size of a patch. */
export const MAX_PATCH_BYTES = 64 * 1024 * 1024;

/** How many left-out files get a note of their own; `omitted` lists them all. */
const OMITTED_NOTES = 10;

/** Options for {@linkcode workspaceChanges}. */
export interface WorkspaceChangesOptions {
  /**
   * The largest patch returned; files whose changes would pass it are left out (see
   * `omitted`). @default MAX_PATCH_BYTES
   */
  maxPatchBytes?: number;
  signal?: AbortSignal;
}

const NOTHING: ChangeStat = { files: 0, insertions: 0, deletions: 0 };

/**
 * The patch from the baseline to the copy's working tree now (ignored files excluded),
 * leaving out every setup path, with a short diffstat. Apply it from the top of the
 * caller's repository (`observal delegate apply` does; git apply run in a subdirectory skips
 * files outside it).
 *
 * When the whole patch would pass `maxPatchBytes`, the files with the largest changes are
 * left out until the rest fits; `omitted` and `notes` name them.
 *
 * @example
 * ```ts
 * import type { Baseline, Workspace } from "./types.ts";
 * declare const ws: Workspace;
 * declare const baseline: Baseline;
 * const { bytes, notes, stat, omitted } = await workspaceChanges(ws, baseline);
 * ```
 */
export async function workspaceChanges(
  ws: Workspace,
  baseline: Baseline,
  options: WorkspaceChangesOptions = {},
): Promise<WorkspaceChanges> {
  const { signal } = options;
  const empty = {
    patch: "",
    bytes: new Uint8Array(),
    notes: [],
    stat: { ...NOTHING },
    omitted: [],
  };
  if (ws.kind !== "git" || !baseline.baseTree) return empty;
  assertOwnGitDir(ws);
  const copy = await withCallerFilters(ws, signal);
  const base = baseline.baseTree;
  const after = await recordTree(copy, "after", indexFile(ws, "base"), signal);
  if (after === base) return empty;

  const setup = baseline.setupPaths;
  const pathspec = ["--", ":(top)", ...setup.map((p) => `:(top,exclude,literal)${p}`)];
  const cap = options.maxPatchBytes ?? MAX_PATCH_BYTES;
  const trees = { base, after };
  // Two reads of two trees, independent of each other: run together.
  const [read, touched] = await Promise.all([
    readPatch(copy, trees, pathspec, cap, signal, { numstat: true }),
    changedSetupPaths(copy, trees, setup, signal),
  ]);

  let bytes = read.bytes;
  let omitted: OmittedFile[] = [];
  if (bytes === undefined) {
    const out = filesToLeaveOut(read.files, cap);
    const sizes = await objectSizes(copy, out.flatMap((f) => f.blob ? [f.blob] : []), signal);
    omitted = out.map((f) => ({ path: f.path, bytes: (f.blob && sizes.get(f.blob)) || 0 }));
    const rest = [...pathspec, ...omitted.map((o) => `:(top,exclude,literal)${o.path}`)];
    bytes = (await readPatch(copy, trees, rest, cap, signal)).bytes;
    if (bytes === undefined) {
      throw new ObservalError(
        "RESOURCE_EXHAUSTED",
        `The agent's changes make a patch larger than the ${formatBytes(cap)} cap, even ` +
          "without its largest files",
        { remediation: "Ask for a smaller change, or raise the patch size cap" },
      );
    }
  }

  const notes = touched.length === 0 ? [] : [
    "The agent also changed files the agent install wrote; those changes are not in the " +
    `patch: ${touched.join(", ")}`,
  ];
  notes.push(...omittedNotes(omitted, cap));
  const left = new Set(omitted.map((o) => o.path));
  return {
    patch: new TextDecoder().decode(bytes),
    bytes,
    notes,
    stat: sumNumstat(read.numstat, left),
    omitted,
  };
}

interface Trees {
  base: string;
  after: string;
}

/**
 * The patch between the trees, measured file by file, kept whole only if it fits `cap`;
 * with `numstat`, also the diffstat records git prints ahead of it in the same call.
 */
async function readPatch(
  copy: Copy,
  trees: Trees,
  pathspec: readonly string[],
  cap: number,
  signal?: AbortSignal,
  options: { numstat?: boolean } = {},
): Promise<PatchRead & { numstat: string[] }> {
  const budget = new PatchBudget(cap);
  const stat = options.numstat
    ? new NumstatThenPatch((chunk) => budget.push(chunk), GIT_MAX_OUTPUT_BYTES)
    : undefined;
  // -z only ends the numstat records with NULs; the patch is the same bytes either way.
  await gitInCopy(
    copy,
    [
      "diff-tree",
      "-r",
      ...(stat ? ["-z", "--numstat"] : []),
      "-p",
      ...PATCH_FORMAT,
      trees.base,
      trees.after,
      ...pathspec,
    ],
    { onStdout: (chunk) => stat ? stat.push(chunk) : budget.push(chunk), signal },
  );
  stat?.finish();
  return { ...budget.finish(), numstat: stat?.records ?? [] };
}

/**
 * Setup paths the agent changed. A JSON file whose only change is its top-level `$schema`
 * key is left out: harnesses add that key themselves (OpenCode does on start).
 */
async function changedSetupPaths(
  copy: Copy,
  trees: Trees,
  setup: readonly string[],
  signal?: AbortSignal,
): Promise<string[]> {
  if (setup.length === 0) return [];
  const fields = nulFields(
    await gitInCopy(copy, [
      "diff-tree",
      "-r",
      "-z",
      "--raw",
      "--no-abbrev",
      "--no-renames",
      trees.base,
      trees.after,
      "--",
      ...setup.map((p) => `:(top,literal)${p}`),
    ], { signal }),
  );
  // Records: ":<mode> <mode> <id> <id> <status>", then the path.
  const changes: { path: string; before?: string; after?: string }[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [modeA, modeB, idA, idB] = fields[i].slice(1).split(" ");
    const isFile = (mode: string) => mode === "100644" || mode === "100755";
    changes.push(
      isFile(modeA) && isFile(modeB)
        ? { path: fields[i + 1], before: idA, after: idB }
        : { path: fields[i + 1] },
    );
  }
  const ids = changes.flatMap((c) => c.before && c.after ? [c.before, c.after] : []);
  const sizes = await objectSizes(copy, ids, signal);
  const blobs = await readBlobs(
    copy,
    ids.filter((id) => (sizes.get(id) ?? Infinity) <= MAX_COMPARED_BYTES),
    signal,
  );
  return changes.filter((c) => {
    const before = c.before && blobs.get(c.before);
    const after = c.after && blobs.get(c.after);
    return !(before && after && onlySchemaChanged(before, after));
  }).map((c) => c.path);
}

/** One note per left-out file (the first few), and one for the rest. */
function omittedNotes(omitted: readonly OmittedFile[], cap: number): string[] {
  const notes = omitted.slice(0, OMITTED_NOTES).map((o) =>
    `The agent's change to ${JSON.stringify(o.path)} (${approxBytes(o.bytes)}) was left out ` +
    `of the patch, which would otherwise pass its ${formatBytes(cap)} limit; the copy is ` +
    "removed after the run, so that change is not kept anywhere"
  );
  const more = omitted.length - OMITTED_NOTES;
  if (more > 0) {
    notes.push(
      `${more} more changed file${more === 1 ? " was" : "s were"} left out of the patch ` +
        "for the same reason",
    );
  }
  return notes;
}
