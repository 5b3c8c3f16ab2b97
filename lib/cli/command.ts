/**
 * A small command tree on `node:util` parseArgs: each command declares its flags and
 * positionals once, and help text, validation and `--json` come from that declaration.
 * The tree names each command's module ({@linkcode lazy}); the module is imported only
 * when its command runs or shows its own help, so a command loads what it uses and no more.
 * @module
 */
import { parseArgs } from "node:util";
import type { Context } from "../core/mod.ts";
import { ObservalError } from "../core/mod.ts";
import { printBlock } from "./output.ts";

/** One flag of a command. */
export interface Flag {
  type: "string" | "boolean";
  short?: string;
  /** Shown in help as `--name VALUE`. */
  value?: string;
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

const GLOBAL_FLAGS: Record<string, Flag> = {
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

/** Runs argv against a command tree; returns the exit code. Throws ObservalError. */
export async function dispatch(
  root: Group,
  argv: string[],
  ctx: Context,
  path: string[] = [],
): Promise<number> {
  let node: Command | Group = root;
  let i = 0;
  const names = [...path, root.name];
  while (isGroup(node)) {
    const word: string | undefined = argv[i];
    const helpIsCommand = node.commands.some((c) => c.name === "help");
    if (
      word === undefined || word === "--help" || word === "-h" ||
      (word === "help" && !helpIsCommand)
    ) {
      if (word === "help" && argv[i + 1]) {
        return dispatch(node, [...argv.slice(i + 1), "--help"], ctx, names.slice(0, -1));
      }
      printBlock(ctx, groupHelp(node, names));
      return word === undefined && node !== root ? 2 : 0;
    }
    const next: Command | Group | undefined = node.commands.find((c) => c.name === word);
    if (!next) {
      const known = node.commands.filter((c) => !c.hidden).map((c) => c.name).join(", ");
      throw new ObservalError("USAGE", `Unknown command "${names.join(" ")} ${word}"`, {
        remediation: `Choose one of: ${known}. Run \`${names.join(" ")} --help\``,
      });
    }
    node = !isGroup(next) && next.load
      ? await loadCommand({ name: next.name, load: next.load })
      : next;
    names.push(word);
    i++;
  }
  const command = node;
  const declared = { ...GLOBAL_FLAGS, ...command.flags };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv.slice(i),
      options: Object.fromEntries(
        Object.entries(declared).map(([name, f]) => [
          name,
          { type: f.type, multiple: f.multiple ?? false, ...(f.short ? { short: f.short } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new ObservalError("USAGE", (err as Error).message.split("\n")[0], {
      remediation: `Run \`${names.join(" ")} --help\``,
    });
  }
  if (parsed.values.help) {
    printBlock(ctx, commandHelp(command, names));
    return 0;
  }
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
    flags[name] =
      (parsed.values as Record<string, string | boolean | string[] | undefined>)[name] ??
        f.default;
  }
  const code = await command.run(
    { args, rest: positionals.slice(specs.length), flags, json: Boolean(parsed.values.json) },
    ctx,
  );
  return code ?? 0;
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

/** Help for a group: its summary and its visible subcommands. */
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
    ...(group.details ? [group.details.trimEnd(), ""] : []),
    `Run \`${names.join(" ")} <command> --help\` for more about a command.`,
    "",
  ].join("\n");
}

/** Help for a leaf command: usage and flags. */
export function commandHelp(command: Command, names: string[]): string {
  const flags = { ...command.flags, ...GLOBAL_FLAGS };
  const rows = Object.entries(flags).map(([name, f]) => {
    const short = f.short ? `-${f.short}, ` : "    ";
    const value = f.type === "string" ? ` ${f.value ?? "VALUE"}` : "";
    const def = f.default !== undefined && f.default !== false ? ` (default ${f.default})` : "";
    return [`${short}--${name}${value}`, `${f.description}${def}`] as [string, string];
  });
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
 * with the allowed values in the message.
 */
export function choice<T extends string>(
  inv: Invocation,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = str(inv, name);
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ObservalError("USAGE", `--${name} cannot be "${raw}"`, {
      remediation: `Use one of: ${allowed.join(", ")}`,
    });
  }
  return raw as T;
}
