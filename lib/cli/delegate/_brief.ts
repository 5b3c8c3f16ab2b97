/**
 * A brief (or a reply's answer) given as an argument, as `-` for stdin, or with
 * `--message-file`. Its size is checked while it is read, before anything is started, and
 * no more than the limit allows is ever read into memory.
 * @module
 */
import { type Context, ObservalError } from "../../core/mod.ts";
import { type HostStdin, readHead, resolve, statPath } from "../../core/system/mod.ts";
import { MAX_MESSAGE_CHARS } from "../../delegation/mod.ts";
import { type Flag, type Invocation, str } from "../command.ts";

/**
 * Most bytes read of a brief. The limit counts characters (UTF-16 units, as the guard that
 * every delegation passes does); no character takes more than 3 UTF-8 bytes per unit, so
 * a brief within the limit always fits, and a longer input is refused without reading on.
 */
export const MAX_BRIEF_BYTES = 3 * MAX_MESSAGE_CHARS;

export { MAX_MESSAGE_CHARS };

/** The `--message-file` flag. */
export const messageFileFlag: Record<string, Flag> = {
  "message-file": {
    type: "string",
    value: "FILE",
    description: "Read the message from a file instead of the MESSAGE argument",
  },
};

/** Where a message came from, for errors. */
interface Source {
  name: string;
  remediation: string;
}

/**
 * The message of a command that takes a MESSAGE argument and `--message-file`: the
 * argument itself, stdin when it is `-`, or the file's text; undefined when neither is given.
 *
 * @param inv the invocation (the argument is `inv.args.message`)
 * @param ctx the context; its `io.stdin` is read for `-`
 * @param how the command's usage, for the remediation when both are given, and how to pipe
 *   a message into it, for the one when stdin is a terminal
 * @returns the message, not empty and within {@linkcode MAX_MESSAGE_CHARS}
 * @throws {ObservalError} USAGE (exit 2) when it is given twice, empty, too long or unreadable
 */
export async function readMessage(
  inv: Invocation,
  ctx: Context,
  how: { usage: string; piped: string },
): Promise<string | undefined> {
  const arg = inv.args.message;
  const file = str(inv, "message-file");
  if (arg !== undefined && file !== undefined) {
    throw new ObservalError("USAGE", "Give the message once: as MESSAGE or --message-file", {
      remediation: `Drop MESSAGE${
        arg === "-" ? " (-)" : ""
      } or --message-file. Usage: ${how.usage}`,
    });
  }
  if (file !== undefined) {
    const source = {
      name: file,
      remediation: "Shorten the file, or point the agent at files instead of pasting them",
    };
    return checked(decode(readMessageFile(ctx, file), source), source);
  }
  if (arg === "-") {
    const source = {
      name: "stdin",
      remediation: "Pipe a shorter brief, or point the agent at files instead of pasting them",
    };
    return checked(decode(await readStdin(ctx.io.stdin, how.piped), source), source);
  }
  if (arg === undefined) return undefined;
  return checked(arg, {
    name: "MESSAGE",
    remediation: "Write a complete brief: the agent does not see your conversation",
  });
}

/** The message must say something and keep within the limit. */
function checked(text: string, source: Source): string {
  if (!text.trim()) {
    throw new ObservalError("USAGE", `The message from ${source.name} is empty`, {
      remediation: "Write a complete brief: the agent does not see your conversation",
    });
  }
  if (text.length > MAX_MESSAGE_CHARS) {
    throw tooLong(source, `${text.length} characters`);
  }
  return text;
}

function tooLong(source: Source, size: string, bytes = false): ObservalError {
  // In bytes, the bound is what the longest brief takes in UTF-8.
  const within = bytes ? ` (${MAX_BRIEF_BYTES} bytes of UTF-8 at most)` : "";
  return new ObservalError(
    "USAGE",
    `The message from ${source.name} is ${size}; at most ${MAX_MESSAGE_CHARS} characters${within} are accepted`,
    { remediation: source.remediation },
  );
}

function decode(bytes: Uint8Array, source: Source): string {
  if (bytes.length > MAX_BRIEF_BYTES) {
    throw tooLong(source, `more than ${MAX_BRIEF_BYTES} bytes`, true);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ObservalError("USAGE", `The message from ${source.name} is not UTF-8 text`, {
      remediation: "Give the brief as UTF-8 text",
    });
  }
}

/** The file's first bytes, at most one past {@linkcode MAX_BRIEF_BYTES}; a larger file is refused by its size. */
function readMessageFile(ctx: Context, file: string): Uint8Array {
  const path = resolve(ctx.cwd, file);
  const remediation = "Pass the path of a text file that holds the brief";
  const stat = statPath(path);
  if (!stat) {
    throw new ObservalError("USAGE", `Cannot read --message-file ${file}: no such file`, {
      resource: path,
      remediation,
    });
  }
  if (stat.isDirectory) {
    throw new ObservalError("USAGE", `--message-file ${file} is a folder`, {
      resource: path,
      remediation,
    });
  }
  if (stat.isFile) {
    // Only a regular file's size means anything (a pipe's is 0): refuse it before reading.
    if (stat.size > MAX_BRIEF_BYTES) {
      throw tooLong(
        { name: file, remediation: "Shorten the file, or point the agent at files instead" },
        `${stat.size} bytes`,
        true,
      );
    }
  }
  const bytes = readHead(path, MAX_BRIEF_BYTES + 1);
  if (!bytes) {
    throw new ObservalError("USAGE", `Cannot read --message-file ${file}`, {
      resource: path,
      remediation,
    });
  }
  return bytes;
}

/** Stdin up to one byte past {@linkcode MAX_BRIEF_BYTES}; refused when it is a terminal. */
async function readStdin(stdin: HostStdin | undefined, piped: string): Promise<Uint8Array> {
  if (!stdin || stdin.isTerminal()) {
    throw new ObservalError("USAGE", "MESSAGE is -, but stdin is a terminal, not a brief", {
      remediation: `Pipe the message in (\`${piped}\`) or use --message-file FILE`,
    });
  }
  const buffer = new Uint8Array(MAX_BRIEF_BYTES + 1);
  let got = 0;
  while (got < buffer.length) {
    const n = await stdin.read(buffer.subarray(got));
    if (n === null) break;
    got += n;
  }
  return buffer.subarray(0, got);
}
