/**
 * Reads a command's flags and positionals from argv, the way `node:util` parseArgs does in
 * strict mode: `--name value`, `--name=value`, `-n value`, `-nvalue`, grouped booleans
 * (`-ab`), repeated flags, and `--` before positionals that start with a dash. It is ours
 * because under Deno node:util loads part of the runtime's Node layer, which costs every
 * command more than this whole module; and so every message is ours too.
 * @module
 */

/** How a flag is read. */
export interface FlagSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
}

/** The flags as given (a `multiple` flag as every value, in order) and the positionals. */
export interface ParsedFlags {
  values: Record<string, string | boolean | string[]>;
  positionals: string[];
}

/** Why argv could not be read: the flag as typed, and what is wrong with it. */
export class FlagError extends Error {
  constructor(
    message: string,
    /** The flag as typed, set when it is not declared. */
    readonly unknown?: string,
  ) {
    super(message);
    this.name = "FlagError";
  }
}

/**
 * Reads argv against the declared flags.
 *
 * @throws {FlagError} for an undeclared flag, a string flag without its value, or a value
 *   given to a boolean flag
 */
export function parseFlags(argv: readonly string[], specs: Record<string, FlagSpec>): ParsedFlags {
  const shorts = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) if (spec.short) shorts.set(spec.short, name);
  const values: ParsedFlags["values"] = {};
  const positionals: string[] = [];
  const store = (name: string, value: string | boolean) => {
    if (!specs[name].multiple) values[name] = value;
    else ((values[name] ??= []) as string[]).push(value as string);
  };
  // A string flag's value is the next word, unless that looks like a flag itself: then the
  // value was most likely forgotten (`--name=-x` passes one that starts with a dash).
  const valueAfter = (i: number, typed: string): string => {
    const next = argv[i + 1];
    if (next === undefined || (next.startsWith("-") && next !== "-")) {
      throw new FlagError(
        `${typed} needs a value` +
          (next === undefined
            ? ""
            : ` (to pass one that starts with a dash, write ${typed}=${next})`),
      );
    }
    return next;
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = word.slice(2, eq < 0 ? undefined : eq);
      const typed = `--${name}`;
      const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
      if (!spec) throw new FlagError(`Unknown flag "${typed}"`, typed);
      if (spec.type === "boolean") {
        if (eq >= 0) throw new FlagError(`${typed} takes no value`);
        store(name, true);
      } else if (eq >= 0) {
        store(name, word.slice(eq + 1));
      } else {
        store(name, valueAfter(i++, typed));
      }
      continue;
    }
    if (word.startsWith("-") && word !== "-") {
      // A group of short flags; a string flag takes the rest of the word, or the next word.
      for (let c = 1; c < word.length; c++) {
        const typed = `-${word[c]}`;
        const name = shorts.get(word[c]);
        if (name === undefined) throw new FlagError(`Unknown flag "${typed}"`, typed);
        if (specs[name].type === "boolean") {
          store(name, true);
          continue;
        }
        const rest = word.slice(c + 1);
        store(name, rest !== "" ? rest : valueAfter(i++, typed));
        break;
      }
      continue;
    }
    positionals.push(word);
  }
  return { values, positionals };
}
