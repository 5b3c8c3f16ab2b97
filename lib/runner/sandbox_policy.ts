/**
 * What a sandboxed harness child may write and see, as real paths, independent of the tool
 * that enforces it (bubblewrap on Linux, Seatbelt on macOS). Everything is read-only but
 * the child's copy, its task folder (and its broker socket's folder, when that is apart), a
 * private temp folder and the harness's own state; the usual credential stores and what
 * observal keeps in OBSERVAL_HOME are hidden.
 * @module
 */
import {
  isWithin,
  join,
  lstatPath,
  makeDir,
  realPath,
  realPathOrLexical,
} from "../core/system/mod.ts";
import type { Env } from "../core/mod.ts";
import { madeAgentsSocketFolder } from "../workspace/roots/mod.ts";

/**
 * Credential stores hidden from the child, relative to the home folder. A harness's own
 * state is never hidden, even when it lies inside one of these.
 */
export const SECRET_PATHS: readonly string[] = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".vault-token",
  ".terraform.d",
  ".password-store",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".config/gcloud",
  ".config/gh",
  ".config/hub",
  ".local/share/keyrings",
];

/** What the sandbox is built from. */
export interface SandboxPolicyInput {
  /** The child's environment: `HOME` and the variables state paths name. */
  env: Env;
  /** The workspace root (the copy and its scratch folder). */
  workspaceRoot: string;
  /** The task's folder (logs, the patch). */
  taskDir: string;
  /** What {@linkcode sandboxMounts} found when the task started. */
  mounts: SandboxMounts;
  /**
   * Folders the child must still read when they lie under the private temp folder: the
   * caller's repository (the copy borrows its objects), the harness binary's folder.
   */
  readable?: readonly string[];
}

/** A path the child must not see, and whether it is a folder (masked empty) or a file. */
export interface HiddenPath {
  path: string;
  kind: "dir" | "file";
}

/**
 * The parts of the policy that come from the user's home: the harness's state (real
 * paths, folders made) and the credential stores present. Found by the caller when the
 * task starts, so the worker never needs to look at the home's secrets itself.
 */
export interface SandboxMounts {
  /** `OBSERVAL_HOME`, real (a fenced worker may not resolve it itself). */
  observalHome: string;
  state: string[];
  hidden: HiddenPath[];
}

/**
 * What observal keeps in OBSERVAL_HOME, relative to it: the task store and every task's
 * folder and copy, the config (a registry key), the embedded registry, the lock files.
 */
export const OBSERVAL_STATE: readonly string[] = [
  "delegations",
  "config.json",
  "registry.db",
  "registry.db-wal",
  "registry.db-shm",
  "lockfile.json",
  "capability_lock.jsonl",
  "sandbox-probe.json",
];

/** The sandbox's rules, every path real (links resolved), none nested in a duplicate. */
export interface SandboxPolicy {
  /** The home folder, real. */
  home?: string;
  /**
   * OBSERVAL_HOME, or what observal keeps in it: masked before the writable places are
   * mounted, since the child's copy and task folder lie inside.
   */
  masked: HiddenPath[];
  /** What the child must still read inside a masked place: shown again, read-only. */
  shown: string[];
  /** Writable, in the order they must be mounted (a folder before anything inside it). */
  writable: string[];
  /** Read-only, re-exposed under the private temp folder where needed. */
  readable: string[];
  /** Hidden credential stores. */
  hidden: HiddenPath[];
}

/**
 * Expands a state path: `~` is the home folder, `${VAR:-default}` a variable or its
 * fallback, `${VAR}` a variable (the entry is dropped when it is unset). Undefined when
 * the result is not absolute.
 *
 * @example
 * ```ts
 * expandStatePath("${CODEX_HOME:-~/.codex}/", { HOME: "/home/me" }); // "/home/me/.codex/"
 * ```
 */
export function expandStatePath(template: string, env: Env): string | undefined {
  const home = env.HOME;
  let unset = false;
  const withVars = template.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_all, name: string, fallback: string | undefined) => {
      const value = env[name];
      if (value) return value;
      if (fallback === undefined) unset = true;
      return fallback ?? "";
    },
  );
  if (unset) return undefined;
  const path = withVars.replace(/^~(?=\/|$)/, () => home ?? "~");
  return path.startsWith("/") ? path : undefined;
}

/** Drops duplicates and paths inside another entry; parents sort before children. */
function outermost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const p of sorted) if (!out.some((o) => isWithin(p, o))) out.push(p);
  return out;
}

/**
 * The harness's state folders and files, real, with missing folders made (0700) so they
 * can be mounted writable. A file that does not exist, or a folder that cannot be made,
 * is left out: the harness then sees that place read-only.
 */
export function stateMounts(statePaths: readonly string[], env: Env): string[] {
  const out: string[] = [];
  for (const template of statePaths) {
    const expanded = expandStatePath(template, env);
    if (!expanded) continue;
    const folder = expanded.endsWith("/");
    const path = folder ? expanded.replace(/\/+$/, "") : expanded;
    if (!path) continue;
    if (folder && !lstatPath(path)) {
      try {
        makeDir(path, 0o700);
      } catch {
        continue;
      }
    }
    const real = realPath(path);
    const st = real ? lstatPath(real) : undefined;
    if (!real || !st || (folder ? !st.isDirectory : !st.isFile)) continue;
    out.push(real);
  }
  return out;
}

/**
 * The credential stores present under `home`, real, except those that hold or lie inside
 * a writable path (a harness's own state stays visible).
 */
export function hiddenSecrets(home: string, writable: readonly string[]): HiddenPath[] {
  const out: HiddenPath[] = [];
  for (const rel of SECRET_PATHS) {
    const real = realPath(join(home, rel));
    const st = real ? lstatPath(real) : undefined;
    if (!real || !st) continue;
    if (writable.some((w) => isWithin(w, real) || isWithin(real, w))) continue;
    out.push({ path: real, kind: st.isDirectory ? "dir" : "file" });
  }
  return out;
}

/**
 * The sandbox's rules for one run. Folders that do not exist yet are made (state folders
 * only); every path comes back real, so a home or repository reached through a link is
 * mounted where the kernel will look for it.
 */
export function sandboxPolicy(input: SandboxPolicyInput): SandboxPolicy {
  const home = input.env.HOME ? realPathOrLexical(input.env.HOME) : undefined;
  // The broker's socket, when the task folder is too deep to hold it (agents_socket.ts).
  const socketFolder = madeAgentsSocketFolder(input.taskDir);
  const writable = outermost([
    realPathOrLexical(input.workspaceRoot),
    realPathOrLexical(input.taskDir),
    ...(socketFolder ? [realPathOrLexical(socketFolder)] : []),
    ...input.mounts.state,
  ]);
  const reads = (input.readable ?? []).map(realPathOrLexical);
  const readable = outermost([...(home ? [home] : []), ...reads])
    .filter((r) => lstatPath(r) && !writable.some((w) => isWithin(r, w)));
  return {
    home,
    ...observalMasks(input.mounts.observalHome, home, [...reads, ...input.mounts.state]),
    writable,
    readable,
    hidden: input.mounts.hidden.filter((h) => !writable.some((w) => isWithin(w, h.path))),
  };
}

/**
 * How OBSERVAL_HOME is kept from the child: masked whole, or, when it holds the user's own
 * files (it is, or holds, the home; a repository the child reads holds it), each of
 * observal's own entries. What the child must still read inside it
 * (the parent's copy, whose objects a nested task's copy borrows; a program kept there) is
 * shown again, read-only. The child delegates through the broker outside
 * (agents_broker.ts), so nothing else there is its business: other tasks' copies and
 * results, the registry, the config's key.
 */
function observalMasks(
  observalHome: string,
  home: string | undefined,
  needed: readonly string[],
): { masked: HiddenPath[]; shown: string[] } {
  if (!lstatPath(observalHome)) return { masked: [], shown: [] };
  const holdsTheUsers = (home !== undefined && isWithin(home, observalHome)) ||
    needed.some((n) => isWithin(observalHome, n));
  const masked: HiddenPath[] = holdsTheUsers
    // Only observal's own entries: whatever else the folder holds is the user's.
    ? OBSERVAL_STATE.map((name) => join(observalHome, name)).flatMap((path) => {
      const st = lstatPath(path);
      return st ? [{ path, kind: st.isDirectory ? "dir" as const : "file" as const }] : [];
    })
    : [{ path: observalHome, kind: "dir" }];
  const shown = outermost(
    needed.filter((n) => masked.some((m) => isWithin(n, m.path)) && lstatPath(n)),
  );
  return { masked, shown };
}

/**
 * The home's part of the policy ({@linkcode SandboxMounts}): the harness's state folders
 * (made when missing) and files, and the credential stores present, less those that hold
 * or lie inside the harness's state.
 */
export function sandboxMounts(
  env: Env,
  statePaths: readonly string[],
  observalHome: string,
): SandboxMounts {
  const state = stateMounts(statePaths, env);
  const home = env.HOME ? realPathOrLexical(env.HOME) : undefined;
  return {
    observalHome: realPathOrLexical(observalHome),
    state,
    hidden: home ? hiddenSecrets(home, state) : [],
  };
}
