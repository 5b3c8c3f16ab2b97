/**
 * What a local delegation costs over the harness itself, timed as the user runs it: the
 * real `observal delegate run` command, from process start to exit, on a small repository,
 * with a stand-in harness that edits one file and answers at once (a language model cannot
 * run here, so all that is left is observal's own work: the copy, the install, the sandbox,
 * the patch, all in the waiting command). Rows, medians of interleaved rounds:
 *
 * - bare harness: the stand-in run directly in a `git clone --shared` of the repository;
 * - delegate run --sandbox off, and --sandbox on (bubblewrap), each as overhead in ms over
 *   the bare harness and as a ratio to it;
 * - the sandbox's cost per run: on / off.
 *
 *   deno run -A bench/local.ts [--runs 9]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localPlayground } from "../tests/support/local_delegation.ts";
import { median, runsFlag, STAND_IN, timedDelegateRun } from "./_local_run.ts";

const runs = runsFlag();

const pg = await localPlayground();
const claude = pg.program("claude", STAND_IN);
const env = { ...(pg.env as Record<string, string>) };
const scratch = mkdtempSync(join(tmpdir(), "observal-bench-local-"));

function bare(): number {
  const copy = join(scratch, crypto.randomUUID());
  const t = performance.now();
  execFileSync("git", ["clone", "-q", "--shared", pg.repo, copy], { env });
  execFileSync(claude, [], { cwd: copy, env, input: "task" });
  const ms = performance.now() - t;
  rmSync(copy, { recursive: true, force: true });
  return ms;
}

try {
  // Warm-up: the probe's cache, Deno's module cache, the registry's first open.
  bare();
  timedDelegateRun(pg, "on");
  timedDelegateRun(pg, "off");
  const rows = { bare: [] as number[], off: [] as number[], on: [] as number[] };
  for (let i = 0; i < runs; i++) {
    rows.bare.push(bare());
    rows.off.push(timedDelegateRun(pg, "off"));
    rows.on.push(timedDelegateRun(pg, "on"));
  }
  const b = median(rows.bare);
  const off = median(rows.off);
  const on = median(rows.on);
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`local delegation on a small repository (${runs} interleaved rounds, medians)`);
  console.log(`  bare harness (clone --shared + stand-in)  ${fmt(b)}`);
  console.log(
    `  delegate run --sandbox off               ${fmt(off)}  +${fmt(off - b)}  ${
      (off / b).toFixed(2)
    }x`,
  );
  console.log(
    `  delegate run --sandbox on                ${fmt(on)}  +${fmt(on - b)}  ${
      (on / b).toFixed(2)
    }x`,
  );
  console.log(
    `  sandbox cost per run (on / off)          ${(on / off).toFixed(3)}x  +${fmt(on - off)}`,
  );
  console.log(
    `  goal: overhead with the sandbox on <= +250 ms: ${on - b <= 250 ? "holds" : "MISSED"}`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await pg.close();
}
