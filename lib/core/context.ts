/**
 * The Context: everything a command may touch outside its arguments. It is built once
 * in `main.ts` (or by a test, in a temp dir) and passed down; nothing reads
 * `process.env`, the clock or the network on its own.
 * @module
 */
import { join, resolve } from "./paths.ts";
import { type Clock, systemClock } from "./clock.ts";
import {
  exitNow,
  hostCwd,
  hostEnv,
  type HostStdin,
  hostStdin,
  hostStream,
  onInterrupt,
  stdoutIsTerminal,
} from "./host.ts";

/** A sink for text output. */
export interface Writer {
  write(text: string): void;
}

/** Where output goes and how it may look. */
export interface IO {
  stdout: Writer;
  stderr: Writer;
  /** stdout is a terminal: tables, colour and live progress lines are welcome. */
  isTTY: boolean;
  /** Colour is allowed (a TTY and no NO_COLOR). */
  color: boolean;
  /**
   * Standard input, for the few commands that read it (a brief given as `-`); a test sets
   * its own. Absent where a context was built by hand: such a command then has none.
   */
  stdin?: HostStdin;
}

/**
 * How a person stops the command: the process's signals, or those a resident runner's
 * client forwards for the command it runs there.
 */
export interface Interrupts {
  /**
   * Calls `listener` on Ctrl-C, the terminal closing or SIGTERM until the function returned
   * is called; meanwhile those do not end the command.
   */
  on(listener: () => void): () => void;
  /**
   * Ends the command now with `code`, whatever still runs (a person asked twice). Nothing
   * the command writes after this is shown.
   */
  quit(code: number): void;
}

/** The process's own signals and exit. */
export const processInterrupts: Interrupts = { on: onInterrupt, quit: exitNow };

/** Environment variables, read-only and parsed once. */
export type Env = Readonly<Record<string, string | undefined>>;

/** What every command receives. */
export interface Context {
  /** `OBSERVAL_HOME`, default `~/.observal`. */
  readonly home: string;
  readonly env: Env;
  readonly cwd: string;
  readonly clock: Clock;
  /**
   * When the command began. For the observal executable this is its process's start, so
   * the time it takes to load never makes a caller look late: of two replies started
   * together, the slower one to start still began while the agent was waiting.
   */
  readonly startedAt: Date;
  readonly fetch: typeof fetch;
  readonly io: IO;
  readonly interrupts: Interrupts;
}

/** Options for {@linkcode createContext}; each falls back to the real process. */
export interface ContextOptions {
  env?: Env;
  cwd?: string;
  home?: string;
  clock?: Clock;
  /** @default the clock's now */
  startedAt?: Date;
  fetch?: typeof fetch;
  io?: Partial<IO>;
  interrupts?: Interrupts;
}

/** Builds a Context from the process, with any part replaced. */
export function createContext(options: ContextOptions = {}): Context {
  const env = options.env ?? hostEnv();
  const cwd = options.cwd ?? hostCwd();
  const home = options.home ?? observalHome(env, cwd);
  const isTTY = options.io?.isTTY ?? stdoutIsTerminal();
  const clock = options.clock ?? systemClock;
  return {
    home,
    env,
    cwd,
    clock,
    startedAt: options.startedAt ?? clock.now(),
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    io: {
      stdout: options.io?.stdout ?? hostStream("stdout"),
      stderr: options.io?.stderr ?? hostStream("stderr"),
      isTTY,
      color: options.io?.color ?? (isTTY && !env.NO_COLOR),
      stdin: options.io?.stdin ?? hostStdin(),
    },
    interrupts: options.interrupts ?? processInterrupts,
  };
}

/** `OBSERVAL_HOME` resolved against `cwd`, else `~/.observal`. */
export function observalHome(env: Env, cwd: string): string {
  const set = env.OBSERVAL_HOME?.trim();
  if (set) return resolve(cwd, set);
  // node:os loads only without HOME (as on Windows): under Deno it costs every start ~4 ms.
  return join(env.HOME || globalThis.process.getBuiltinModule("node:os").homedir(), ".observal");
}
