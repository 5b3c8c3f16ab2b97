/**
 * The GitHub Action's step, run by action.yml from the action's own checkout:
 *
 *   deno run -A --config=$GITHUB_ACTION_PATH/deno.json $GITHUB_ACTION_PATH/scripts/action.ts
 *
 * It reads the inputs from `INPUT_*` variables, runs this checkout's observal (never one
 * from a registry), and writes the step's outputs to `$GITHUB_OUTPUT` (each value between
 * random delimiters), a summary to `$GITHUB_STEP_SUMMARY` and the returned patch to
 * `$RUNNER_TEMP`; with `apply` it also applies that patch to the checked-out repository.
 * The message goes to observal as one argument: nothing splits or expands it.
 * @module
 */
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { partsText, stateLabel, type Task, TaskSchema } from "../lib/a2a/mod.ts";

/** The action's checkout: observal runs from here. */
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** What `fail-on` accepts; `running` covers a task still submitted or working. */
export const FAIL_ON_STATES = [
  "failed",
  "rejected",
  "canceled",
  "input-required",
  "auth-required",
  "running",
  "completed",
] as const;
export type FailOnState = (typeof FAIL_ON_STATES)[number];

/** The default of `fail-on`: every way a task can end without doing its job. */
export const DEFAULT_FAIL_ON = "failed,rejected,canceled";

/** Exit codes of observal that carry a task rather than an error (see `observal help exit-codes`). */
const TASK_EXIT_CODES: ReadonlySet<number> = new Set([0, 3, 10]);

/** Most bytes of the patch shown in the step summary (the file always has all of it). */
const SUMMARY_PATCH_BYTES = 64 * 1024;

/** The action's inputs, as the runner hands them over. */
export interface ActionInputs {
  agent: string;
  message: string;
  harness: string;
  wait: string;
  apply: boolean;
  failOn: ReadonlySet<FailOnState>;
  serverUrl: string;
  apiKey: string;
  args: string[];
}

/** A refusal of the inputs: printed as one error annotation, and the step fails. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}

/**
 * One input, as the runner sets it: `INPUT_<NAME>` upper-cased, where a composite action's
 * step may spell `-` as `_` (an environment name with `-` cannot be set everywhere).
 */
function input(env: Readonly<Record<string, string | undefined>>, name: string): string {
  const key = `INPUT_${name.toUpperCase()}`;
  return env[key] ?? env[key.replaceAll("-", "_")] ?? "";
}

/**
 * Reads and checks the inputs.
 *
 * @param env the step's environment
 * @returns the inputs; the message exactly as given, the rest trimmed
 * @throws {InputError} when they contradict each other or a value is not allowed
 */
export function readInputs(env: Readonly<Record<string, string | undefined>>): ActionInputs {
  const agent = input(env, "agent").trim();
  const message = input(env, "message");
  const args = splitArgs(input(env, "args"));
  if (agent && args.length) {
    throw new InputError("Give either agent (with message) or args, not both");
  }
  if (!agent && !args.length) {
    throw new InputError("Nothing to run: give agent and message, or args for another command");
  }
  if (agent && !message.trim()) {
    throw new InputError("The message is empty: give the agent the complete brief in message");
  }
  const wait = input(env, "wait").trim() || "600";
  if (!/^\d+$/.test(wait)) {
    throw new InputError(`wait must be a number of seconds, not "${wait}"`);
  }
  const apply = input(env, "apply").trim().toLowerCase();
  if (!["", "true", "false"].includes(apply)) {
    throw new InputError(`apply must be true or false, not "${apply}"`);
  }
  return {
    agent,
    message,
    harness: input(env, "harness").trim(),
    wait,
    apply: apply === "true",
    failOn: parseFailOn(input(env, "fail-on")),
    serverUrl: input(env, "server-url").trim(),
    apiKey: input(env, "api-key").trim(),
    args,
  };
}

/**
 * The end states that fail the step, from a comma- or space-separated list; empty means
 * the default, `none` means no state fails it (errors still do).
 *
 * @throws {InputError} for a word that is not a state, naming the allowed ones
 */
export function parseFailOn(text: string): ReadonlySet<FailOnState> {
  const words = (text.trim() || DEFAULT_FAIL_ON).toLowerCase().split(/[\s,]+/).filter(Boolean);
  if (words.length === 1 && words[0] === "none") return new Set();
  for (const w of words) {
    if (!(FAIL_ON_STATES as readonly string[]).includes(w)) {
      throw new InputError(
        `fail-on does not know "${w}"; use some of ${FAIL_ON_STATES.join(", ")}, or none`,
      );
    }
  }
  return new Set(words as FailOnState[]);
}

/**
 * Splits `args` the way a shell splits words, without expanding anything: blanks and
 * newlines separate, '…' is literal, "…" keeps blanks and honours \" \\ \$ and \`, and a
 * backslash outside quotes keeps the next character.
 *
 * @throws {InputError} on an unterminated quote
 */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new InputError("args has an unterminated ' quote");
      word = (word ?? "") + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word ??= "";
      for (i++;; i++) {
        if (i >= text.length) throw new InputError('args has an unterminated " quote');
        if (text[i] === '"') break;
        if (text[i] === "\\" && '"\\$`'.includes(text[i + 1] ?? "")) i++;
        word += text[i];
      }
    } else if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i];
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) out.push(word);
  return out;
}

/**
 * One `$GITHUB_OUTPUT` entry: `name<<DELIMITER`, the value, the delimiter; the delimiter is
 * random and never part of the value, so no value can end it early or add outputs.
 */
export function outputEntry(name: string, value: string): string {
  let delimiter: string;
  do delimiter = `ghadelimiter_${randomUUID()}`; while (value.includes(delimiter));
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
}

/** Data escaped for a workflow command (`::error::…`). */
function commandData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/** A fence longer than any run of backticks in `text`. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}

/** What the step learned from a task. */
export interface TaskOutputs {
  taskId: string;
  state: string;
  answer: string;
  patchPath: string;
}

/** The answer: text of every artifact but the patch, else the status message. */
export function answerOf(task: Task): string {
  const artifacts = (task.artifacts ?? []).filter((a) => a.name !== "changes.patch");
  const text = artifacts.map((a) => partsText(a.parts)).filter(Boolean).join("\n\n");
  return text || partsText(task.status.message?.parts ?? []);
}

/**
 * The patch bytes: the task folder's `changes.patch` when it is on this machine, else the
 * artifact's text unless the artifact was cut.
 */
function patchOf(task: Task): string | undefined {
  const path = task.metadata.observal.patchPath;
  if (path && existsSync(path)) return readFileSync(path, "utf8");
  const artifact = task.artifacts?.find((a) => a.name === "changes.patch");
  if (!artifact || artifact.metadata?.truncated) return undefined;
  return partsText(artifact.parts) || undefined;
}

/** How this checkout's observal is started by the runtime running this script. */
function observalCommand(args: readonly string[]): string[] {
  const main = join(ROOT, "main.ts");
  if ("Deno" in globalThis) {
    return [
      process.execPath,
      "run",
      "-A",
      "--no-prompt",
      `--config=${join(ROOT, "deno.json")}`,
      main,
      ...args,
    ];
  }
  return [process.execPath, main, ...args];
}

interface Ran {
  code: number;
  stdout: string;
  /** The end of what observal said on stderr (at most {@linkcode STDERR_TAIL_BYTES}). */
  stderrTail: string;
}

/** How much of observal's stderr is kept to find its error message in. */
const STDERR_TAIL_BYTES = 16 * 1024;

/**
 * Runs observal in `cwd`. Its stderr (progress, errors) goes to the step's log as it comes;
 * the end of it is kept, so a failure can be annotated with observal's own message.
 */
function runObserval(
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
): Promise<Ran> {
  const [command, ...rest] = observalCommand(args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, rest, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let tail = Buffer.alloc(0);
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => {
      process.stderr.write(c);
      tail = Buffer.concat([tail, c]);
      if (tail.length > STDERR_TAIL_BYTES) tail = tail.subarray(tail.length - STDERR_TAIL_BYTES);
    });
    child.on("error", reject);
    child.on(
      "close",
      (code, signal) =>
        resolve({
          code: code ?? (signal ? 128 : 1),
          stdout: Buffer.concat(chunks).toString("utf8"),
          stderrTail: tail.toString("utf8"),
        }),
    );
  });
}

/**
 * observal's own account of a failure, from the end of its stderr: the `{"error": …}` line
 * a `--json` run prints, else the plain `error: …` line and the remediation after it.
 */
export function errorMessageIn(stderr: string): string | undefined {
  const lines = stderr.split("\n").map((l) => l.trimEnd()).filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (line.startsWith("{")) {
      try {
        const error = JSON.parse(line)?.error;
        if (typeof error?.message === "string") {
          return [error.message, error.remediation].filter((t) => typeof t === "string" && t)
            .join("\n");
        }
      } catch { /* not observal's error line */ }
    }
    const m = /^error: (.+)$/.exec(line);
    if (m) return [m[1], ...lines.slice(i + 1, i + 2)].join("\n");
  }
  return undefined;
}

/** observal's environment: the caller's, without the inputs (the key among them). */
function observalEnv(env: Readonly<Record<string, string | undefined>>, inputs: ActionInputs) {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && !k.startsWith("INPUT_")) out[k] = v;
  }
  out.NO_COLOR = "1";
  if (inputs.serverUrl) out.OBSERVAL_SERVER_URL = inputs.serverUrl;
  if (inputs.apiKey) out.OBSERVAL_API_KEY = inputs.apiKey;
  return out;
}

/** The task in observal's `--json` output, if it printed one. */
function taskIn(stdout: string): Task | undefined {
  try {
    const parsed = TaskSchema.safeParse(JSON.parse(stdout));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Options for {@linkcode runAction}. */
export interface RunOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Where the workflow's repository is checked out (`apply` applies the patch there). */
  cwd: string;
  log: (line: string) => void;
}

/**
 * The whole step: inputs in, observal run, outputs, summary and patch out.
 *
 * @returns the step's exit code: 1 when observal failed, the task ended in a `fail-on`
 *   state, or the patch did not apply; else 0
 */
export async function runAction(options: RunOptions): Promise<number> {
  const { env, log } = options;
  const outputs = env.GITHUB_OUTPUT;
  const put = (name: string, value: string) => {
    if (outputs) appendFileSync(outputs, outputEntry(name, value));
  };
  const summary = (markdown: string) => {
    if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, markdown);
  };
  const fail = (message: string) => {
    log(`::error title=observal::${commandData(message)}`);
    return 1;
  };

  let inputs: ActionInputs;
  try {
    inputs = readInputs(env);
  } catch (err) {
    if (err instanceof InputError) return fail(err.message);
    throw err;
  }
  if (inputs.apiKey) log(`::add-mask::${inputs.apiKey}`);
  const args = inputs.agent
    ? [
      "delegate",
      "run",
      inputs.agent,
      "--wait",
      inputs.wait,
      ...(inputs.harness ? ["--harness", inputs.harness] : []),
      "--json",
      // Everything after `--` is the message, even when it starts with "-".
      "--",
      inputs.message,
    ]
    : inputs.args;

  const ran = await runObserval(args, observalEnv(env, inputs), options.cwd);
  put("exit-code", String(ran.code));
  // Any other command's output as it is; a delegation's is summed up in the outputs below.
  if (!inputs.agent) put("stdout", ran.stdout);
  const task = taskIn(ran.stdout);
  if (!task) {
    if (!inputs.agent) process.stdout.write(ran.stdout);
    for (const name of ["task-id", "state", "answer", "patch-path"]) put(name, "");
    if (ran.code === 0) return 0;
    const said = errorMessageIn(ran.stderrTail);
    return fail(
      `observal ${args[0] ?? ""} ended with exit code ${ran.code}${said ? `: ${said}` : ""}`,
    );
  }

  const state = stateLabel(task.status.state);
  // A task still running has no answer yet: its status message is progress, not a result.
  const running = state === "submitted" || state === "working";
  const answer = running ? "" : answerOf(task);
  const patch = patchOf(task);
  let patchPath = "";
  if (patch) {
    const dir = join(env.RUNNER_TEMP || tmpdir(), "observal");
    mkdirSync(dir, { recursive: true });
    patchPath = join(dir, `${task.id}.patch`);
    writeFileSync(patchPath, patch);
  }
  put("task-id", task.id);
  put("state", state);
  put("answer", answer);
  put("patch-path", patchPath);

  const name = task.metadata.observal.targetName ?? task.metadata.observal.target ?? "the agent";
  const lines = [`### observal: ${name} — ${state}`, "", `Task \`${task.id}\`, exit ${ran.code}`];
  if (answer) lines.push("", fence(answer), answer, fence(answer));
  if (running) {
    lines.push("", `Still running; follow it with \`observal delegate status ${task.id}\`.`);
  }
  if (patch) {
    const shown = patch.length > SUMMARY_PATCH_BYTES ? patch.slice(0, SUMMARY_PATCH_BYTES) : patch;
    const cut = shown.length < patch.length ? " (cut; the artifact has all of it)" : "";
    lines.push(
      "",
      `<details><summary>changes.patch${cut}</summary>`,
      "",
      `${fence(shown)}diff`,
      shown.replace(/\n$/, ""),
      fence(shown),
      "",
      "</details>",
    );
  }
  summary(`${lines.join("\n")}\n\n`);
  log(`observal: task ${task.id} ${state}${patchPath ? `; patch in ${patchPath}` : ""}`);

  let code = 0;
  if (!TASK_EXIT_CODES.has(ran.code)) {
    const said = errorMessageIn(ran.stderrTail);
    code = fail(`observal ended with exit code ${ran.code}${said ? `: ${said}` : ""}`);
  }
  const settledAs: FailOnState = running ? "running" : state as FailOnState;
  if (inputs.failOn.has(settledAs)) {
    const why = partsText(task.status.message?.parts ?? []);
    code = fail(`Task ${task.id} ended ${state}${why ? `: ${why}` : ""}`);
  }
  if (inputs.apply && patchPath && code === 0) {
    const top = task.metadata.observal.repository ?? options.cwd;
    const applied = await new Promise<number>((resolve) => {
      const git = spawn("git", ["-C", top, "apply", patchPath], { stdio: "inherit" });
      git.on("error", () => resolve(-1));
      git.on("close", (c) => resolve(c ?? 1));
    });
    if (applied !== 0) code = fail(`The patch did not apply to ${top}; it is in ${patchPath}`);
    else log(`observal: applied the patch to ${top}`);
  }
  return code;
}

if (import.meta.main) {
  runAction({
    env: process.env,
    cwd: process.cwd(),
    log: (line) => void process.stdout.write(`${line}\n`),
  }).then(
    (code) => (process.exitCode = code),
    (err) => {
      process.stdout.write(
        `::error title=observal::${
          commandData(err instanceof Error ? err.message : String(err))
        }\n`,
      );
      process.exitCode = 1;
    },
  );
}
