/**
 * The command tree as shell completion needs it: for each group and command, its path,
 * subcommands, and flags with their short forms and the values of flags that take a fixed
 * set. Read from the CLI's own table, every command's module loaded for its flags.
 * @module
 */
import { type Command, type Flag, GLOBAL_FLAGS, type Group } from "../command.ts";

/** One flag, as a shell offers it. */
export interface FlagSpec {
  long: string;
  short?: string;
  /** It takes a value (the next word). */
  valued: boolean;
  /** The values it takes, when they are a fixed set. */
  choices: string[];
  description: string;
}

/** One group or command: its words after `observal`, what may follow it, its flags. */
export interface NodeSpec {
  path: string[];
  subcommands: Array<{ name: string; summary: string }>;
  flags: FlagSpec[];
}

/** A value alternatives spell out in help (`project|user`), used as a flag's choices. */
const ALTERNATIVES = /^[a-z0-9-]+(\|[a-z0-9-]+)+$/;
/** What a choice may be to go into a script unquoted. */
const PLAIN = /^[A-Za-z0-9._-]+$/;

async function flagSpecs(flags: Record<string, Flag>): Promise<FlagSpec[]> {
  const out: FlagSpec[] = [];
  for (const [long, f] of Object.entries(flags)) {
    let choices: readonly string[] = [];
    if (typeof f.choices === "function") choices = await f.choices();
    else if (f.choices) choices = f.choices;
    else if (f.value && ALTERNATIVES.test(f.value)) choices = f.value.split("|");
    out.push({
      long,
      ...(f.short ? { short: f.short } : {}),
      valued: f.type === "string",
      choices: choices.filter((c) => PLAIN.test(c)),
      description: f.description,
    });
  }
  return out;
}

/**
 * Every visible group and command under `root`, depth first, `root` itself first (with
 * an empty path). Hidden commands are left out.
 */
export async function completionSpec(root: Group): Promise<NodeSpec[]> {
  const out: NodeSpec[] = [];
  const walk = async (node: Command | Group, path: string[]) => {
    if ("commands" in node) {
      const visible = node.commands.filter((c) => !c.hidden);
      out.push({
        path,
        subcommands: visible.map((c) => ({ name: c.name, summary: c.summary })),
        flags: await flagSpecs({ ...GLOBAL_FLAGS, ...node.flags }),
      });
      for (const c of visible) await walk(c, [...path, c.name]);
      return;
    }
    const command = node.load ? await node.load() : node;
    out.push({
      path,
      subcommands: [],
      flags: await flagSpecs({ ...command.flags, ...GLOBAL_FLAGS }),
    });
  };
  await walk(root, []);
  return out;
}
