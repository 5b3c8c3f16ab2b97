/**
 * Real git repositories in private temp dirs for the workspace tests, and the checks the
 * tests share: a byte-for-byte snapshot of a folder, and the round trip (the patch applied
 * to a copy of the caller's repository reproduces the agent's tree).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import assert from "node:assert/strict";

/** A private temp dir with its own HOME (no machine-wide git config) and observal home. */
export interface Sandbox {
  dir: string;
  /** The observal home. */
  home: string;
  /** Environment for git in tests and for createWorkspace. */
  env: Record<string, string>;
  [Symbol.dispose](): void;
}

/** Makes a sandbox; `using sb = sandbox()` removes it at the end of the test. */
export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), "observal-ws-test-"));
  const userHome = join(dir, "user");
  mkdirSync(userHome);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: userHome,
    XDG_CONFIG_HOME: join(userHome, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Test Author",
    GIT_AUTHOR_EMAIL: "author@example.test",
    GIT_COMMITTER_NAME: "Test Committer",
    GIT_COMMITTER_EMAIL: "committer@example.test",
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
    LC_ALL: "C",
    // Never find a repository above the sandbox (the temp dir could sit inside one).
    GIT_CEILING_DIRECTORIES: dirname(dir),
  };
  return {
    dir,
    home: join(dir, "observal"),
    env,
    [Symbol.dispose]() {
      makeWritable(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs git in `cwd`; returns stdout as text. Throws on a non-zero exit. */
export function git(cwd: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
}

/** Runs git in `cwd` and ignores a failure (an agent's git command may fail). */
export function gitMaybe(cwd: string, env: Record<string, string>, ...args: string[]): void {
  try {
    execFileSync("git", args, { cwd, env, stdio: ["ignore", "ignore", "ignore"] });
  } catch {
    // Not our concern here.
  }
}

/** `git init` a fresh repository at `dir/name` on branch main. */
export function initRepo(sb: Sandbox, name = "repo"): string {
  const repo = join(sb.dir, name);
  mkdirSync(repo, { recursive: true });
  git(repo, sb.env, "init", "-q", "-b", "main");
  return repo;
}

/** Commits everything in `repo` (including deletions). */
export function commitAll(repo: string, env: Record<string, string>, message = "commit"): void {
  git(repo, env, "add", "-A");
  git(repo, env, "commit", "-q", "--allow-empty", "-m", message);
}

/** Writes a file (making parent folders), optionally with a mode. */
export function write(path: string, content: string | Uint8Array, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true });
  writeFileSync(path, content);
  if (mode !== undefined) chmodSync(path, mode);
}

/** Makes a symlink (replacing whatever is there). */
export function link(target: string, path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true, recursive: true });
  symlinkSync(target, path);
}

/**
 * Every entry under `dir` with its type, permission bits, content hash or link target,
 * and modification time: two equal snapshots mean nothing was written. Only the times of
 * object files are left out: when the copy stores an object the caller already has, git
 * "freshens" the caller's file (a utime, so gc keeps it); its bytes never change.
 */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    const abs = rel ? join(dir, rel) : dir;
    for (const e of readdirSync(abs).sort()) {
      const r = rel ? `${rel}/${e}` : e;
      const p = join(dir, r);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.set(r, `link ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.set(r, `dir ${(st.mode & 0o7777).toString(8)} ${st.mtimeMs}`);
        walk(r);
      } else {
        const hash = createHash("sha256").update(readFileSync(p)).digest("hex");
        const time = /(^|\/)\.git\/objects\//.test(r) ? "" : ` ${st.mtimeMs}`;
        out.set(r, `file ${(st.mode & 0o7777).toString(8)} ${hash}${time}`);
      }
    }
  };
  walk("");
  return out;
}

/** Asserts two snapshots are equal, naming the first paths that differ. */
export function assertSameSnapshot(
  before: Map<string, string>,
  after: Map<string, string>,
  what: string,
): void {
  const diffs: string[] = [];
  for (const k of new Set([...before.keys(), ...after.keys()])) {
    if (before.get(k) !== after.get(k)) {
      diffs.push(`${JSON.stringify(k)}: ${before.get(k)} -> ${after.get(k)}`);
    }
  }
  assert.deepEqual(diffs, [], `${what} changed:\n${diffs.slice(0, 10).join("\n")}`);
}

/**
 * The files and symlinks of a working tree (outside `.git` and outside nested repositories)
 * as path -> "file <x|-> <sha256>" or "link <target>".
 */
export function treeFiles(top: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    const abs = rel ? join(top, rel) : top;
    const names = readdirSync(abs);
    if (rel && names.includes(".git")) return; // a nested repository or submodule
    for (const e of names) {
      if (!rel && e === ".git") continue;
      const r = rel ? `${rel}/${e}` : e;
      const p = join(top, r);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.set(r, `link ${readlinkSync(p)}`);
      else if (st.isDirectory()) walk(r);
      else if (st.isFile()) {
        const hash = createHash("sha256").update(readFileSync(p)).digest("hex");
        out.set(r, `file ${st.mode & 0o111 ? "x" : "-"} ${hash}`);
      }
    }
  };
  walk("");
  return out;
}

/** The paths among `paths` that the repository at `top` ignores (tracked files never are). */
export function ignoredPaths(
  top: string,
  env: Record<string, string>,
  paths: string[],
): Set<string> {
  if (paths.length === 0) return new Set();
  let out = "";
  try {
    out = execFileSync("git", ["check-ignore", "-z", "--stdin"], {
      cwd: top,
      env,
      input: paths.join("\0") + "\0",
      encoding: "utf8",
    });
  } catch (err) {
    // Exit code 1: none of them is ignored.
    if ((err as { status?: number }).status !== 1) throw err;
  }
  return new Set(out.split("\0").filter(Boolean));
}

/** A copy of the caller's repository (working tree and .git) in the sandbox. */
export function copyRepo(sb: Sandbox, repo: string): string {
  const dest = mkdtempSync(join(sb.dir, "applied-"));
  execFileSync("cp", ["-a", `${repo}/.`, dest]);
  return dest;
}

/**
 * Applies `patch` with plain `git apply` at the top of a copy of the caller's repository
 * and asserts the result has the same visible files as the agent's tree: ignored files
 * (by the caller's rules) and setup paths are left out of the comparison.
 */
export function assertRoundTrip(
  sb: Sandbox,
  repo: string,
  worktree: string,
  patch: Uint8Array,
  setupPaths: readonly string[] = [],
): void {
  const applied = copyRepo(sb, repo);
  if (patch.byteLength > 0) {
    const file = join(sb.dir, `patch-${Math.random().toString(36).slice(2)}.patch`);
    writeFileSync(file, patch);
    try {
      execFileSync("git", ["apply", file], { cwd: applied, env: sb.env, stdio: "pipe" });
    } catch (err) {
      const e = err as { stderr?: Uint8Array };
      throw new Error(
        `git apply failed: ${new TextDecoder().decode(e.stderr ?? new Uint8Array())}\n` +
          new TextDecoder().decode(patch),
      );
    }
  }
  const isSetup = (p: string) => setupPaths.some((s) => p === s || p.startsWith(`${s}/`));
  const got = treeFiles(applied);
  const want = treeFiles(worktree);
  const all = [...new Set([...got.keys(), ...want.keys()])].filter((p) => !isSetup(p));
  const ignored = ignoredPaths(applied, sb.env, all);
  const pick = (m: Map<string, string>) =>
    Object.fromEntries(all.filter((p) => !ignored.has(p)).sort().map((p) => [p, m.get(p)]));
  assert.deepEqual(pick(got), pick(want), "the patched caller differs from the agent's tree");
  rmSync(applied, { recursive: true, force: true });
}

function makeWritable(dir: string): void {
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.isSymbolicLink()) return;
    chmodSync(dir, 0o700);
    for (const e of readdirSync(dir)) makeWritable(join(dir, e));
  } catch {
    // Best effort before removal.
  }
}
