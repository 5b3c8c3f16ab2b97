/**
 * A small command tree: each command declares its flags and
 * positionals once, and help text, validation and `--json` come from that declaration.
 * The tree names each command's module ({@linkcode lazy}); the module is imported only
 * when its command runs or shows its own help, so a command loads what it uses and no more.
 *
 * One module past 400 lines: declaration, parsing, help and the did-you-mean hints all
 * read the same flag table.
 * @module
 */
import type { Context } from "../core/mod.ts";
import { ObservalError } from "../core/mod.ts";
import { printBlock } from "./output.ts";
import { FlagError, type ParsedFlags, parseFlags } from "./parse_flags.ts";

/** One flag of a command. */
export interface Flag {
  type: "string" | "boolean";
  short?: string;
  /**
   * Shown in help as `--name VALUE`. Alternatives spelled out (`project|user`) are the
   * flag's values for shell completion when it declares no `choices`.
   */
  value?: string;
  /**
   * The values the command accepts (it checks them with {@linkcode choice}), offered by
   * shell completion; a function when the list loads modules a command's start should not.
   */
  choices?: readonly string[] | (() => Promise<readonly string[]>);
  description: string;
  multiple?: boolean;
  default?: string | boolean;
}

/** What a command's `run` receives. */
export interface Invocation {
  /** Positionals, by the names declared in `args`. */
  args: Record<string, string>;
  /** Extra positionals (for `variadic` commands). */
  rest: string[];
  flags: Record<string, string | boolean | string[] | undefined>;
  json: boolean;
}

/** A leaf command. */
export interface Command {
  name: string;
  summary: string;
  /** Positional arguments, in order; names ending in `?` are optional. */
  args?: string[];
  /** Accept more positionals than `args` names (collected in `rest`). */
  variadic?: boolean;
  flags?: Record<string, Flag>;
  /** Extra help paragraphs (examples, notes). */
  details?: string;
  /** Leave out of the parent's help (internal commands). */
  hidden?: boolean;
  run(inv: Invocation, ctx: Context): Promise<number | void> | number | void;
  /**
   * Set on a table entry made by {@linkcode lazy}: imports the module that declares the
   * command in full (flags, help, run). Dispatch calls it before parsing the arguments.
   */
  load?(): Promise<Command>;
}

/** A command with subcommands. */
export interface Group {
  name: string;
  summary: string;
  commands: Array<Command | Group>;
  /**
   * Flags the group itself answers (the root's `--version`): listed in its help and offered
   * as suggestions; whoever calls dispatch handles them before it.
   */
  flags?: Record<string, Flag>;
  details?: string;
  hidden?: boolean;
}

/**
 * Declares a command by name and summary (enough for its group's help) and the module
 * that holds it, which is imported only when the command runs or shows its own help.
 *
 * @param name the command's name, as the module declares it
 * @param summary its one-line summary, as the module declares it
 * @param load imports the module and returns the command
 * @returns the entry for a group's `commands`
 *
 * @example
 * ```ts ignore
 * lazy("list", "List delegated tasks, newest first", async () => (await import("./list.ts")).listCommand)
 * ```
 */
export function lazy(
  name: string,
  summary: string,
  load: () => Promise<Command>,
  options: { hidden?: boolean } = {},
): Command {
  return {
    name,
    summary,
    load,
    // Only reached when called directly: dispatch loads the full declaration first.
    run: async (inv, ctx) => await (await loadCommand({ name, load })).run(inv, ctx),
    ...(options.hidden ? { hidden: true } : {}),
  };
}

/**
 * The command at `path` inside groups a module declares, for {@linkcode lazy} entries whose
 * module holds whole groups rather than one command.
 *
 * @param groups the groups the module exports
 * @param path group names, then the command's name
 * @throws {ObservalError} INTERNAL when there is no such command
 */
export function commandIn(groups: readonly Group[], ...path: string[]): Command {
  let found: Command | Group | undefined;
  let within: ReadonlyArray<Command | Group> = groups;
  for (const name of path) {
    found = within.find((c) => c.name === name);
    within = found && isGroup(found) ? found.commands : [];
  }
  if (!found || isGroup(found) || found.load) {
    throw new ObservalError("INTERNAL", `No module declares the command "${path.join(" ")}"`);
  }
  return found;
}

/** Flags every command takes. */
export const GLOBAL_FLAGS: Record<string, Flag> = {
  json: { type: "boolean", description: "Print machine-readable JSON" },
  help: { type: "boolean", short: "h", description: "Show help for this command" },
};

function isGroup(c: Command | Group): c is Group {
  return "commands" in c;
}

/** Imports a lazily declared command, checking that its module declares what the table says. */
async function loadCommand(entry: { name: string; load(): Promise<Command> }): Promise<Command> {
  const command = await entry.load();
  if (command.name !== entry.name) {
    throw new ObservalError(
      "INTERNAL",
      `The command table names "${entry.name}" but its module declares "${command.name}"`,
    );
  }
  return command;
}

/** True when `--help` or `-h` comes before any `--` (after it, words are positionals). */
function wantsHelp(argv: readonly string[]): boolean {
  for (const word of argv) {
    if (word === "--") return false;
    if (word === "--help" || word === "-h") return true;
  }
  return false;
}

/** The help topics group of a group (`observal help exit-codes`), if it has one. */
function topicsOf(group: Group): Group | undefined {
  const help = group.commands.find((c) => c.name === "help");
  return help && isGroup(help) ? help : undefined;
}

/** An unknown subcommand of `group`: a usage error with the closest name, if one is close. */
function unknownCommand(
  group: Group,
  word: string,
  names: string[],
  asked: "command" | "help" = "command",
): ObservalError {
  const visible = group.commands.filter((c) => !c.hidden);
  const candidates = new Map(visible.map((c) => [c.name, [...names, c.name].join(" ")]));
  for (const topic of topicsOf(group)?.commands.filter((c) => !c.hidden) ?? []) {
    if (!candidates.has(topic.name)) {
      candidates.set(topic.name, [...names, "help", topic.name].join(" "));
    }
  }
  const near = closest(word, [...candidates.keys()]);
  const where = names.join(" ");
  const message = asked === "help"
    ? `No command or help topic "${word}" in \`${where}\``
    : `Unknown command "${where} ${word}"`;
  return new ObservalError("USAGE", message, {
    remediation: near
      ? `Did you mean \`${candidates.get(near)}\`? Run \`${where} --help\` for its commands`
      : `Choose one of: ${visible.map((c) => c.name).join(", ")}. Run \`${where} --help\``,
  });
}

/**
 * Reads the command's flags; a usage error names the flag as typed and, for an undeclared
 * one that is close to a declared flag, the flag it was probably meant to be.
 */
function readFlags(argv: string[], declared: Record<string, Flag>, names: string[]): ParsedFlags {
  try {
    return parseFlags(argv, declared);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    const help = `Run \`${names.join(" ")} --help\`${err.unknown ? " for its flags" : ""}`;
    const near = err.unknown?.startsWith("--")
      ? closest(err.unknown.slice(2), Object.keys(declared))
      : undefined;
    throw new ObservalError("USAGE", err.message, {
      remediation: near ? `Did you mean --${near}? ${help}` : help,
    });
  }
}

/**
 * Runs argv against a command tree; returns the exit code. Throws ObservalError.
 *
 * Help exits 0 wherever it is asked for: a group without a subcommand, `--help` or `-h`
 * anywhere before `--`, and `help [command...]` (a group's `help` group holds topics such
 * as `exit-codes`). Unknown commands and flags are usage errors (exit 2) that name the
 * closest known one.
 */
export async function dispatch(
  root: Group,
  argv: string[],
  ctx: Context,
  path: string[] = [],
): Promise<number> {
  let node: Command | Group = root;
  let i = 0;
  const names = [...path, root.name];
  const help = wantsHelp(argv);
  while (isGroup(node)) {
    const word: string | undefined = argv[i];
    if (word === "help") {
      const rest = argv.slice(i + 1).filter((w) => w !== "--help" && w !== "-h");
      const topics = topicsOf(node);
      if (rest.length === 0) {
        printBlock(ctx, groupHelp(node, names));
        return 0;
      }
      const isTopic = topics?.commands.some((c) => c.name === rest[0]) ?? false;
      if (topics && isTopic && !hasCommand(node, rest[0])) {
        return dispatch(topics, argv.slice(i + 1), ctx, names);
      }
      if (!isTopic && !hasCommand(node, rest[0]) && rest[0] !== topics?.name) {
        throw unknownCommand(node, rest[0], names, "help");
      }
      return dispatch(node, [...rest, "--help"], ctx, names.slice(0, -1));
    }
    if (word === undefined || (help && word.startsWith("-"))) {
      printBlock(ctx, groupHelp(node, names));
      return 0;
    }
    if (word.startsWith("-")) {
      const known = [...Object.keys(GLOBAL_FLAGS), ...Object.keys(node.flags ?? {})];
      const name = word.replace(/^--?/, "").split("=")[0];
      // `observal registry --json`: a flag every command takes, but no command to take it.
      if (word.startsWith("--") && known.includes(name)) {
        printBlock(ctx, groupHelp(node, names));
        return 0;
      }
      const near = word.startsWith("--") ? closest(name, known) : undefined;
      const where = names.join(" ");
      throw new ObservalError("USAGE", `Unknown flag "${word}" for \`${where}\``, {
        remediation: near
          ? `Did you mean --${near}? Run \`${where} --help\``
          : `Name a command first. Run \`${where} --help\``,
      });
    }
    const next: Command | Group | undefined = node.commands.find((c) => c.name === word);
    if (!next) throw unknownCommand(node, word, names);
    node = !isGroup(next) && next.load
      ? await loadCommand({ name: next.name, load: next.load })
      : next;
    names.push(word);
    i++;
  }
  const command = node;
  const declared = { ...GLOBAL_FLAGS, ...command.flags };
  if (help) {
    printBlock(ctx, commandHelp(command, names));
    return 0;
  }
  const parsed = readFlags(argv.slice(i), declared, names);
  const specs = command.args ?? [];
  const positionals = parsed.positionals;
  const required = specs.filter((a) => !a.endsWith("?")).length;
  if (positionals.length < required) {
    const missing = specs[positionals.length].replace(/\?$/, "");
    throw new ObservalError("USAGE", `Missing ${missing.toUpperCase()}`, {
      remediation: `Usage: ${usageLine(command, names)}`,
    });
  }
  if (positionals.length > specs.length && !command.variadic) {
    throw new ObservalError("USAGE", `Unexpected argument "${positionals[specs.length]}"`, {
      remediation: `Usage: ${usageLine(command, names)} (quote text that has spaces)`,
    });
  }
  const args: Record<string, string> = {};
  specs.forEach((spec, n) => {
    if (positionals[n] !== undefined) args[spec.replace(/\?$/, "")] = positionals[n];
  });
  const flags: Invocation["flags"] = {};
  for (const [name, f] of Object.entries(declared)) {
    flags[name] = parsed.values[name] ?? f.default;
  }
  const code = await command.run(
    { args, rest: positionals.slice(specs.length), flags, json: Boolean(parsed.values.json) },
    ctx,
  );
  return code ?? 0;
}

function hasCommand(group: Group, name: string): boolean {
  return group.commands.some((c) => c.name === name && !(isGroup(c) && c === topicsOf(group)));
}

function usageLine(command: Command, names: string[]): string {
  const args = (command.args ?? []).map((a) =>
    a.endsWith("?") ? `[${a.slice(0, -1).toUpperCase()}]` : a.toUpperCase()
  );
  if (command.variadic) args.push("...");
  return [...names, ...args, "[flags]"].join(" ");
}

function table(rows: Array<[string, string]>): string {
  const width = Math.max(0, ...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`).join("\n");
}

/** Help for a group: its summary, its visible subcommands and its own flags. */
export function groupHelp(group: Group, names: string[]): string {
  const rows = group.commands.filter((c) => !c.hidden).map((c) =>
    [c.name, c.summary] as [string, string]
  );
  return [
    group.summary,
    "",
    "Usage:",
    `  ${names.join(" ")} <command> [flags]`,
    "",
    "Commands:",
    table(rows),
    "",
    ...(group.flags ? ["Flags:", table(flagRows(group.flags)), ""] : []),
    ...(group.details ? [group.details.trimEnd(), ""] : []),
    `Run \`${names.join(" ")} <command> --help\` for more about a command.`,
    "",
  ].join("\n");
}

function flagRows(flags: Record<string, Flag>): Array<[string, string]> {
  return Object.entries(flags).map(([name, f]) => {
    const short = f.short ? `-${f.short}, ` : "    ";
    const value = f.type === "string" ? ` ${f.value ?? "VALUE"}` : "";
    const def = f.default !== undefined && f.default !== false ? ` (default ${f.default})` : "";
    return [`${short}--${name}${value}`, `${f.description}${def}`] as [string, string];
  });
}

/** Help for a leaf command: usage and flags. */
export function commandHelp(command: Command, names: string[]): string {
  const rows = flagRows({ ...command.flags, ...GLOBAL_FLAGS });
  return [
    command.summary,
    "",
    "Usage:",
    `  ${usageLine(command, names)}`,
    "",
    "Flags:",
    table(rows),
    "",
    ...(command.details ? [command.details.trimEnd(), ""] : []),
  ].join("\n");
}

/** Reads a string flag, or undefined. */
export function str(inv: Invocation, name: string): string | undefined {
  const v = inv.flags[name];
  return typeof v === "string" ? v : undefined;
}

/** Reads an integer flag within bounds; its declared default applies when it is not given. */
export function int(inv: Invocation, name: string, min: number, max: number): number {
  const raw = str(inv, name);
  const n = Number(raw);
  if (raw === undefined || !Number.isInteger(n) || n < min || n > max) {
    throw new ObservalError("USAGE", `--${name} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

/**
 * Reads a string flag that must be one of `allowed` (or absent); a wrong value is refused
 * with the allowed values in the message, and the closest one when it is close.
 *
 * @param inv the invocation
 * @param name the flag's name, without dashes
 * @param allowed the values it takes
 * @param options `normalize` maps accepted spellings (case, `_` for `-`) to an allowed value
 * @returns the value, or undefined when the flag was not given and has no default
 *
 * @example
 * ```ts ignore
 * const scope = choice(inv, "scope", ["project", "user"]) ?? "project";
 * ```
 */
export function choice<T extends string>(
  inv: Invocation,
  name: string,
  allowed: readonly T[],
  options: { normalize?: (raw: string) => string } = {},
): T | undefined {
  const raw = str(inv, name);
  if (raw === undefined) return undefined;
  const value = options.normalize ? options.normalize(raw) : raw;
  if (!(allowed as readonly string[]).includes(value)) {
    const near = closest(value, allowed);
    throw new ObservalError("USAGE", `--${name} cannot be "${raw}"`, {
      remediation: `${near ? `Did you mean ${near}? ` : ""}Use one of: ${allowed.join(", ")}`,
    });
  }
  return value as T;
}

/**
 * The candidate closest to a mistyped word, when it is close enough to be what was meant:
 * at most two edits (a swap of neighbours is one), and at most a third of its length, or
 * the word is the start of it (three characters or more). Ties go to the earlier candidate.
 *
 * @param word what was typed
 * @param candidates the names it may have meant
 * @returns the closest candidate, or undefined when none is close
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { closest } from "./command.ts";
 *
 * assert.equal(closest("delgate", ["delegate", "registry"]), "delegate");
 * assert.equal(closest("jsno", ["json", "help"]), "json");
 * assert.equal(closest("zzz", ["json", "help"]), undefined);
 * ```
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const name = candidate.toLowerCase();
    let distance = editDistance(typed, name);
    const limit = Math.min(2, Math.max(1, Math.floor(name.length / 3)));
    if (distance > limit) {
      if (typed.length < 3 || !name.startsWith(typed)) continue;
      distance = limit;
    }
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  // Rows of the optimal string alignment table, three kept (a swap looks two rows back).
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, before[j - 2] + 1);
      }
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length];
}
