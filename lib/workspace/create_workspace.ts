/**
 * Making the throwaway copy an agent works in: a repository that shares the caller's
 * objects, checked out at the caller's HEAD, with the caller's uncommitted and untracked
 * work laid on top. Nothing in the caller's repository is written.
 * @module
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { ObservalError, toObservalError } from "../core/mod.ts";
import { configDigest, gitInCopy, indexFile, recordTree, seedIndex } from "./_copy.ts";
import {
  formatBytes,
  GIT_TIMEOUT_MS,
  gitEnv,
  type GitResult,
  nulFields,
  PATCH_FORMAT,
  runGit,
  text,
} from "./_git.ts";
import { agentRepositoryView, assertInsideWorkspace } from "./_agent_caller.ts";
import { borrowObjects, copyGitFiles } from "./_git_dir.ts";
import { assertNoRefusedFilter, planFilters } from "./_filters.ts";
import { type CallerRepository, findRepository } from "./_repository.ts";
import { copySettings, readCallerConfig } from "./_settings.ts";
import { copyUntracked, SafeDirs, skippedNotes } from "./_untracked.ts";
import { removeWorkspace } from "./remove_workspace.ts";
import type { EmptyWorkspace, GitSettings, GitWorkspace, Workspace } from "./types.ts";
import { WORKSPACE_PREFIX, workspaceRootOf, workspacesDir } from "./workspace_roots.ts";

/** Default cap on the total size of untracked files copied into a workspace. */
export const MAX_UNTRACKED_BYTES = 50 * 1024 * 1024;

/** Options for {@linkcode createWorkspace}. */
export interface CreateWorkspaceOptions {
  /** The observal home (`OBSERVAL_HOME`); workspaces go under `<home>/delegations/ws/`. */
  home: string;
  /** The caller's working directory. */
  cwd: string;
  /** The caller's environment; only what git needs is passed on. */
  env: Readonly<Record<string, string | undefined>>;
  /** Cap on the total size of untracked files copied. @default MAX_UNTRACKED_BYTES */
  maxUntrackedBytes?: number;
  /** Limit for each git call, in milliseconds. @default 120000 */
  timeoutMs?: number;
  /**
   * Parallel checkout workers for the copy (`checkout.workers`). Writing files is mostly
   * waiting on the file system, so more workers than cores still help (measured in
   * bench/workspace.ts). @default max(4, available cores), at most 16
   */
  checkoutWorkers?: number;
  signal?: AbortSignal;
  /**
   * Told the workspace's root as soon as the folder exists, before anything is copied, so
   * that whoever owns it can be found and cleaned up if this process dies mid-copy.
   */
  onRoot?: (root: string) => void;
}

/**
 * Creates a workspace for an agent: `<home>/delegations/ws/observal-delegate-<random>/`
 * (mode 0700) holding `worktree/` (a repository reading the caller's objects in place, as
 * `git clone --shared` does, detached at the caller's HEAD, with the caller's tags and
 * current branch, without a remote, plus the caller's uncommitted changes and untracked,
 * non-ignored files) and `scratch/` (ours). `path` is the caller's subdirectory inside the
 * copy. Outside a git repository, `path` is an empty folder.
 *
 * On any failure the root is removed before the error is rethrown.
 *
 * @example
 * ```ts
 * import { markBaseline } from "./mark_baseline.ts";
 * import { removeWorkspace } from "./remove_workspace.ts";
 * import { workspaceChanges } from "./workspace_changes.ts";
 * declare const ctx: { home: string; cwd: string; env: Record<string, string> };
 * declare function writeAgentConfig(dir: string): string[];
 * declare function runHarness(options: { cwd: string }): Promise<void>;
 * const ws = await createWorkspace({ home: ctx.home, cwd: ctx.cwd, env: ctx.env });
 * try {
 *   const written = writeAgentConfig(ws.path); // relative paths
 *   const baseline = await markBaseline(ws, written);
 *   await runHarness({ cwd: ws.path });
 *   const { bytes, notes, stat } = await workspaceChanges(ws, baseline);
 * } finally {
 *   removeWorkspace(ws.root, ctx.home);
 * }
 * ```
 */
export async function createWorkspace(options: CreateWorkspaceOptions): Promise<Workspace> {
  const { signal } = options;
  signal?.throwIfAborted();
  const cwd = realDir(options.cwd);
  const home = resolve(options.home);
  const dir = workspacesDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdtemp makes the folder 0700 with a random suffix; resolved so a symlinked home
  // (macOS /var) cannot make the install refuse paths that resolve elsewhere.
  const root = realpathSync(mkdtempSync(join(dir, WORKSPACE_PREFIX)));
  try {
    options.onRoot?.(root);
    const scratch = join(root, "scratch");
    mkdirSync(scratch, { mode: 0o700 });
    const settings = { env: gitEnv(options.env), timeoutMs: options.timeoutMs ?? GIT_TIMEOUT_MS };
    const repo = await findRepository(cwd, settings, signal);
    if (repo === undefined) {
      const path = join(root, "workspace");
      mkdirSync(path, { mode: 0o700 });
      const ws: EmptyWorkspace = {
        kind: "empty",
        root,
        path,
        scratch,
        notes: [
          "The caller is not inside a git repository, so the agent works in an empty folder " +
          "and no patch comes back",
        ],
      };
      return ws;
    }
    // A delegated agent delegating from its copy: the copy is its to rewrite.
    const agentRoot = workspaceRootOf(cwd, home);
    if (agentRoot) assertInsideWorkspace(repo, agentRoot);
    return await copyWorkspace({ root, scratch, repo, cwd, settings, options, agent: !!agentRoot });
  } catch (err) {
    try {
      removeWorkspace(root, home);
    } catch {
      // The original failure matters more.
    }
    throw err;
  }
}

interface CopyInput {
  root: string;
  scratch: string;
  repo: CallerRepository;
  cwd: string;
  settings: Pick<GitSettings, "env" | "timeoutMs">;
  options: CreateWorkspaceOptions;
  /** The caller is a delegated agent in its copy (see `_agent_caller.ts`). */
  agent: boolean;
}

async function copyWorkspace(input: CopyInput): Promise<GitWorkspace> {
  const { root, scratch, settings, options } = input;
  const { top, commonDir } = input.repo;
  const head = input.repo.head?.commit;
  const { signal } = options;

  const worktree = join(root, "worktree");
  // The caller's config decides how git in the copy reads and writes files: the checkout
  // waits for it; making the repository and reading the caller's side do not.
  const planned = readCallerConfig(top, settings, signal).then((read) => {
    // An agent's filter drivers are its own commands: none is run, or reproduced.
    const config = input.agent ? read.filter((e) => !e.startsWith("filter.")) : read;
    const filters = planFilters(config, top, settings.env);
    const git: GitSettings = {
      ...settings,
      config: [...copySettings(config, settings.env), ...filters.config],
      filters: filters.reproduced,
    };
    return { filters, copy: { worktree, scratch, git } };
  });
  // An unborn branch has no HEAD: the copy starts from the empty tree (its id depends on
  // the repository's hash function, so ask git).
  const from = head !== undefined ? Promise.resolve(head) : runGit(
    ["hash-object", "-t", "tree", "--stdin"],
    { cwd: top, settings, input: "", signal },
  ).then(text);
  // An agent's side is read through a git folder of ours, never with its own config.
  const view = input.agent
    ? from.then((id) =>
      agentRepositoryView(input.repo, join(scratch, "caller.git"), id.length === 64)
    )
    : undefined;
  view?.catch(() => {}); // awaited by each call
  const caller = async (args: string[], okCodes?: number[]) =>
    runGit(args, { cwd: top, settings, okCodes, signal, env: await view });
  const workers = String(
    options.checkoutWorkers ?? Math.min(16, Math.max(4, availableParallelism())),
  );

  // The copy is made while the caller's side is read; settled together so a failure
  // never leaves a git process writing into a root being removed.
  const [refsLeftOut, diff, others, { copy }] = await settled([
    (async () => {
      // What `clone --shared` leaves once its remote is removed, without its transport: a
      // repository of the caller's hash function that reads the caller's objects where they
      // are (its own hold only what git in the copy writes), with the caller's tags and
      // current branch, and no remote, so a `git push` the agent runs cannot reach the
      // caller's repository.
      // Read while the repository is made. A copy without them still works: say so.
      const refs = head
        ? keptRefs(caller).catch((err: unknown) => {
          signal?.throwIfAborted();
          return toObservalError(err);
        })
        : Promise.resolve("");
      refs.catch(() => {}); // awaited below, once the repository exists
      const id = await from;
      await runGit(
        [
          // Refs in files, whatever the user's default, so that ours can be written below.
          "-c",
          "init.defaultRefFormat=files",
          "init",
          "--quiet",
          // No template: no sample hooks, nothing the copy does not need.
          "--template=",
          `--object-format=${id.length === 64 ? "sha256" : "sha1"}`,
          "--",
          worktree,
        ],
        { cwd: root, settings, signal },
      );
      borrowObjects(join(worktree, ".git"), commonDir);
      const packed = await refs;
      if (typeof packed === "string" && packed) {
        writeFileSync(join(worktree, ".git", "packed-refs"), packed);
      }
      copyInfoFiles(commonDir, worktree);
      const { copy } = await planned;
      if (head) {
        await gitInCopy(copy, ["checkout", "--detach", "--quiet", head], {
          config: [`checkout.workers=${workers}`],
          signal,
        });
      }
      return packed instanceof ObservalError ? packed.message : undefined;
    })(),
    // The caller's uncommitted work as a patch in a fixed format, whatever the user's diff
    // settings; plumbing, so nothing is refreshed or written. Submodules stay as committed.
    from.then((base) =>
      caller(["diff-index", "-p", ...PATCH_FORMAT, "--ignore-submodules=all", base, "--"])
        .catch((err: unknown) => {
          signal?.throwIfAborted();
          return err instanceof ObservalError ? err : toObservalError(err);
        })
    ),
    caller(["ls-files", "-z", "--others", "--exclude-standard"]).then(nulFields),
    planned.then(async (plan) => {
      await assertNoRefusedFilter(top, plan.filters, settings, signal);
      return plan;
    }),
  ]);
  const git = copy.git;

  const notes: string[] = [];
  if (refsLeftOut) {
    notes.push(
      `The caller's tags and branch could not be read, so the copy has none ` +
        `(${refsLeftOut.slice(0, 200)}); the agent's git history and files are as the caller's`,
    );
  }

  let overlaid = false;
  let why = "";
  if (diff instanceof ObservalError) why = diff.message;
  else if (diff.stdout.byteLength > 0) {
    const applied = await gitInCopy(copy, ["apply", "--binary", "--whitespace=nowarn"], {
      input: diff.stdout,
      okCodes: [0, 1, 128],
      signal,
    });
    if (applied.code === 0) overlaid = true;
    else why = applied.stderr.trim().split("\n")[0] || `git apply exit code ${applied.code}`;
  }
  if (why) {
    notes.push(
      `Uncommitted changes could not be carried into the copy (${why.slice(0, 200)}); ` +
        `the agent starts from ${head ? "the last commit" : "an empty tree"} plus untracked files`,
    );
  }

  const cap = options.maxUntrackedBytes ?? MAX_UNTRACKED_BYTES;
  const untracked = copyUntracked(top, worktree, others, cap, signal);
  if (untracked.overCap > 0) {
    notes.push(
      `${untracked.overCap} untracked file(s) were left out of the copy: together with the ` +
        `others they pass the ${formatBytes(cap)} limit for untracked files`,
    );
  }
  if (untracked.nested > 0) {
    notes.push(
      `${untracked.nested} untracked nested repositor${
        untracked.nested === 1 ? "y was" : "ies were"
      } left out of the copy`,
    );
  }

  notes.push(...skippedNotes(untracked.skipped));

  // A copy that is exactly HEAD needs no scan: its tree is HEAD's, its index the checkout's.
  const checkoutIndex = join(worktree, ".git", "index");
  let startTree: string;
  if (input.repo.head && !overlaid && untracked.copied === 0) {
    seedIndex(checkoutIndex, indexFile(copy, "start"));
    startTree = input.repo.head.tree;
  } else {
    startTree = await recordTree(copy, "start", checkoutIndex, signal);
  }

  const rel = relative(top, input.cwd);
  let path = worktree;
  if (rel !== "") {
    if (new SafeDirs(worktree).make(rel)) path = join(worktree, rel);
    else {
      notes.push(
        `The caller's folder ${JSON.stringify(rel.split(sep).join("/"))} could not be made in ` +
          "the copy; the agent works at the copy's top",
      );
    }
  }
  return {
    kind: "git",
    root,
    path,
    scratch,
    notes,
    worktree,
    repository: top,
    ...(input.repo.head ? { head: input.repo.head.commit, headTree: input.repo.head.tree } : {}),
    startTree,
    git,
    configDigest: configDigest(worktree),
  };
}

/**
 * The caller's `info/exclude` and `info/attributes`, so the copy ignores what the caller
 * ignores and converts files (filters, line endings) as the caller does, and its `shallow`
 * list, so that history in a copy of a shallow clone ends where the caller's does.
 */
function copyInfoFiles(commonDir: string, worktree: string): void {
  const gitDir = join(worktree, ".git");
  mkdirSync(join(gitDir, "info"), { recursive: true });
  copyGitFiles(commonDir, gitDir, ["info/exclude", "info/attributes", "shallow"]);
}

/**
 * The caller's tags and current branch as a `packed-refs` file, one `<id> <ref>` line each
 * (git peels annotated tags itself): what a clone keeps, so that `git describe` and the
 * branch name read in the copy as they do for the caller.
 */
async function keptRefs(
  caller: (args: string[]) => Promise<GitResult>,
): Promise<string> {
  const out = text(
    await caller([
      "for-each-ref",
      "--format=%(objectname) %(HEAD) %(refname)",
      "refs/tags",
      "refs/heads",
    ]),
  );
  const lines: string[] = [];
  // Ref names hold no spaces (git refuses them).
  for (const line of out.split("\n")) {
    const [, id, current, ref] = /^(\S+) (.) (\S+)$/.exec(line) ?? [];
    if (ref?.startsWith("refs/tags/") || (current === "*" && ref?.startsWith("refs/heads/"))) {
      lines.push(`${id} ${ref}`);
    }
  }
  return lines.length ? `${lines.join("\n")}\n` : "";
}

function realDir(cwd: string): string {
  try {
    return realpathSync(resolve(cwd));
  } catch (err) {
    throw new ObservalError("NOT_FOUND", `The working directory ${cwd} does not exist`, {
      resource: cwd,
      remediation: "Run the command from an existing folder",
      cause: err,
    });
  }
}

/** Promise.all that waits for every promise before rejecting with the first failure. */
async function settled<T extends readonly unknown[]>(
  promises: { [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const results = await Promise.allSettled(promises);
  for (const r of results) if (r.status === "rejected") throw r.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
