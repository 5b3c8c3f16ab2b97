/**
 * A `git` on PATH that logs each call's subcommand and first argument, then runs the real
 * git: the tests count the git processes the workspace steps start.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, write } from "./_helpers.ts";

export interface GitLog {
  /** The sandbox's env with the logging git first on PATH. */
  env: Record<string, string>;
  /** `<subcommand> <first argument>` per call, in the order they started. */
  calls(): string[];
  clear(): void;
}

export function gitLog(sb: Sandbox): GitLog {
  const real = execFileSync("sh", ["-c", "command -v git"], { env: sb.env, encoding: "utf8" })
    .trim();
  const bin = join(sb.dir, "git-log-bin");
  const file = join(sb.dir, "git-calls.log");
  // `-c key=value` pairs come first; one short line per call is one atomic append.
  write(
    join(bin, "git"),
    `#!/bin/sh
sub() { while [ "$1" = "-c" ]; do shift 2; done; printf '%s %s\\n' "$1" "$2"; }
sub "$@" >> '${file}'
exec '${real}' "$@"
`,
    0o755,
  );
  return {
    env: { ...sb.env, PATH: `${bin}:${sb.env.PATH}` },
    calls() {
      try {
        return readFileSync(file, "utf8").split("\n").filter(Boolean);
      } catch {
        return [];
      }
    },
    clear() {
      rmSync(file, { force: true });
    },
  };
}
