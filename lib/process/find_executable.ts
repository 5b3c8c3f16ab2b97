/**
 * Looks a program up on PATH the way a shell would, without running a shell.
 * @module
 */
import { hostPlatform, isAbsolute, join, statPath } from "../core/system/mod.ts";

/** Options for {@linkcode findExecutable}. */
export interface FindExecutableOptions {
  /** The PATH to search (not the process's own: the Context's environment decides). */
  path?: string;
  /** Windows extensions to try, `;`-separated. @default ".COM;.EXE;.BAT;.CMD" */
  pathExt?: string;
  /** @default process.platform */
  platform?: NodeJS.Platform;
}

function isExecutableFile(path: string, windows: boolean): boolean {
  // Mode bits rather than access(2): under Deno that needs uid access, and a worker that
  // may only read a few paths still has to find its harness. No bits: not executable.
  const stat = statPath(path);
  return stat !== undefined && stat.isFile && (windows || ((stat.mode ?? 0) & 0o111) !== 0);
}

/**
 * The absolute path of the first executable named `name` on PATH, or undefined.
 *
 * @param name a bare program name such as `claude`; a path containing a separator is
 *   checked as given
 * @param options the PATH to search and the platform's rules
 * @returns the absolute path, or undefined when there is none
 *
 * @example
 * ```ts
 * findExecutable("git", { path: "/usr/bin:/bin" }); // "/usr/bin/git" on most Linux systems
 * ```
 */
export function findExecutable(
  name: string,
  options: FindExecutableOptions = {},
): string | undefined {
  const platform = options.platform ?? hostPlatform();
  const windows = platform === "win32";
  if (!name || name.includes("\0")) return undefined;
  const exts = windows
    ? ["", ...(options.pathExt ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean)]
    : [""];
  if (name.includes("/") || (windows && name.includes("\\"))) {
    if (!isAbsolute(name)) return undefined;
    return exts.map((e) => name + e).find((p) => isExecutableFile(p, windows));
  }
  for (const dir of (options.path ?? "").split(windows ? ";" : ":")) {
    // An empty PATH entry means the current directory to a shell; never search it.
    if (!dir || !isAbsolute(dir)) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (isExecutableFile(candidate, windows)) return candidate;
    }
  }
  return undefined;
}
