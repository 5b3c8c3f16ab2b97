/**
 * Reading a secret (an API key) from the user: typed at a terminal without echo, or piped
 * to stdin. Never from a command line, where it would land in the shell's history.
 * @module
 */
import { type Context, type HostStdin, ObservalError } from "../core/mod.ts";
import { note, prompt as promptLine } from "./output.ts";

/** Most bytes of a piped secret; an API key is far below it. */
const MAX_SECRET_BYTES = 16 * 1024;

const CTRL_C = 0x03;
const CTRL_D = 0x04;
const BACKSPACE = 0x08;
const CTRL_U = 0x15;
const DELETE = 0x7f;

/**
 * The secret, trimmed: typed at the terminal after `prompt` (on stderr) with nothing shown,
 * or, when stdin is not a terminal or `piped` is set, all of stdin.
 *
 * At a terminal the secret is read in raw mode, which is left however reading ends: Enter,
 * Ctrl-D, Ctrl-C (refused as interrupted, exit 130) or a signal that stops the process.
 *
 * @param ctx its `io.stdin` is read, its `io.stderr` shows the prompt
 * @param prompt what to ask for, e.g. "API key for https://observal.example: "
 * @param options `piped`: read stdin even when it is a terminal (`--with-token`); `what`
 * names the secret in messages
 * @returns the secret, never empty
 * @throws {ObservalError} USAGE when nothing was given, or stdin cannot be read
 */
export async function readSecret(
  ctx: Context,
  prompt: string,
  options: { piped?: boolean; what: string },
): Promise<string> {
  const stdin = ctx.io.stdin;
  if (!stdin) {
    throw new ObservalError("USAGE", `No stdin to read the ${options.what} from`, {
      remediation: `Pipe the ${options.what} in`,
    });
  }
  const typed = !options.piped && stdin.isTerminal() && stdin.setRaw !== undefined;
  const text = typed ? await readTyped(ctx, stdin, prompt) : await readPiped(stdin, options.what);
  const secret = text.trim();
  if (!secret) {
    throw new ObservalError("USAGE", `No ${options.what} was given`, {
      remediation: typed
        ? `Type or paste the ${options.what}, then press Enter`
        : `Pipe the ${options.what} in, e.g. \`printf %s "$KEY" | observal ...\``,
    });
  }
  // deno-lint-ignore no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(secret)) {
    throw new ObservalError("USAGE", `The ${options.what} has spaces or control characters in it`, {
      remediation: `Give the ${options.what} alone, on one line`,
    });
  }
  return secret;
}

/** All of piped stdin, up to {@linkcode MAX_SECRET_BYTES}. */
async function readPiped(stdin: HostStdin, what: string): Promise<string> {
  const buffer = new Uint8Array(MAX_SECRET_BYTES + 1);
  let got = 0;
  while (got < buffer.length) {
    const n = await stdin.read(buffer.subarray(got));
    if (n === null) break;
    got += n;
  }
  if (got > MAX_SECRET_BYTES) {
    throw new ObservalError("USAGE", `stdin holds more than ${MAX_SECRET_BYTES} bytes`, {
      remediation: `Pipe only the ${what}`,
    });
  }
  return new TextDecoder().decode(buffer.subarray(0, got));
}

/** A line typed in raw mode: nothing echoed; Backspace and Ctrl-U edit; Ctrl-C refuses. */
async function readTyped(ctx: Context, stdin: HostStdin, prompt: string): Promise<string> {
  const setRaw = stdin.setRaw!.bind(stdin);
  let raw = false;
  const restore = () => {
    if (raw) setRaw(false);
    raw = false;
  };
  // A signal (the terminal closing, a kill) ends the wait; the terminal is restored first.
  let stopListening = () => {};
  const stopped = new Promise<never>((_, reject) => {
    stopListening = ctx.interrupts.on(() => {
      restore();
      reject(interrupted());
    });
  });
  stopped.catch(() => {});
  const bytes: number[] = [];
  try {
    setRaw(true);
    raw = true;
    // Prompted only now: a key typed ahead of raw mode would be echoed.
    promptLine(ctx, prompt);
    const one = new Uint8Array(1);
    while (true) {
      const n = await Promise.race([stdin.read(one), stopped]);
      if (n === null) break;
      if (n === 0) continue;
      const b = one[0];
      if (b === 0x0d || b === 0x0a) break;
      if (b === CTRL_C) throw interrupted();
      if (b === CTRL_D) {
        if (bytes.length === 0) break;
        continue;
      }
      if (b === DELETE || b === BACKSPACE) {
        // Drop a whole UTF-8 character: its continuation bytes, then its lead byte.
        while (bytes.length && (bytes[bytes.length - 1] & 0xc0) === 0x80) bytes.pop();
        bytes.pop();
        continue;
      }
      if (b === CTRL_U) {
        bytes.length = 0;
        continue;
      }
      bytes.push(b);
    }
  } finally {
    restore();
    stopListening();
    note(ctx);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function interrupted(): ObservalError {
  return new ObservalError("USAGE", "Interrupted: nothing was read or saved", { exitCode: 130 });
}
