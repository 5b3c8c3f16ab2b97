/**
 * What the local-run benches share: the `--runs` flag, the stand-in harness, a timed
 * `delegate run` and medians.
 * @module
 */
import process from "node:process";
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import type { LocalPlayground } from "../tests/support/local_delegation.ts";
import { MAIN } from "../tests/support/process.ts";

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
export function timedDelegateRun(pg: LocalPlayground, sandbox: "on" | "off"): number {
  const t = performance.now();
  const r = spawnSync(Deno.execPath(), [
    "run",
    "-A",
    MAIN,
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
  ], { cwd: pg.repo, env: pg.env as Record<string, string>, encoding: "utf8" });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`delegate run --sandbox ${sandbox}: ${r.stdout}${r.stderr}`);
  return ms;
}
