/**
 * A repository's state carried to another machine: the caller's HEAD as a git bundle
 * (only the commits the other side may lack) and its uncommitted and untracked work as a
 * binary patch. The served side rebuilds exactly that tree, checked piece by piece, and a
 * run on it returns a patch that applies to the caller's tree.
 * @module
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, sep } from "node:path";
import { errorMessage, ObservalError } from "../core/mod.ts";
import { seedIndex } from "./_copy.ts";
import { approxBytes, GIT_TIMEOUT_MS, gitEnv, PATCH_FORMAT, runGit, text } from "./_git.ts";
import type { GitSettings } from "./types.ts";

/** A repository's state as sent: what {@linkcode captureRepoState} makes. */
export interface RepoState {
  /** The HEAD commit; undefined on a branch with no commit yet. */
  head?: string;
  /** A bundle holding HEAD (as the ref `HEAD`) and the commits the receiver may lack. */
  bundle?: Uint8Array;
  /** Uncommitted and untracked (not ignored) work against HEAD, as a binary git patch. */
  changes?: Uint8Array;
  /** The sender's folder relative to its repository's top, `/`-separated ("" at the top). */
  path: string;
}

/** What {@linkcode captureRepoState} takes. */
export interface CaptureOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Leave out of the bundle the commits the sender's remote-tracking branches hold (the
   * receiver has a clone of the same remote); otherwise the bundle holds HEAD's whole
   * history.
   */
  thin: boolean;
  /** Make the bundle; false leaves it out (the receiver has HEAD). @default true */
  bundle?: boolean;
  /** Cap on the bundle and the patch together, in bytes. */
  maxBytes: number;
  signal?: AbortSignal;
}

/** A captured state and the repository it came from. */
export interface CapturedState {
  state: RepoState;
  /** The sender's repository top (where its patch applies). */
  top: string;
}

/**
 * The state of the repository that holds `cwd`, or undefined outside one. Nothing in the
 * repository is written: the untracked files are hashed into a private index and object
 * folder, which are removed again.
 *
 * @throws {ObservalError} `RESOURCE_EXHAUSTED` when the state passes `maxBytes`.
 */
export async function captureRepoState(
  options: CaptureOptions,
): Promise<CapturedState | undefined> {
  const { signal } = options;
  const settings = { env: gitEnv(options.env), timeoutMs: GIT_TIMEOUT_MS };
  const top0 = await runGit(["rev-parse", "--show-toplevel"], {
    cwd: options.cwd,
    settings,
    okCodes: [0, 128],
    signal,
  });
  if (top0.code !== 0) return undefined;
  const top = realpathSync(text(top0));
  const git = (args: string[], more: Partial<Parameters<typeof runGit>[1]> = {}) =>
    runGit(args, { cwd: top, settings, signal, ...more });
  const [headOut, objects, indexPath] = await Promise.all([
    git(["rev-parse", "-q", "--verify", "HEAD^{commit}"], { okCodes: [0, 1] }),
    git(["rev-parse", "--path-format=absolute", "--git-path", "objects"]).then(text),
    git(["rev-parse", "--path-format=absolute", "--git-path", "index"]).then(text),
  ]);
  const head = headOut.code === 0 ? text(headOut) : undefined;
  const path = relative(top, realpathSync(options.cwd)).split(sep).join("/");
  const over = (what: string) =>
    new ObservalError(
      "RESOURCE_EXHAUSTED",
      `The repository's ${what} pass the ${approxBytes(options.maxBytes)} the agent takes`,
      {
        remediation: "Commit and push what you can, ignore or remove large untracked files, " +
          "or delegate without the repository (--no-repo)",
      },
    );

  const scratch = mkdtempSync(join(tmpdir(), "observal-state-"));
  try {
    let bundle: Uint8Array | undefined;
    if (head && options.bundle !== false) {
      const file = join(scratch, "head.bundle");
      const exclude = options.thin ? await remoteCommitsIn(git, head) : [];
      if (!exclude.includes(head)) {
        await git(["bundle", "create", "--quiet", file, "HEAD", ...exclude.map((c) => `^${c}`)]);
        if (statSync(file).size > options.maxBytes) throw over("commits");
        bundle = readFileSync(file);
      }
    }
    // The work tree as a tree: a private index seeded from the real one (so unchanged
    // files are not hashed again) and a private object folder that borrows the real one.
    const env = {
      GIT_INDEX_FILE: join(scratch, "index"),
      GIT_OBJECT_DIRECTORY: join(scratch, "objects"),
      GIT_ALTERNATE_OBJECT_DIRECTORIES: objects,
    };
    // git takes a repository whose object folder is missing for no repository at all.
    mkdirSync(env.GIT_OBJECT_DIRECTORY);
    seedIndex(indexPath, env.GIT_INDEX_FILE);
    await git(["add", "-A"], { env });
    const base = head ?? text(await git(["hash-object", "-t", "tree", "--stdin"], { input: "" }));
    const budget = options.maxBytes - (bundle?.byteLength ?? 0);
    const diff = await git(
      ["diff-index", "--cached", "-p", ...PATCH_FORMAT, "--ignore-submodules=all", base, "--"],
      { env, maxOutputBytes: Math.max(budget, 0), tooLarge: () => over("changes") },
    );
    const changes = diff.stdout.byteLength > 0 ? diff.stdout : undefined;
    return { state: { head, bundle, changes, path }, top };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The tips of the remote-tracking branches that HEAD contains (a remote has them all). */
async function remoteCommitsIn(
  git: (args: string[], more?: { okCodes?: number[] }) => ReturnType<typeof runGit>,
  head: string,
): Promise<string[]> {
  const listed = await git(["for-each-ref", "--format=%(objectname)", "--", "refs/remotes/"]);
  const tips = [...new Set(text(listed).split("\n").filter(Boolean))];
  const kept: string[] = [];
  for (const tip of tips) {
    const ancestor = await git(["merge-base", "--is-ancestor", tip, head], {
      okCodes: [0, 1, 128],
    });
    if (ancestor.code === 0) kept.push(tip);
  }
  return kept;
}

/** Bundle formats git writes; anything else is refused before git reads it. */
const BUNDLE_SIGNATURES = ["# v2 git bundle\n", "# v3 git bundle\n"];

/** What {@linkcode restoreRepoState} takes. */
export interface RestoreOptions {
  state: RepoState;
  /** An empty folder to rebuild the tree in. */
  into: string;
  /** A folder outside `into` for the bundle file while it is read. */
  scratch: string;
  /** The receiver's own repository, whose commits the bundle may leave out. */
  repository?: string;
  /** Patches applied after the state's changes, in order (earlier runs' edits). */
  patches?: readonly Uint8Array[];
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

/**
 * Rebuilds a sent state in `into`: a clone of `repository` (or a new repository) at the
 * sender's HEAD, taken from the bundle after git has verified it (one ref, `HEAD`, at the
 * commit named; every object checked), with the sender's changes applied by `git apply`,
 * which refuses paths outside the tree, inside `.git` or behind a link.
 *
 * @returns the folder the sender worked in, inside `into`
 * @throws {ObservalError} `INVALID_ARGUMENT` when any piece fails its check.
 */
export async function restoreRepoState(options: RestoreOptions): Promise<string> {
  const { state, into, signal } = options;
  const settings: Pick<GitSettings, "env" | "timeoutMs"> = {
    env: gitEnv(options.env),
    timeoutMs: GIT_TIMEOUT_MS,
  };
  const refuse = (why: string) =>
    new ObservalError("INVALID_ARGUMENT", `The repository state sent was refused: ${why}`, {
      remediation: "Send it again from an up-to-date observal, or delegate without it",
    });
  const git = (args: string[], more: Partial<Parameters<typeof runGit>[1]> = {}) =>
    runGit(args, { cwd: into, settings, signal, ...more });
  const firstLine = (e: unknown) => errorMessage(e).replace(/^git \S+ failed: /, "").split("\n")[0];
  if (state.head !== undefined && !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(state.head)) {
    throw refuse("HEAD is not a commit id");
  }
  if (state.bundle && !state.head) throw refuse("a bundle came without the HEAD it holds");

  if (options.repository) {
    const common = text(
      await runGit(["rev-parse", "--path-format=absolute", "--git-common-dir"], {
        cwd: options.repository,
        settings,
        signal,
      }),
    );
    await runGit(
      ["clone", "--shared", "--no-checkout", "--quiet", "--template=", "--", common, into],
      { cwd: options.scratch, settings, signal },
    );
    await git(["remote", "remove", "origin"]);
  } else {
    await runGit(["init", "--quiet", "--template=", "--", into], {
      cwd: options.scratch,
      settings,
      signal,
    });
  }

  if (state.bundle) {
    const head = new TextDecoder().decode(state.bundle.subarray(0, 20));
    if (!BUNDLE_SIGNATURES.some((s) => head.startsWith(s))) throw refuse("not a git bundle");
    const file = join(options.scratch, "sent.bundle");
    writeFileSync(file, state.bundle, { mode: 0o600 });
    const verified = await git(["bundle", "verify", file], { okCodes: [0, 1, 128] });
    if (verified.code !== 0) {
      const lacks = /lacks these prerequisite commits/i.test(verified.stderr);
      throw lacks
        ? new ObservalError(
          "FAILED_PRECONDITION",
          "The served repository lacks commits the sender's bundle builds on",
          {
            remediation: options.repository
              ? "Fetch into the served repository (it must have the sender's remote " +
                "branches), or send the whole history"
              : "Send the whole history",
          },
        )
        : refuse(`git bundle verify: ${verified.stderr.trim().split("\n")[0] ?? "failed"}`);
    }
    const heads = text(await git(["bundle", "list-heads", file])).split("\n").filter(Boolean);
    if (heads.length !== 1 || heads[0] !== `${state.head} HEAD`) {
      throw refuse("the bundle must hold exactly one ref, HEAD, at the commit named");
    }
    await git(
      ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", file, "HEAD"],
      { config: ["fetch.fsckObjects=true", "transfer.fsckObjects=true"] },
    ).catch((e) => {
      throw refuse(`its objects did not pass git fsck: ${firstLine(e)}`);
    });
  }
  if (state.head) {
    const known = await git(["cat-file", "-e", `${state.head}^{commit}`], { okCodes: [0, 1, 128] });
    if (known.code !== 0) {
      throw new ObservalError(
        "FAILED_PRECONDITION",
        `The served repository does not have the sender's HEAD ${state.head.slice(0, 12)}`,
        { remediation: "Push that commit where the server can fetch it, or send a bundle" },
      );
    }
    await git(["checkout", "--detach", "--quiet", state.head]);
  }
  if (state.changes) {
    await git(["apply", "--binary", "--whitespace=nowarn"], { input: state.changes }).catch(
      (e) => {
        throw refuse(`its changes do not apply: ${firstLine(e)}`);
      },
    );
  }
  for (const [i, patch] of (options.patches ?? []).entries()) {
    await git(["apply", "--binary", "--whitespace=nowarn"], { input: patch }).catch((e) => {
      throw new ObservalError(
        "FAILED_PRECONDITION",
        `An earlier run's changes (${i + 1} of ${options.patches!.length}) no longer apply: ` +
          firstLine(e),
        { remediation: "Start a new conversation (send the message without its contextId)" },
      );
    });
  }
  return folderIn(into, state.path);
}

/** `path` under `top` when it is a plain relative path to a folder there, else `top`. */
function folderIn(top: string, path: string): string {
  if (path === "" || isAbsolute(path) || path.split("/").some((p) => p === ".." || p === "")) {
    return top;
  }
  const dir = join(top, ...path.split("/"));
  try {
    const real = realpathSync(dir);
    const rel = relative(top, real);
    if (statSync(real).isDirectory() && rel && !rel.startsWith("..") && !isAbsolute(rel)) {
      return real;
    }
  } catch { /* not made by the changes or the commit: the top it is */ }
  return top;
}
