/**
 * The caller's clean/smudge filters in the copy. The copy does not carry the
 * caller's config, so without this the agent would see, and send back, the stored form of
 * filtered files, and the patch would garble them in the caller's working tree.
 *
 * A filter is reproduced when it is a plain program with plain arguments that names
 * nothing inside the repository (`tr a-z n-za-m`): git then smudges it into the copy as
 * it does for the caller, cleans the agent's files back, and `git apply` in the caller
 * filters the patch the same way. Any other filter (a long-running `process`, git tools
 * such as git-lfs and git-crypt, whose objects and keys live in the caller's .git, shell
 * syntax, a script in the repository the agent could rewrite) is switched off in the copy,
 * and creating the copy is refused when any of the caller's files uses it. Filters the
 * agent configures in its copy are switched off too: our git commands run outside any
 * sandbox. Private to lib/workspace.
 * @module
 */
import { lstatSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { ObservalError } from "../core/mod.ts";
import { runGit } from "./_git.ts";
import type { GitSettings } from "./types.ts";

/** A filter driver as git config defines it (`filter.<name>.<key>`). */
interface Driver {
  clean?: string;
  smudge?: string;
  process?: string;
  required?: string;
}

/** What the copy does with the caller's filters. */
export interface FilterPlan {
  /** `-c` pins: reproduced drivers as the caller has them, every other one switched off. */
  config: string[];
  /** Names of the drivers reproduced in the copy. */
  reproduced: string[];
  /** Drivers switched off, with why, as a clause. */
  refused: Map<string, string>;
}

// Characters a reproduced command may hold: no expansion, redirection, chaining, globbing
// beyond brackets, or escapes. Quotes only group words.
const PLAIN = /^[A-Za-z0-9_%+=:,.@^/\[\]'" \t-]*$/;
// A name that `-c filter.<name>.<key>=<value>` passes through unchanged.
const PINNABLE = /^[^=\s\0]+$/;

/**
 * Decides each filter driver the caller's git config defines, from its config entries
 * (`key\nvalue`, as `readCallerConfig()` gives them).
 */
export function planFilters(
  entries: readonly string[],
  top: string,
  env: GitSettings["env"],
): FilterPlan {
  const drivers = parseDrivers(entries.filter((e) => e.startsWith("filter.")));
  const plan: FilterPlan = { config: [], reproduced: [], refused: new Map() };
  for (const [name, driver] of drivers) {
    if (isOff(driver)) {
      // The caller's git does not filter with it either: keep it off in the copy.
      if (PINNABLE.test(name)) plan.config.push(...switchedOff(name));
      continue;
    }
    const why = refusal(name, driver, top, env);
    if (why === undefined) {
      plan.reproduced.push(name);
      plan.config.push(...pins(name, driver));
    } else {
      plan.refused.set(name, why);
      if (PINNABLE.test(name)) plan.config.push(...switchedOff(name));
    }
  }
  return plan;
}

/**
 * Refuses the copy when any of the caller's files (tracked, or untracked and not ignored)
 * uses a filter the copy cannot reproduce.
 *
 * @throws {ObservalError} `FAILED_PRECONDITION` naming the filter and the files.
 */
export async function assertNoRefusedFilter(
  top: string,
  plan: FilterPlan,
  settings: Pick<GitSettings, "env" | "timeoutMs">,
  signal?: AbortSignal,
): Promise<void> {
  if (plan.refused.size === 0) return;
  const run = (args: string[], input?: string) =>
    runGit(args, { cwd: top, settings, input, signal });
  // Every path with a filter attribute, then which filter each has.
  const listed = await run([
    "ls-files",
    "-z",
    "--cached",
    "--others",
    "--exclude-standard",
    "--",
    ":(top,exclude,attr:!filter)",
  ]);
  if (listed.stdout.byteLength === 0) return;
  const attrs = new TextDecoder().decode(
    (await run(["check-attr", "-z", "--stdin", "filter"], new TextDecoder().decode(listed.stdout)))
      .stdout,
  ).split("\0");
  const used = new Map<string, string[]>();
  for (let i = 0; i + 2 < attrs.length; i += 3) {
    const [path, , value] = attrs.slice(i, i + 3);
    if (!plan.refused.has(value)) continue;
    const paths = used.get(value) ?? [];
    if (!paths.includes(path)) paths.push(path);
    used.set(value, paths);
  }
  if (used.size === 0) return;
  const [name, paths] = [...used][0];
  paths.sort();
  const shown = paths.slice(0, 3).map((p) => JSON.stringify(p)).join(", ") +
    (paths.length > 3 ? ` and ${paths.length - 3} more` : "");
  throw new ObservalError(
    "FAILED_PRECONDITION",
    `The repository's git filter ${JSON.stringify(name)} applies to ${shown}, and a ` +
      `workspace copy cannot reproduce it: ${plan.refused.get(name)}. The agent would see, ` +
      "and send back, the stored form of these files",
    {
      resource: top,
      remediation: `Delegate from a clone where the filter ${JSON.stringify(name)} is not set ` +
        "up, or for a folder whose files it does not apply to, or remove the filter " +
        "attribute for these files",
    },
  );
}

/**
 * The extra `-c` pins that switch off every filter the copy's own config defines beyond the
 * caller's (the agent may have added one), after checking that the reproduced ones still
 * run only what the caller's config says.
 *
 * @throws {ObservalError} `FAILED_PRECONDITION` when the copy's config gives a reproduced
 *   filter a `process`, or a reproduced filter's command now names a file in the copy.
 */
export async function copyFilterPins(
  worktree: string,
  git: GitSettings,
  run: (args: string[]) => Promise<{ stdout: Uint8Array }>,
): Promise<string[]> {
  const reproduced = new Set(git.filters ?? []);
  const out = await run(["config", "-z", "--show-scope", "--get-regexp", "^filter\\."]);
  // Records: scope, then "key\nvalue"; pins we pass ourselves show as "command".
  const fields = new TextDecoder().decode(out.stdout).split("\0");
  const found: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== "command") found.push(fields[i + 1]);
  }
  const pinsOut: string[] = [];
  for (const [name, driver] of parseDrivers(found)) {
    if (reproduced.has(name)) {
      // A process, even an empty one, would replace the caller's clean and smudge.
      if (driver.process !== undefined) {
        throw changed(worktree, `it now sets a filter process for ${JSON.stringify(name)}`);
      }
      continue;
    }
    if (!PINNABLE.test(name)) {
      throw changed(worktree, `it defines a filter named ${JSON.stringify(name)}`);
    }
    pinsOut.push(...switchedOff(name));
  }
  assertCommandsOutside(worktree, git);
  return pinsOut;
}

/**
 * Checks that no reproduced filter's command names a file that now exists in the copy: the
 * caller's repository did not hold it, so anyone who can write the copy chose its content.
 *
 * @throws {ObservalError} `FAILED_PRECONDITION` naming the filter and the word.
 */
export function assertCommandsOutside(worktree: string, git: GitSettings): void {
  for (const name of git.filters ?? []) {
    for (const cmd of commandsOf(git.config, name)) {
      const inside = wordsInside(cmd, worktree);
      if (inside) {
        throw changed(
          worktree,
          `the filter ${JSON.stringify(name)} names ${JSON.stringify(inside)}, which now ` +
            "exists in the copy",
        );
      }
    }
  }
}

function changed(worktree: string, what: string): ObservalError {
  return new ObservalError(
    "FAILED_PRECONDITION",
    `The workspace's git setup was changed (${what}), so its files are not read: reading ` +
      "them would run commands the agent controls",
    {
      resource: worktree,
      remediation: "Delegate again, and keep the agent from changing git filters in its copy",
    },
  );
}

function parseDrivers(entries: readonly string[]): Map<string, Driver> {
  const drivers = new Map<string, Driver>();
  for (const entry of entries) {
    if (!entry) continue;
    const nl = entry.indexOf("\n");
    const key = nl < 0 ? entry : entry.slice(0, nl);
    const value = nl < 0 ? "true" : entry.slice(nl + 1);
    const dot = key.lastIndexOf(".");
    const prop = key.slice(dot + 1).toLowerCase();
    if (dot <= "filter.".length || !["clean", "smudge", "process", "required"].includes(prop)) {
      continue;
    }
    const name = key.slice("filter.".length, dot);
    const driver = drivers.get(name) ?? {};
    driver[prop as keyof Driver] = value; // later scopes win, as in git
    drivers.set(name, driver);
  }
  return drivers;
}

/**
 * True for a driver git runs nothing for: no commands, or an empty `process` (which git
 * prefers to clean and smudge, and then finds empty).
 */
function isOff(driver: Driver): boolean {
  if (driver.process !== undefined) return driver.process === "";
  return !driver.clean && !driver.smudge;
}

/** Why a driver cannot be reproduced, or undefined when it can. */
function refusal(
  name: string,
  driver: Driver,
  top: string,
  env: GitSettings["env"],
): string | undefined {
  if (!PINNABLE.test(name)) return "its name cannot be passed to git safely";
  if (driver.process) {
    return "it runs as a long-running filter process, which keeps state the copy cannot share";
  }
  const commands = [driver.clean, driver.smudge].filter((c): c is string => !!c);
  if ((env.PATH ?? "").split(":").some((dir) => !isAbsolute(dir))) {
    return "the PATH holds a relative folder, so its command could be found inside the copy";
  }
  for (const cmd of commands) {
    if (!PLAIN.test(cmd)) {
      return "its command is more than a program with plain arguments, so it could run " +
        "files the agent can change";
    }
    const program = words(cmd)[0] ?? "";
    if (/^git([-\s]|$)/.test(program.split("/").pop() ?? "")) {
      return `its command runs ${program}, a git tool that keeps its objects or keys in ` +
        "the repository's .git folder";
    }
    const inside = wordsInside(cmd, top);
    if (inside) {
      return `its command names ${JSON.stringify(inside)} in the repository, a file the ` +
        "agent could change";
    }
  }
  return undefined;
}

/**
 * The first word of `cmd` that reaches into `top`: a relative path with a folder part,
 * a word naming an entry at the top, or an absolute path inside it.
 */
function wordsInside(cmd: string, top: string): string | undefined {
  for (const word of words(cmd)) {
    if (word === "%f") continue; // git puts the filtered file's path here
    if (isAbsolute(word)) {
      const rel = relative(top, word);
      if (rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel))) {
        return word;
      }
      continue;
    }
    if (word.includes("/")) return word;
    try {
      lstatSync(join(top, word));
      return word;
    } catch {
      // Not there: a plain argument.
    }
  }
  return undefined;
}

function words(cmd: string): string[] {
  return cmd.split(/[\s'"]+/).filter(Boolean);
}

function pins(name: string, driver: Driver): string[] {
  return [
    `filter.${name}.clean=${driver.clean ?? ""}`,
    `filter.${name}.smudge=${driver.smudge ?? ""}`,
    `filter.${name}.required=${driver.required ?? "false"}`,
  ];
}

function switchedOff(name: string): string[] {
  return [
    `filter.${name}.clean=`,
    `filter.${name}.smudge=`,
    `filter.${name}.process=`,
    `filter.${name}.required=false`,
  ];
}

/** The clean and smudge commands pinned for `name` in `config`. */
function commandsOf(config: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (const key of ["clean", "smudge"]) {
    const prefix = `filter.${name}.${key}=`;
    const pin = config.find((c) => c.startsWith(prefix));
    if (pin && pin.length > prefix.length) out.push(pin.slice(prefix.length));
  }
  return out;
}
