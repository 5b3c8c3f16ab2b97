/**
 * Shapes shared by the workspace functions. A Workspace holds plain data only (strings and
 * arrays), so the worker may keep it beside the task between steps.
 * @module
 */

/**
 * How a workspace runs git. Treat it as opaque: it is recorded at creation so later steps
 * run git the same way whatever the agent did to its copy's config.
 */
export interface GitSettings {
  /** The environment for every git call (no repository-redirecting variables). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * `key=value` pairs passed with `-c` to every command run in the copy: the caller's
   * content settings (line endings, file modes, ignore and attribute files) and switches
   * for features that would change what `add -A` sees.
   */
  readonly config: readonly string[];
  /** Limit for one git call, in milliseconds. */
  readonly timeoutMs: number;
  /** The caller's clean/smudge filters reproduced in the copy, by name. */
  readonly filters?: readonly string[];
}

/** What every workspace has. */
export interface WorkspaceBase {
  /** `<home>/delegations/ws/observal-delegate-<random>`, fully resolved. */
  readonly root: string;
  /** Where the agent works: the copy of the caller's directory (or an empty folder). */
  readonly path: string;
  /** `<root>/scratch`: private index files and anything else that is ours, not the agent's. */
  readonly scratch: string;
  /** What the caller should know about how the copy was made. */
  readonly notes: string[];
}

/** A workspace for a caller outside any git repository: an empty folder, no patch. */
export interface EmptyWorkspace extends WorkspaceBase {
  readonly kind: "empty";
}

/**
 * A repository sharing the caller's objects, at the caller's HEAD, with the caller's
 * uncommitted work on top.
 */
export interface GitWorkspace extends WorkspaceBase {
  readonly kind: "git";
  /** The copy's top-level folder, `<root>/worktree`. */
  readonly worktree: string;
  /** The caller's repository top-level folder. */
  readonly repository: string;
  /** The caller's HEAD commit; absent on an unborn branch. */
  readonly head?: string;
  /** The tree of `head`. */
  readonly headTree?: string;
  /** The copy's tree before anything was installed into it. */
  readonly startTree: string;
  readonly git: GitSettings;
  /**
   * SHA-256 of the copy's `.git/config` as creation left it: while it is unchanged, the copy
   * defines no git filter beyond those creation saw.
   */
  readonly configDigest?: string;
}

/** Either kind of workspace. */
export type Workspace = EmptyWorkspace | GitWorkspace;

/** The tree after the agent install wrote its files; see `markBaseline()`. */
export interface Baseline {
  /** Absent for an empty workspace. */
  baseTree?: string;
  /**
   * Paths (relative to the copy's top, `/`-separated) that the install created or changed:
   * they never appear in the patch.
   */
  setupPaths: string[];
}

/** A short diffstat. */
export interface ChangeStat {
  files: number;
  insertions: number;
  deletions: number;
}

/** A changed file left out of the patch because the patch would pass its size limit. */
export interface OmittedFile {
  /** Relative to the copy's top, `/`-separated. */
  path: string;
  /** The size of the agent's version of the file (of the removed file, for a deletion). */
  bytes: number;
}

/** What `workspaceChanges()` returns. */
export interface WorkspaceChanges {
  /** The patch as text (UTF-8; invalid bytes replaced). Empty when nothing changed. */
  patch: string;
  /**
   * The patch exactly as git wrote it. Write these bytes to `changes.patch`: a text file
   * that is not UTF-8 survives only here.
   */
  bytes: Uint8Array;
  notes: string[];
  /** Diffstat of the patch (files left out do not count). */
  stat: ChangeStat;
  /**
   * Changed files left out of the patch, largest first to go, so that the rest fits the
   * patch size limit. Each also has a note; nothing keeps their content.
   */
  omitted: OmittedFile[];
}
