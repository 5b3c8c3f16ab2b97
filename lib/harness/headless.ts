/**
 * One headless run of a harness CLI: the argv, stdin and scratch files that start it in a
 * workspace with an agent's configuration, and reading its answer back. The per-harness
 * details live in `_headless_adapters.ts`; this module holds what they share.
 * @module
 */
import { hostPlatform } from "../core/system/mod.ts";
import { ObservalError } from "../core/mod.ts";
import type { StdioMcpEntry } from "./config_snippet.ts";
import { ADAPTERS } from "./_headless_adapters.ts";
import { RESUMABLE_HARNESSES, type ResumableSession } from "./resumable.ts";
import { getHarness, type HarnessKey, headlessHarnesses } from "./registry.ts";

/** Everything a headless run is planned from. */
export interface HeadlessRequest {
  harness: HarnessKey;
  /** The absolute path of the harness binary. */
  binary: string;
  /** The agent's local name (its profile file name in the workspace). */
  agentName: string;
  /** The agent's prompt, inlined for harnesses that cannot select a profile. */
  instructions: string;
  /** The brief. */
  message: string;
  /** Where the child runs (the workspace). */
  workdir: string;
  /** A folder outside the workspace tree for run files (MCP config, last message). */
  scratch: string;
  /** A fresh id for harnesses that let us choose the session id. */
  sessionId: string;
  /**
   * An earlier session to continue instead of starting one (see `resumableSession`): only
   * for the harnesses it finds sessions of.
   */
  resume?: ResumableSession;
  /** The agent's MCP servers (and observal-agents), as the install rendered them. */
  mcpServers: Record<string, StdioMcpEntry>;
  /** The child's environment (the adapter may extend a setting it already carries). */
  env?: Readonly<Record<string, string | undefined>>;
  /** When the run starts (for session files the harness reads). @default new Date() */
  now?: Date;
  /** @default process.platform */
  platform?: NodeJS.Platform;
}

/** How to start one headless run. */
export interface HeadlessPlan {
  /** The complete argv, binary first. */
  argv: string[];
  /** Written to stdin (then closed); undefined = no stdin. */
  stdin?: string;
  /**
   * Files to write before the run (absolute paths): inside the scratch folder, or a
   * session file where the harness keeps its sessions.
   */
  files: { path: string; content: string }[];
  /** Variables to set for the child on top of its environment. */
  env?: Record<string, string>;
  /** A file the harness writes its final answer to. */
  outputFile?: string;
  /** The session id, when we chose it. */
  sessionId?: string;
}

/** What the run produced, as far as the harness said. */
export interface HeadlessOutput {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** The content of the plan's outputFile, when it exists. */
  outputFileText?: string;
}

/** The answer, the child's session id and the harness's own error report. */
export interface HeadlessResult {
  text: string;
  sessionId?: string;
  error?: string;
}

/** One harness's way of running headless. */
export interface HeadlessAdapter {
  plan(request: HeadlessRequest): HeadlessPlan;
  parse(output: HeadlessOutput, plan: HeadlessPlan): HeadlessResult;
}

/** The longest single argument on POSIX (Linux refuses any argument over 128 KiB). */
export const MAX_ARG_BYTES = 120_000;
/** The longest command line on Windows, counting quoting. */
export const MAX_WINDOWS_COMMAND_CHARS = 30_000;

/** Harnesses that read the task from stdin, by display name, for advice in refusals. */
export function stdinHarnessNames(): string[] {
  return headlessHarnesses()
    .map((k) => getHarness(k))
    .filter((h) => h.headless.task_on_stdin)
    .map((h) => h.display_name);
}

/** The harness's adapter; harnesses with no headless entry point are refused with why. */
export function headlessAdapter(harness: HarnessKey): HeadlessAdapter {
  const facts = getHarness(harness);
  const adapter = ADAPTERS[harness];
  if (!facts.runtime.headless_run || !facts.headless.binary || !adapter) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `${facts.display_name} cannot run an agent headless: ${
        facts.headless.unsupported_reason ?? "it has no headless mode"
      }`,
      {
        remediation: `Delegate with another harness: ${
          headlessHarnesses().map((k) => getHarness(k).display_name).join(", ")
        }`,
        resource: harness,
      },
    );
  }
  return adapter;
}

/**
 * Plans the run and checks its command line fits: the task rides on argv for most
 * harnesses, and an OS limit would otherwise fail the spawn with a cryptic error.
 *
 * @throws {ObservalError} FAILED_PRECONDITION for a harness with no headless mode, a
 *   resume for a harness that cannot resume, or a task too long for its command line
 */
export function planHeadlessRun(request: HeadlessRequest): HeadlessPlan {
  if (request.resume && !RESUMABLE_HARNESSES.includes(request.harness)) {
    // Its adapter would start a new session while the caller believes it resumed one.
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `${getHarness(request.harness).display_name} cannot resume a session`,
      { remediation: "Start a new session instead", resource: request.harness },
    );
  }
  const plan = headlessAdapter(request.harness).plan(request);
  checkCommandLine(request.harness, plan.argv, request.platform ?? hostPlatform());
  return plan;
}

function checkCommandLine(harness: HarnessKey, argv: string[], platform: string): void {
  const name = getHarness(harness).display_name;
  const names = stdinHarnessNames();
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0];
  const advice = `delegate with a harness that reads the task from stdin (${list})`;
  if (platform === "win32") {
    if (/\.(cmd|bat)$/i.test(argv[0]) && argv.length > 1) {
      throw new ObservalError(
        "FAILED_PRECONDITION",
        `${name} is installed as a batch file (${argv[0]}), and cmd.exe would parse the task text`,
        { remediation: `Install ${name} as an executable, or ${advice}`, resource: harness },
      );
    }
    const total = argv.reduce((n, a) => n + a.length + 3, 0);
    if (total > MAX_WINDOWS_COMMAND_CHARS) throw tooLong(name, advice, harness);
    return;
  }
  const encoder = new TextEncoder();
  if (argv.some((a) => encoder.encode(a).length > MAX_ARG_BYTES)) {
    throw tooLong(name, advice, harness);
  }
}

function tooLong(name: string, advice: string, harness: string): ObservalError {
  return new ObservalError(
    "FAILED_PRECONDITION",
    `The task and the agent's instructions are too long for the ${name} command line`,
    { remediation: `Shorten the task, or ${advice}`, resource: harness },
  );
}

/**
 * Parses the run's output with the harness's own rules. Exit codes are judged by the
 * caller; this only reads what the harness said.
 */
export function parseHeadlessOutput(
  harness: HarnessKey,
  output: HeadlessOutput,
  plan: HeadlessPlan,
): HeadlessResult {
  return headlessAdapter(harness).parse(output, plan);
}

/**
 * The prompt for harnesses that cannot select an agent profile: the agent's instructions
 * and the task, each fenced so neither can pass for the other.
 */
export function inlinePrompt(agentName: string, instructions: string, message: string): string {
  if (!instructions.trim()) return message;
  return [
    `Act as the agent "${agentName}": follow its instructions, then carry out the task.`,
    `<agent-instructions>\n${instructions.trim()}\n</agent-instructions>`,
    `<task>\n${message}\n</task>`,
  ].join("\n\n");
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Removes terminal escape sequences from harness output. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}
