/**
 * What a local delegation costs over the harness itself, timed as the user runs it: the
 * real `observal delegate run` command, from process start to exit, on a small repository,
 * with a stand-in harness that edits one file and answers at once (a language model cannot
 * run here, so all that is left is observal's own work: the copy, the install, the sandbox,
 * the patch, all in the waiting command). Rows, medians of interleaved rounds:
 *
 * - bare harness: the stand-in run directly in a `git clone --shared` of the repository;
 * - delegate run from source (`deno run -A main.ts`), --sandbox off and --sandbox on
 *   (bubblewrap), each as overhead in ms over the bare harness and as a ratio to it;
 * - delegate run --sandbox on through the other ways observal is installed: the binary's
 *   bundle and the npm package on Node 24 (see `installWays`);
 * - delegate run --sandbox on through the resident runner (`OBSERVAL_RESIDENT=on`, what a
 *   person at a terminal gets from the second run on), each way: each row's runner is
 *   started and warmed by two runs before the rounds;
 * - the sandbox's cost per run: on / off, from source.
 *
 *   deno run -A bench/local.ts [--runs 9]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localPlayground } from "../tests/support/local_delegation.ts";
import {
  residentListening,
  residentRunners,
  stopResidentRunners,
} from "../tests/support/process.ts";
import { installWays, median, runsFlag, SOURCE, STAND_IN, timedDelegateRun } from "./_local_run.ts";

/** The resident runner wherever it can run, as `auto` gives it to a person at a terminal. */
const RESIDENT = { OBSERVAL_RESIDENT: "on" };

const runs = runsFlag();

const pg = await localPlayground();
const claude = pg.program("claude", STAND_IN);
const env = { ...(pg.env as Record<string, string>) };
const scratch = mkdtempSync(join(tmpdir(), "observal-bench-local-"));
const cleanups: (() => void)[] = [];

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
  const ways = installWays();
  cleanups.push(ways.remove);
  const rowsOf = [
    { label: "delegate run --sandbox off (source)", run: () => timedDelegateRun(pg, "off") },
    { label: "delegate run --sandbox on  (source)", run: () => timedDelegateRun(pg, "on") },
    ...ways.launchers.map((l) => ({
      label: `delegate run --sandbox on  (${l.name})`,
      run: () => timedDelegateRun(pg, "on", l),
    })),
    ...[SOURCE, ...ways.launchers].map((l) => ({
      label: `delegate run --sandbox on  (${l.name}, resident)`,
      run: () => timedDelegateRun(pg, "on", l, RESIDENT),
    })),
  ];
  // Warm-up: the probe's cache, Deno's module cache, the registry's first open; a resident
  // row's first run starts its runner, and its second is the runner's first.
  bare();
  for (const row of rowsOf) {
    const before = residentRunners(pg.home);
    row.run();
    if (!row.label.includes("resident")) continue;
    const started = () => residentRunners(pg.home).find((pid) => !before.includes(pid));
    for (let i = 0; i < 200 && !(started() && residentListening(started()!)); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!started()) throw new Error(`${row.label}: no runner started`);
    row.run();
  }
  const bares: number[] = [];
  const times: number[][] = rowsOf.map(() => []);
  for (let i = 0; i < runs; i++) {
    bares.push(bare());
    rowsOf.forEach((row, j) => times[j].push(row.run()));
  }
  const b = median(bares);
  const [off, on] = times.map(median);
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`local delegation on a small repository (${runs} interleaved rounds, medians)`);
  const label = (text: string) => `  ${text.padEnd(46)}`;
  console.log(`${label("bare harness (clone --shared + stand-in)")}${fmt(b)}`);
  rowsOf.forEach((row, j) => {
    const ms = median(times[j]);
    console.log(`${label(row.label)}${fmt(ms)}  +${fmt(ms - b)}  ${(ms / b).toFixed(2)}x`);
  });
  console.log(
    `${label("sandbox cost per run (on / off, source)")}${(on / off).toFixed(3)}x  +${
      fmt(on - off)
    }`,
  );
  console.log(
    `  goal: overhead with the sandbox on <= +250 ms, per way: ${
      rowsOf.slice(1).map((row, j) => {
        const over = median(times[j + 1]) - b;
        return `${row.label.match(/\((.*)\)/)![1]} ${over <= 250 ? "holds" : "MISSED"}`;
      }).join(", ")
    }`,
  );
} finally {
  for (const cleanup of cleanups) cleanup();
  await stopResidentRunners(pg.home);
  rmSync(scratch, { recursive: true, force: true });
  await pg.close();
}
