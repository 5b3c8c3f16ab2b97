/**
 * The one way this folder runs git: an argv array (never a shell), a clean environment,
 * hooks and fsmonitor off, a time limit and bounded output. Private to lib/workspace.
 * @module
 */
import { concatBytes, ObservalError, toObservalError } from "../core/mod.ts";
import { hostPlatform, startPipedProgram } from "../core/system/mod.ts";
import type { GitSettings } from "./types.ts";

/** Default limit for one git call. */
export const GIT_TIMEOUT_MS = 120_000;
/** Default cap on what one git call may print on stdout. */
export const GIT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** How much of stderr is kept (the head: git says what went wrong first). */
const STDERR_KEEP_BYTES = 64 * 1024;
/** How much of stderr an error message quotes. */
const STDERR_QUOTE_CHARS = 300;

// Variables that may reach git: where the user's own config lives and how git is found.
// Everything else named GIT_* is dropped: GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE,
// GIT_OBJECT_DIRECTORY, GIT_NAMESPACE, GIT_CONFIG_PARAMETERS, GIT_LITERAL_PATHSPECS,
// GIT_DIFF_OPTS, GIT_EXTERNAL_DIFF... would point git at another repository or change
// what our plumbing prints.
const KEPT = new Set([
  "PATH",
  "HOME",
  "XDG_CONFIG_HOME",
  "TMPDIR",
  "USERPROFILE",
  "HOMEDRIVE",
  "HOMEPATH",
  "SYSTEMROOT",
  "SystemRoot",
  "COMSPEC",
  "PATHEXT",
  "TEMP",
  "TMP",
  "GIT_EXEC_PATH",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
]);

/**
 * The environment every git call gets: the few variables git needs from `env`, plus
 * settings that keep git quiet, read-only where it can be, and off the network.
 */
export function gitEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && KEPT.has(k)) out[k] = v;
  }
  return {
    ...out,
    // Never rewrite an index opportunistically (the caller's must stay byte for byte).
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_LFS_SKIP_SMUDGE: "1",
    // The copy does not carry refs/replace; both sides must see the same objects.
    GIT_NO_REPLACE_OBJECTS: "1",
    // Stable messages: we match "not a git repository" below.
    LC_ALL: "C",
    LANGUAGE: "C",
  };
}

/** Config every call gets, before the subcommand. */
export const ALWAYS_CONFIG: readonly string[] = [
  // An empty hooks path would read hooks from "/"; /dev/null can hold none.
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
];

/** Options for {@linkcode runGit}. */
export interface RunGitOptions {
  /** Directory git runs in. */
  cwd: string;
  settings: Pick<GitSettings, "env" | "timeoutMs">;
  /** Extra `-c key=value` pairs. */
  config?: readonly string[];
  /** Variables added to the settings' env for this call (GIT_INDEX_FILE, GIT_DIR...). */
  env?: Readonly<Record<string, string>>;
  /** Bytes written to git's stdin. */
  input?: Uint8Array | string;
  /** Exit codes that are answers, not failures (1 for `config --get`). @default [0] */
  okCodes?: readonly number[];
  /** @default GIT_MAX_OUTPUT_BYTES */
  maxOutputBytes?: number;
  /** Builds the error thrown when stdout passes `maxOutputBytes`. */
  tooLarge?: (cap: number) => ObservalError;
  /**
   * Receives stdout chunk by chunk instead of collecting it: `stdout` in the result is then
   * empty and `maxOutputBytes` does not apply (the receiver bounds what it keeps). A throw
   * stops git, and the call fails with it.
   */
  onStdout?: (chunk: Uint8Array) => void;
  signal?: AbortSignal;
}

/** What a git call printed, and how it ended. */
export interface GitResult {
  code: number;
  stdout: Uint8Array;
  stderr: string;
}

/** Runs `git <args>` and resolves when it exits with an accepted code. */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<GitResult> {
  const sub = args[0] ?? "";
  const argv = [...ALWAYS_CONFIG, ...(options.config ?? [])].flatMap((c) => ["-c", c]);
  argv.push(...args);
  const cap = options.maxOutputBytes ?? GIT_MAX_OUTPUT_BYTES;
  const okCodes = options.okCodes ?? [0];
  const signal = options.signal;
  return new Promise<GitResult>((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled(sub, signal.reason));
      return;
    }
    const out: Uint8Array[] = [];
    let outBytes = 0;
    const err: Uint8Array[] = [];
    let errBytes = 0;
    let failure: ObservalError | undefined;
    const stop = (e: ObservalError) => {
      failure ??= e;
      git.kill();
    };
    // On POSIX systems git runs in a session of its own: a Ctrl-C at the terminal of a
    // command that runs a task itself stops the command's wait, never the git working
    // for the task.
    const git = startPipedProgram("git", argv, {
      cwd: options.cwd,
      env: { ...options.settings.env, ...options.env },
      detached: hostPlatform() !== "win32",
      input: options.input,
      onStdout: (chunk) => {
        if (failure) return;
        if (options.onStdout) {
          try {
            options.onStdout(chunk);
          } catch (e) {
            stop(toObservalError(e));
          }
          return;
        }
        outBytes += chunk.byteLength;
        if (outBytes > cap) {
          stop(
            options.tooLarge?.(cap) ??
              new ObservalError(
                "RESOURCE_EXHAUSTED",
                `git ${sub} printed more than the ${formatBytes(cap)} cap`,
              ),
          );
          return;
        }
        out.push(chunk);
      },
      onStderr: (chunk) => {
        if (errBytes < STDERR_KEEP_BYTES) err.push(chunk);
        errBytes += chunk.byteLength;
      },
    });
    const timer = setTimeout(
      () =>
        stop(
          new ObservalError(
            "UNAVAILABLE",
            `git ${sub} did not finish within ${options.settings.timeoutMs / 1000} s`,
            { remediation: "Check the repository for a lock or a very slow file system" },
          ),
        ),
      options.settings.timeoutMs,
    );
    const onAbort = () => stop(cancelled(sub, signal?.reason));
    signal?.addEventListener("abort", onAbort, { once: true });
    git.ended.then(
      ({ code, signal: sig }) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (failure) return reject(failure);
        const stderr = new TextDecoder().decode(concatBytes(err));
        if (code === null || !okCodes.includes(code)) {
          const why = stderr.trim().slice(0, STDERR_QUOTE_CHARS) ||
            (code === null ? `killed by ${sig}` : `exit code ${code}`);
          return reject(
            new ObservalError("INTERNAL", `git ${sub} failed: ${why}`, {
              remediation: "Check the repository with `git status`, then try again",
            }),
          );
        }
        resolve({ code, stdout: concatBytes(out), stderr });
      },
      (e) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        reject(
          failure ?? new ObservalError(
            "UNAVAILABLE",
            `git ${sub} could not be started: ${e instanceof Error ? e.message : e}`,
            { remediation: "Check that git is installed and on PATH", cause: e },
          ),
        );
      },
    );
  });
}

/** stdout as text, without the final newline. */
export function text(result: GitResult): string {
  return new TextDecoder().decode(result.stdout).replace(/\n$/, "");
}

/** stdout split on NUL (for `-z` output), without the empty tail. */
export function nulFields(result: GitResult): string[] {
  const all = new TextDecoder().decode(result.stdout);
  const parts = all.split("\0");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** `64 MiB`, `512 KiB`, `100 B`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} B`;
}

/** A size for people: `100 MiB`, `57.2 MiB`, `3.1 KiB`, `100 B`. */
export function approxBytes(n: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  if (n < 1024) return `${n} B`;
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1).replace(/\.0$/, "")} ${units[i]}`;
}

function cancelled(sub: string, reason: unknown): ObservalError {
  return new ObservalError("UNAVAILABLE", `git ${sub} was cancelled`, { cause: reason });
}

/**
 * Patch flags that fix the output whatever the repository's config says (the user's, or
 * what an agent set in its copy: diff.noprefix, diff.external, color.ui...): plain a/ b/
 * prefixes, full blob ids, binary data inline, three lines of context, no renames, no
 * colour, no external or textconv drivers, no order file.
 */
export const PATCH_FORMAT: readonly string[] = [
  "--binary",
  "--full-index",
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--no-renames",
  "--no-relative",
  "--src-prefix=a/",
  "--dst-prefix=b/",
  "-U3",
  "-O/dev/null",
];
