/**
 * The command line a running worker was really started with, and the same runtime and
 * flags pointed at the probe script instead of observal.
 * @module
 */
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readPid } from "../../lib/delegation/mod.ts";

/** The probe run in the worker's place. */
export const PROBE = fileURLToPath(new URL("./_probe.mjs", import.meta.url));

/** A worker's argv, read from /proc (Linux). */
export function workerArgv(taskDir: string): string[] {
  const pid = readPid(taskDir);
  if (pid === undefined) throw new Error(`no worker.pid in ${taskDir}`);
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
}

/** The values of a repeatable `--flag=a,b` in `argv`, split on commas; undefined if absent. */
export function flagValues(argv: readonly string[], flag: string): string[] | undefined {
  const found = argv.filter((a) => a === flag || a.startsWith(`${flag}=`));
  if (!found.length) return undefined;
  return found.flatMap((a) => a.includes("=") ? a.slice(flag.length + 1).split(",") : []);
}

/** One thing the probe tries. */
export type Check =
  & { name: string }
  & ({ read: string } | { write: string } | { fetch: string } | { run: string } | {
    sqlite: string;
  });

/**
 * Runs the probe with the worker's runtime and flags (its main module and arguments
 * replaced), from the worker's folder and with the worker's environment.
 *
 * @returns each check's verdict: "ok", "denied" or "error: …"
 */
export async function probeAs(
  argv: readonly string[],
  main: string,
  options: { cwd: string; env: Record<string, string>; checks: Check[] },
): Promise<Record<string, string>> {
  const at = argv.indexOf(main);
  if (at < 0) throw new Error(`${main} is not in ${argv.join(" ")}`);
  const [command, ...flags] = argv.slice(0, at);
  const out = await new Deno.Command(command, {
    args: [...flags, PROBE, JSON.stringify(options.checks)],
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    throw new Error(`probe exited ${out.code}: ${stdout}${new TextDecoder().decode(out.stderr)}`);
  }
  return JSON.parse(stdout);
}

/** The repository's main.ts: the module a `deno run` worker starts from a source checkout. */
export const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

const CHECKOUT = fileURLToPath(new URL("../..", import.meta.url));
const MODULES = join(CHECKOUT, "node_modules");

/**
 * What a `deno run` worker may read of the checkout it runs from, beyond its fence: its code,
 * its dependencies and the harness facts (deno.json has it load modules as commands need them).
 */
export const SOURCE_READS = [
  join(CHECKOUT, "lib"),
  MODULES,
  join(CHECKOUT, "harness_registry.json"),
  ...realpathSync(MODULES) === MODULES ? [] : [realpathSync(MODULES)],
];

/** `<home>/delegations/tasks.db` and the files SQLite keeps beside it. */
export function storeFiles(home: string): string[] {
  const db = join(home, "delegations", "tasks.db");
  return [db, `${db}-wal`, `${db}-shm`];
}
