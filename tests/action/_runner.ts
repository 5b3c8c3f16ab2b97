/**
 * Runs action.yml's steps as a GitHub runner runs a composite action: inputs (with their
 * defaults) as `INPUT_*` variables, `${{ }}` expressions substituted, each `run:` step written
 * to a file and run by `bash --noprofile --norc -eo pipefail` with its own `GITHUB_OUTPUT`
 * and `GITHUB_STEP_SUMMARY`, `if:` conditions evaluated, and the action's outputs resolved
 * from the steps' outputs. `uses:` steps are not run (they need GitHub's services); they
 * are recorded with their evaluated `with:` and given the outputs the test says they had.
 *
 * Only the expression forms action.yml uses are understood; anything else throws, so an
 * unsupported change to action.yml fails the test rather than passing unnoticed.
 * @module
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const ACTION_PATH = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

interface StepDef {
  id?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string>;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
  "working-directory"?: string;
}

interface ActionDef {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: StepDef[] };
}

/** A `uses:` step as the runner would have started it. */
export interface UsedStep {
  uses: string;
  with: Record<string, string>;
}

/** What a run of the action produced. */
export interface ActionRun {
  /** The action's outputs, as a workflow sees them. */
  outputs: Record<string, string>;
  /** Exit code of the step that failed the action, or 0. */
  code: number;
  /** stdout and stderr of every step, in order. */
  log: string;
  /** Every step's `$GITHUB_STEP_SUMMARY`, joined. */
  summary: string;
  /** The raw `$GITHUB_OUTPUT` file of each run step, by step id. */
  outputFiles: Record<string, string>;
  /** `uses:` steps whose condition held. */
  used: UsedStep[];
}

/** Options for {@linkcode runAction}. */
export interface RunActionOptions {
  /** The `with:` of the workflow step. */
  with: Record<string, string>;
  /** The job's environment (PATH, HOME, OBSERVAL_HOME, ...). */
  env: Record<string, string>;
  /** GITHUB_WORKSPACE: the checked-out repository, and each step's default cwd. */
  workspace: string;
  /** A scratch folder for RUNNER_TEMP and the runner's files. */
  temp: string;
  /** Outputs of `uses:` steps by action name (e.g. actions/cache → { "cache-hit": "true" }). */
  usesOutputs?: Record<string, Record<string, string>>;
}

/** Parses a `$GITHUB_OUTPUT` file: `name=value` lines and `name<<DELIMITER` blocks. */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line) continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delimiter] = heredoc;
      const end = lines.indexOf(delimiter, i + 1);
      if (end < 0) throw new Error(`output ${name}: delimiter ${delimiter} never closes`);
      out[name] = lines.slice(i + 1, end).join("\n");
      i = end;
      continue;
    }
    const eq = line.indexOf("=");
    if (eq < 0) throw new Error(`not an output line: ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** Runs action.yml as described in the module doc. */
export async function runAction(options: RunActionOptions): Promise<ActionRun> {
  const action = parse(readFileSync(join(ACTION_PATH, "action.yml"), "utf8")) as ActionDef;
  if (action.runs.using !== "composite") throw new Error(`not composite: ${action.runs.using}`);
  const inputs: Record<string, string> = {};
  for (const [name, def] of Object.entries(action.inputs)) {
    inputs[name] = options.with[name] ?? def.default ?? "";
  }
  for (const name of Object.keys(options.with)) {
    if (!(name in action.inputs)) throw new Error(`action.yml has no input ${name}`);
  }
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  const runnerTemp = join(options.temp, "runner-temp");
  mkdirSync(runnerTemp, { recursive: true });
  const context = (path: string): string => {
    const [scope, ...rest] = path.split(".");
    if (scope === "inputs") return inputs[rest.join(".")] ?? "";
    if (path === "github.action_path") return ACTION_PATH;
    if (path === "github.workspace") return options.workspace;
    if (path === "runner.os") return "Linux";
    if (path === "runner.arch") return "X64";
    if (path === "runner.temp") return runnerTemp;
    if (scope === "steps" && rest[1] === "outputs") {
      return steps[rest[0]]?.outputs[rest.slice(2).join(".")] ?? "";
    }
    throw new Error(`expression not understood by the test runner: ${path}`);
  };
  const substitute = (text: string) =>
    text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, p: string) => context(p));
  let failed = 0;
  const condition = (expr: string | undefined): boolean => {
    if (expr === undefined) return failed === 0;
    let always = false;
    const terms = expr.split("&&").map((t) => t.trim()).filter((t) => {
      if (t === "always()") return !(always = true);
      return true;
    });
    if (!always && failed) return false;
    return terms.every((t) => {
      const m = /^([\w.-]+)\s*(==|!=)\s*'([^']*)'$/.exec(t);
      if (!m) throw new Error(`condition not understood by the test runner: ${t}`);
      return (context(m[1]) === m[3]) === (m[2] === "==");
    });
  };

  // What a runner sets for every step of a composite action.
  const base: Record<string, string> = {
    ...options.env,
    GITHUB_ACTIONS: "true",
    CI: "true",
    GITHUB_ACTION_PATH: ACTION_PATH,
    GITHUB_WORKSPACE: options.workspace,
    RUNNER_TEMP: runnerTemp,
    RUNNER_OS: "Linux",
    RUNNER_ARCH: "X64",
  };
  for (const [name, value] of Object.entries(inputs)) {
    base[`INPUT_${name.toUpperCase()}`] = value;
  }

  let log = "";
  let summary = "";
  const outputFiles: Record<string, string> = {};
  const used: UsedStep[] = [];
  const fileDir = mkdtempSync(join(options.temp, "runner-files-"));
  for (const [index, step] of action.runs.steps.entries()) {
    const id = step.id ?? `__${index}`;
    if (!condition(step.if)) continue;
    if (step.uses) {
      const withValues = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v))]),
      );
      used.push({ uses: step.uses, with: withValues });
      const name = step.uses.replace(/@.*$/, "");
      steps[id] = { outputs: options.usesOutputs?.[name] ?? {} };
      continue;
    }
    if (step.shell !== "bash") throw new Error(`step ${id}: shell ${step.shell} not supported`);
    const outputFile = join(fileDir, `output-${index}`);
    const summaryFile = join(fileDir, `summary-${index}`);
    const script = join(fileDir, `step-${index}.sh`);
    writeFileSync(outputFile, "");
    writeFileSync(summaryFile, "");
    writeFileSync(script, substitute(step.run ?? ""));
    const env: Record<string, string> = {
      ...base,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
    };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = substitute(String(v));
    const cwd = step["working-directory"]
      ? substitute(step["working-directory"])
      : options.workspace;
    const { code, output } = await bash(script, env, cwd);
    log += output;
    const outputText = readFileSync(outputFile, "utf8");
    outputFiles[id] = outputText;
    steps[id] = { outputs: parseOutputFile(outputText) };
    summary += readFileSync(summaryFile, "utf8");
    if (code !== 0 && !failed) failed = code;
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, def]) => [name, substitute(def.value)]),
  );
  return { outputs, code: failed, log, summary, outputFiles, used };
}

function bash(
  script: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}
