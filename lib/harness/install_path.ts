/**
 * Where a generated config file goes on disk. Install snippets name files relative to the
 * target directory, or with `~/` for the user's home; this module turns those names into
 * real paths and refuses any name that would land outside its root, including through a
 * symbolic link that already exists on disk.
 * @module
 */
import { lstatSync, realpathSync, type Stats } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { ObservalError } from "../core/mod.ts";
import type { Scope } from "./registry.ts";

/** Options for {@linkcode resolveInstallPath}. */
export interface InstallPathOptions {
  /** The directory project files go to (absolute). */
  targetDir: string;
  /** At user scope `~/` means `home`; at project scope it is placed under `targetDir`. */
  scope: Scope;
  /** The user's home directory (absolute); needed only for `~/` paths at user scope. */
  home?: string;
}

/** A generated path, resolved and checked. */
export interface InstallPath {
  /** The path as the snippet wrote it. */
  raw: string;
  /**
   * The absolute path that will be written: every existing directory on the way with its
   * symbolic links resolved (and the file's own link target when the file is a link).
   */
  path: string;
  /** `path` relative to the real target directory, when it lies inside it. */
  relative?: string;
  /** The root the path was checked against: the real target directory or real home. */
  root: string;
  /** What is at `path` now: a regular file's stats, or undefined when nothing is there. */
  existing?: Stats;
}

function escapes(raw: string, why?: string): ObservalError {
  return new ObservalError(
    "INVALID_ARGUMENT",
    `Generated path escapes the target directory: ${raw}${why ? ` (${why})` : ""}`,
    {
      remediation:
        "Nothing was written. Pick a target directory without links that lead out of it, or report the agent's install config to the registry",
      resource: raw,
    },
  );
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new ObservalError("UNAVAILABLE", `Cannot inspect ${path}`, {
      cause: err,
      remediation: "Check the permissions of the target directory",
      resource: path,
    });
  }
}

function realRoot(dir: string, what: string): string {
  try {
    return realpathSync(dir);
  } catch (err) {
    throw new ObservalError("INVALID_ARGUMENT", `The ${what} ${dir} does not exist`, {
      cause: err,
      remediation: `Create ${dir} first, or choose an existing directory`,
      resource: dir,
    });
  }
}

/**
 * Resolves one generated path and checks that it stays inside its root.
 *
 * `~/x` becomes `home/x` at user scope and `targetDir/x` at project scope; any other
 * relative path is placed under `targetDir`. Absolute paths, backslashes, paths that climb
 * out with `..`, and paths whose deepest existing directory is a link leading outside the
 * root are refused. Nothing is created.
 *
 * @param raw the path from the install snippet
 * @param options target directory, scope and home
 * @returns the real path to write and, when inside the target, its relative form
 * @throws {ObservalError} INVALID_ARGUMENT when the path escapes its root or something
 *   other than a directory stands where a directory is needed
 *
 * @example
 * ```ts
 * const dir = Deno.makeTempDirSync();
 * const at = resolveInstallPath(".codex/config.toml", { targetDir: dir, scope: "project" });
 * at.relative; // ".codex/config.toml"
 * ```
 */
export function resolveInstallPath(raw: string, options: InstallPathOptions): InstallPath {
  if (typeof raw !== "string" || raw.trim() === "" || raw.includes("\0")) {
    throw escapes(String(raw), "empty or invalid path");
  }
  if (raw.includes("\\") || isAbsolute(raw) || /^[A-Za-z]:/.test(raw)) throw escapes(raw);

  const isHome = raw.startsWith("~/");
  let rest = isHome ? raw.slice(2) : raw;
  if (rest.startsWith("~")) throw escapes(raw, "only ~/ is understood");
  let rootDir = options.targetDir;
  if (isHome && options.scope === "user") {
    if (!options.home) {
      throw new ObservalError("INVALID_ARGUMENT", `No home directory to place ${raw} in`, {
        remediation: "Set HOME, or install at project scope",
        resource: raw,
      });
    }
    rootDir = options.home;
  }
  rest = rest.replace(/\/+$/, "");
  const root = realRoot(rootDir, rootDir === options.targetDir ? "target directory" : "home");
  const lexical = resolve(root, rest);
  if (!inside(root, lexical)) throw escapes(raw);

  // Walk down from the root: each existing component must stay inside once its links are
  // resolved, and every component but the last must be a directory.
  const parts = relative(root, lexical).split(sep);
  let real = root;
  let existing: Stats | undefined;
  for (let i = 0; i < parts.length; i++) {
    const next = join(real, parts[i]);
    const stat = lstatOrUndefined(next);
    if (stat === undefined) {
      real = join(next, ...parts.slice(i + 1));
      break;
    }
    let target = next;
    let resolved = stat;
    if (stat.isSymbolicLink()) {
      try {
        target = realpathSync(next);
      } catch {
        throw escapes(raw, `${next} is a broken symbolic link`);
      }
      if (!inside(root, target)) throw escapes(raw, `${next} links outside`);
      resolved = lstatSync(target);
    }
    const last = i === parts.length - 1;
    if (!last && !resolved.isDirectory()) {
      throw new ObservalError("INVALID_ARGUMENT", `Cannot create ${raw}: ${next} is not a folder`, {
        remediation: `Move ${next} out of the way, or choose another target directory`,
        resource: raw,
      });
    }
    if (last) {
      if (!resolved.isFile()) {
        throw new ObservalError(
          "INVALID_ARGUMENT",
          `Cannot write ${raw}: ${target} exists and is not a regular file`,
          { remediation: `Move ${target} out of the way and try again`, resource: raw },
        );
      }
      existing = resolved;
    }
    real = target;
  }
  if (!inside(root, real)) throw escapes(raw);
  const targetRoot = rootDir === options.targetDir ? root : realRoot(options.targetDir, "target");
  const rel = inside(targetRoot, real)
    ? relative(targetRoot, real).split(sep).join("/")
    : undefined;
  return { raw, path: real, root, existing, ...(rel === undefined ? {} : { relative: rel }) };
}
