/**
 * What the local-run benches share: the `--runs` flag, the stand-in harness, a timed
 * `delegate run` through each way observal is installed, and medians.
 * @module
 */
import process from "node:process";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { LocalPlayground } from "../tests/support/local_delegation.ts";
import { MAIN } from "../tests/support/process.ts";
import { PROJECT_NODE } from "../tests/packaging/_node_versions.ts";

/** How observal is started: the command line before its own arguments. */
export interface Launcher {
  name: string;
  argv: string[];
}

/** From source, as `deno run -A main.ts`. */
export const SOURCE: Launcher = { name: "source", argv: [Deno.execPath(), "run", "-A", MAIN] };

/**
 * The other ways observal is installed, built into the repository's tmp/ (Node finds the
 * npm package's dependencies in node_modules from there, as after an install):
 *
 * - binary: the bundle `compile.sh` embeds, run as the binary runs it (see
 *   {@linkcode bundleAsBinary}; a binary cannot be compiled here: its runtime is downloaded);
 * - npm: the package `scripts/build_npm.ts` builds, run by the project's Node 24.
 */
export function installWays(): { launchers: Launcher[]; remove(): void } {
  const root = join(import.meta.dirname!, "..");
  // tmp/ is not in a fresh clone.
  mkdirSync(join(root, "tmp"), { recursive: true });
  const dir = mkdtempSync(join(root, "tmp", "bench-ways-"));
  try {
    const bundle = join(dir, "bundle");
    execFileSync("bash", ["compile.sh", "--bundle", bundle], { cwd: root, stdio: "pipe" });
    const npm = join(dir, "npm");
    execFileSync(Deno.execPath(), ["run", "-A", "scripts/build_npm.ts", "--out", npm], {
      cwd: root,
      stdio: "pipe",
    });
    return {
      launchers: [
        {
          name: "binary",
          argv: bundleAsBinary(root, bundle),
        },
        { name: "npm", argv: [PROJECT_NODE, join(npm, "bin", "observal.mjs")] },
      ],
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * `deno run` of the bundle in `dir` as the binary runs it: with the permissions and V8 flags
 * the checkout at `root` compiles it with (none that its `compile.sh` does not name), and
 * without a code cache. A compiled binary caches the compiled code only of the modules it
 * loads at startup, not of those it imports dynamically (denoland/deno#26528), and our entry
 * imports everything but the version answer dynamically; `deno run` would cache them all.
 */
export function bundleAsBinary(root: string, dir: string): string[] {
  const script = readFileSync(join(root, "compile.sh"), "utf8");
  const array = (name: string) =>
    script.match(new RegExp(`^${name}=\\((.*)\\)$`, "m"))?.[1].split(/\s+/).filter(Boolean) ?? [];
  return [
    Deno.execPath(),
    "run",
    "--no-config",
    "--no-code-cache",
    ...array("PERMS"),
    ...array("V8"),
    join(dir, "observal.mjs"),
  ];
}

/** Rounds to run: `--runs N`, 9 by default. */
export function runsFlag(): number {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { runs: { type: "string", default: "9" } },
  });
  return Number(values.runs);
}

/** Edits the copy and prints Claude's JSON result, as `claude -p` would. */
export const STAND_IN = `#!/bin/sh
cat > /dev/null
printf 'edited\\n' >> edit.txt
printf '{"type":"result","result":"Done.","is_error":false,"session_id":"s"}\\n'
`;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * Milliseconds of one `observal delegate run` of the playground's Agent through the
 * stand-in harness, from process start to exit, as a person runs it from the repository.
 */
export function timedDelegateRun(
  pg: LocalPlayground,
  sandbox: "on" | "off",
  launcher: Launcher = SOURCE,
  env: Record<string, string> = {},
): number {
  const [program, ...pre] = launcher.argv;
  const t = performance.now();
  const r = spawnSync(program, [
    ...pre,
    "delegate",
    "run",
    pg.identifier,
    "--harness",
    "claude-code",
    "--sandbox",
    sandbox,
    "--json",
    "--",
    "Edit it.",
  ], { cwd: pg.repo, env: { ...pg.env, ...env } as Record<string, string>, encoding: "utf8" });
  const ms = performance.now() - t;
  if (r.status !== 0) {
    throw new Error(`${launcher.name}: delegate run --sandbox ${sandbox}: ${r.stdout}${r.stderr}`);
  }
  return ms;
}
