/**
 * The one writer for install snippets: `observal agent pull` and the delegation workspace
 * install both put an agent's files on disk through {@linkcode writeSnippet}. Every path is
 * checked before the first byte is written, every write is atomic, and MCP config files are
 * merged so the user's other servers and settings stay.
 *
 * One module past 400 lines: the checks, the atomic writes and the merges are one plan over
 * the same list of files.
 * @module
 */
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, extname, isAbsolute, join } from "node:path";
import { z } from "zod";
import { definedEnv, type Env, ObservalError } from "../core/mod.ts";
import { type ConfigSnippet, ConfigSnippetSchema, SnippetFileSchema } from "./config_snippet.ts";
import { type InstallPath, resolveInstallPath } from "./install_path.ts";
import type { Doc } from "./_merge_common.ts";
import { jsonText, mergeJson } from "./_merge_json.ts";
import { mergeToml, tomlText } from "./_merge_toml.ts";
import { mergeYaml, yamlText } from "./_merge_yaml.ts";
import type { Scope } from "./registry.ts";

/** What happened (or, in a dry run, would happen) to one file. */
export type FileStatus =
  | "created"
  | "updated"
  | "merged"
  | "unchanged"
  | "would create"
  | "would update"
  | "would merge";

/** One file of the install. */
export interface WrittenFile {
  /** The snippet part it came from (`agent_profile`, `mcp_config`, `skills`, ...). */
  key: string;
  /** The absolute path, links in existing folders resolved. */
  path: string;
  /** The path relative to the target directory (with `/`), when it lies inside it. */
  relative?: string;
  status: FileStatus;
}

/** One MCP setup command (Claude Code's `claude mcp add ...`). */
export interface SetupCommandResult {
  /** The argv, run without a shell. */
  command: string[];
  status: "completed" | "failed" | "would_run" | "skipped";
  /** The exit code, when the command ran to an exit. */
  return_code?: number;
  /** Why it failed: "<exe> not found", "timed out", "exited with code N", ... */
  error?: string;
}

/** What {@linkcode writeSnippet} did. */
export interface WriteSnippetResult {
  files: WrittenFile[];
  setup_commands: SetupCommandResult[];
  /** Parts of the snippet this version does not write. */
  warnings: string[];
}

/** Options for {@linkcode writeSnippet}. */
export interface WriteSnippetOptions {
  /** The project directory (absolute); it must exist. */
  targetDir: string;
  /** The scope the snippet was rendered for; `~/` means `home` only at user scope. */
  scope: Scope;
  /** The user's home directory (absolute), from the Context's HOME; needed at user scope. */
  home?: string;
  /** Plan and report, write nothing and run nothing. @default false */
  dryRun?: boolean;
  /** Run the snippet's MCP setup commands, or leave them out. @default "run" */
  setupCommands?: "run" | "skip";
  /** The complete environment setup commands run with (PATH included). @default {} */
  env?: Env;
  /** How long each setup command may run, in ms. @default 60000 */
  setupTimeoutMs?: number;
  /**
   * Force each file to the disk before it replaces the old one. Off for a folder thrown
   * away after one run (a delegation's copy), where a flush buys nothing. @default true
   */
  flush?: boolean;
}

/** One file the snippet asks for, with its content serialised. */
export interface SnippetFilePlan {
  key: string;
  /** The path as the snippet wrote it (relative, or `~/...`). */
  path: string;
  /** Object content merged into an existing file rather than replacing it. */
  merge: boolean;
  /** Object content (to be merged), or undefined for text. */
  data?: Doc;
  /** The file's full text when written new. */
  text: string;
  /** Hook scripts are made executable. */
  executable: boolean;
}

/** The files, commands and leftovers of a snippet, without touching the disk. */
export interface SnippetPlan {
  files: SnippetFilePlan[];
  setupCommands: string[][];
  /** Claude Code's MCP map: registered by the setup commands, never written as a file. */
  unwrittenServers: string[];
  warnings: string[];
}

// Snippet parts a newer registry may send; written the same way when present.
const HooksConfigSchema = z.lazy(() =>
  SnippetFileSchema.unwrap().extend({ merge: z.boolean().optional() })
);
const HookFileSchema = z.strictObject({
  path: z.string().min(1),
  content: z.string(),
  executable: z.boolean().optional(),
});
const TextFileSchema = z.strictObject({ path: z.string().min(1), content: z.string() });
const EXTRA_PARTS = {
  hooks_config: HooksConfigSchema,
  steering_file: TextFileSchema,
  hook_files: z.array(HookFileSchema),
  prompt_files: z.array(TextFileSchema),
};
const KNOWN = new Set([
  "agent_profile",
  "mcp_config",
  "mcp_setup_commands",
  "skills",
  "scope",
  "_warnings",
  ...Object.keys(EXTRA_PARTS),
]);

const SERIALISERS: Record<
  string,
  [(d: Doc) => string, (text: string, d: Doc, f: string) => string]
> = {
  ".json": [jsonText, mergeJson],
  ".toml": [tomlText, mergeToml],
  ".yaml": [yamlText, mergeYaml],
  ".yml": [yamlText, mergeYaml],
};

function invalidSnippet(message: string, cause?: unknown): ObservalError {
  return new ObservalError("INVALID_ARGUMENT", message, {
    cause,
    remediation: "Nothing was written. Check that observal and the registry are the same version",
  });
}

function filePlan(
  key: string,
  file: { path: string; content: string | Doc },
  merge: boolean,
  executable = false,
): SnippetFilePlan {
  if (typeof file.content === "string") {
    return { key, path: file.path, merge: false, text: file.content, executable };
  }
  const formats = SERIALISERS[extname(file.path).toLowerCase()];
  if (!formats) {
    throw invalidSnippet(
      `The install config gives structured content for ${file.path}, which has no known format`,
    );
  }
  return {
    key,
    path: file.path,
    merge,
    data: file.content,
    text: formats[0](file.content),
    executable,
  };
}

/**
 * Lists what a snippet would write, in writing order (MCP config, hooks config, profile,
 * steering file, hook files, prompt files, skills), with object content serialised by the
 * file's extension. Touches nothing.
 *
 * @param snippet an install's `config_snippet` (parsed with ConfigSnippetSchema here)
 * @returns the files, the setup commands and the servers left to them
 * @throws {ObservalError} INVALID_ARGUMENT when the snippet does not match its schema
 */
export function planSnippet(snippet: unknown): SnippetPlan {
  const parsed = ConfigSnippetSchema.safeParse(snippet);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidSnippet(
      `The install config is malformed at ${issue.path.join(".") || "its root"}: ${issue.message}`,
    );
  }
  const s: ConfigSnippet = parsed.data;
  const extra: { [K in keyof typeof EXTRA_PARTS]?: z.infer<(typeof EXTRA_PARTS)[K]> } = {};
  for (const [key, schema] of Object.entries(EXTRA_PARTS)) {
    if (s[key] === undefined) continue;
    const part = schema.safeParse(s[key]);
    if (!part.success) throw invalidSnippet(`The install config's ${key} is malformed`);
    Object.assign(extra, { [key]: part.data });
  }
  const files: SnippetFilePlan[] = [];
  const unwrittenServers: string[] = [];
  const mcp = SnippetFileSchema.safeParse(s.mcp_config);
  // MCP config files are always merged; Claude Code's plain map has no file at all.
  if (mcp.success) files.push(filePlan("mcp_config", mcp.data, true));
  else if (s.mcp_config) unwrittenServers.push(...Object.keys(s.mcp_config));
  if (extra.hooks_config) {
    files.push(filePlan("hooks_config", extra.hooks_config, extra.hooks_config.merge === true));
  }
  if (s.agent_profile) files.push(filePlan("agent_profile", s.agent_profile, false));
  if (extra.steering_file) files.push(filePlan("steering_file", extra.steering_file, false));
  for (const f of extra.hook_files ?? []) {
    files.push(filePlan("hook_files", f, false, f.executable === true));
  }
  for (const f of extra.prompt_files ?? []) files.push(filePlan("prompt_files", f, false));
  for (const f of s.skills ?? []) files.push(filePlan("skills", f, false));
  const warnings = Object.keys(s).filter((k) => !KNOWN.has(k)).map((k) =>
    `The install config's "${k}" part is not supported by this version of observal and was skipped`
  );
  return { files, setupCommands: s.mcp_setup_commands ?? [], unwrittenServers, warnings };
}

/**
 * Writes `data` to `path` atomically: a temp file in the same folder, flushed, then renamed
 * over the target, so readers see the old file or the new one, never half of one.
 *
 * @param path the file to replace or create
 * @param data the new content
 * @param options `mode`: set exactly (kept from the old file, or 0o755 for scripts); by
 *   default a new file gets 0o666 less the umask. `flush: false` skips forcing it to the disk
 *   first (a throwaway folder)
 * @throws {Error} the file system error; the temp file is removed first
 *
 * @example
 * ```ts
 * const dir = Deno.makeTempDirSync();
 * writeFileAtomic(`${dir}/config.json`, "{}\n");
 * ```
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; flush?: boolean } = {},
): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", options.mode ?? 0o666);
  try {
    try {
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      if (options.flush ?? true) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // openSync's mode passes through the umask; an explicit mode must hold exactly.
    if (options.mode !== undefined) chmodSync(tmp, options.mode);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

interface Planned {
  plan: SnippetFilePlan;
  at: InstallPath;
  text: string;
  status: "created" | "updated" | "merged" | "unchanged";
}

function display(at: InstallPath): string {
  return at.relative ?? at.path;
}

function readExisting(at: InstallPath): Buffer {
  try {
    return readFileSync(at.path);
  } catch (err) {
    throw new ObservalError("UNAVAILABLE", `Cannot read ${at.path}`, {
      cause: err,
      remediation: "Nothing was written. Check the file's permissions and run the install again",
      resource: at.path,
    });
  }
}

function prepare(plan: SnippetFilePlan, at: InstallPath): Planned {
  if (!at.existing) return { plan, at, text: plan.text, status: "created" };
  const old = readExisting(at);
  if (plan.merge && plan.data) {
    const merge = SERIALISERS[extname(plan.path).toLowerCase()][1];
    const oldText = old.toString("utf8");
    const text = merge(oldText, plan.data, display(at));
    return { plan, at, text, status: text === oldText ? "unchanged" : "merged" };
  }
  const same = old.equals(Buffer.from(plan.text, "utf8"));
  return { plan, at, text: plan.text, status: same ? "unchanged" : "updated" };
}

function writePlanned(p: Planned, written: string[], flush: boolean): void {
  const dir = dirname(p.at.path);
  try {
    mkdirSync(dir, { recursive: true });
    // The folders were checked before writing; make sure no link appeared since.
    if (realpathSync(dir) !== dir) {
      throw new ObservalError(
        "INVALID_ARGUMENT",
        `Generated path escapes the target directory: ${p.plan.path}`,
        {
          remediation: `${dir} changed while the install ran; run it again`,
          resource: p.plan.path,
        },
      );
    }
    const mode = p.at.existing
      ? p.at.existing.mode & 0o7777
      : p.plan.executable
      ? 0o755
      : undefined;
    writeFileAtomic(p.at.path, p.text, { mode, flush });
  } catch (err) {
    if (err instanceof ObservalError) throw err;
    throw new ObservalError(
      "UNAVAILABLE",
      `Could not write ${p.at.path}: ${(err as Error).message}`,
      {
        cause: err,
        remediation: written.length
          ? `Already written: ${written.join(", ")}. Fix the problem and run the install again`
          : "Nothing was written. Fix the problem and run the install again",
        resource: p.at.path,
      },
    );
  }
}

const TAIL = 4096;

/** Runs one setup command without a shell and says how it ended. */
function runSetupCommand(
  argv: string[],
  options: { cwd: string; env: Env; timeoutMs: number },
): Promise<SetupCommandResult> {
  return new Promise((resolvePromise) => {
    let settled = false;
    let output = "";
    let grace: ReturnType<typeof setTimeout> | undefined;
    const settle = (result: Omit<SetupCommandResult, "command">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      resolvePromise({ command: argv, ...result });
    };
    const child = spawn(argv[0], argv.slice(1), {
      cwd: options.cwd,
      env: definedEnv(options.env),
      stdio: ["ignore", "pipe", "pipe"],
      shell: false,
      windowsHide: true,
    });
    const keep = (chunk: Uint8Array) => {
      output = (output + Buffer.from(chunk).toString("utf8")).slice(-TAIL);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const ended = (code: number | null, signal: string | null) => {
      const last = output.trim().split("\n").pop()?.trim();
      const detail = last ? `: ${last}` : "";
      if (code === 0) settle({ status: "completed", return_code: 0 });
      else if (code !== null) {
        settle({ status: "failed", return_code: code, error: `exited with code ${code}${detail}` });
      } else settle({ status: "failed", error: `ended by signal ${signal}${detail}` });
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      // Settle now: a grandchild may hold the pipes open long after the kill.
      child.stdout?.destroy();
      child.stderr?.destroy();
      settle({ status: "failed", error: `timed out after ${options.timeoutMs / 1000} s` });
    }, options.timeoutMs);
    child.once("error", (err: NodeJS.ErrnoException) => {
      const error = err.code === "ENOENT"
        ? `${argv[0]} not found`
        : `${argv[0]} could not start (${err.code ?? err.message})`;
      settle({ status: "failed", error });
    });
    child.once("close", ended);
    child.once("exit", (code, signal) => {
      // Normally "close" follows at once with the last output; a background grandchild
      // holding the pipes must not keep the pull waiting.
      grace = setTimeout(() => ended(code, signal), 2000);
    });
  });
}

/**
 * Writes an install snippet into a target directory (and, at user scope, the user's home),
 * then runs its MCP setup commands.
 *
 * Every path is resolved and checked first; if any escapes its root (absolute, `..`, or
 * through a link in an existing folder) nothing at all is written. Text content replaces
 * the file. Object content is serialised by extension (JSON, TOML, YAML); MCP config files
 * (and hooks configs flagged `merge`) are merged: the root section entry by entry, other
 * top-level keys replaced, everything else in the file kept. Existing files keep their
 * mode. Setup commands run one after another without a shell, in the target directory.
 *
 * @param snippet an install's `config_snippet`
 * @param options target directory, scope, home, dry run and setup-command handling
 * @returns each file with its status, each setup command with its outcome, and warnings
 * @throws {ObservalError} INVALID_ARGUMENT for a malformed snippet or an escaping path,
 *   FAILED_PRECONDITION when an existing config cannot be merged (nothing is written),
 *   UNAVAILABLE when the file system refuses a write. A failed setup command does not
 *   throw: it is reported in the result for the caller to act on.
 *
 * @example
 * ```ts
 * const dir = Deno.makeTempDirSync();
 * const result = await writeSnippet(
 *   { agent_profile: { path: "AGENTS.md", content: "Review carefully.\n" }, scope: "project" },
 *   { targetDir: dir, scope: "project" },
 * );
 * result.files[0].status; // "created"
 * ```
 */
export async function writeSnippet(
  snippet: unknown,
  options: WriteSnippetOptions,
): Promise<WriteSnippetResult> {
  if (!isAbsolute(options.targetDir)) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `The target directory ${options.targetDir} is not absolute`,
      {
        remediation: "Resolve it against the working directory first",
      },
    );
  }
  const plan = planSnippet(snippet);
  const rendered = (snippet as { scope?: unknown }).scope;
  if (rendered !== options.scope) {
    throw invalidSnippet(
      `The install config was rendered for ${rendered} scope, not ${options.scope}`,
    );
  }

  // Resolve and read everything first, so a refusal leaves the disk untouched.
  const planned: Planned[] = [];
  const seen = new Map<string, string>();
  for (const file of plan.files) {
    const at = resolveInstallPath(file.path, options);
    const twice = seen.get(at.path);
    if (twice !== undefined) {
      throw invalidSnippet(
        `The install config writes ${at.path} twice (${twice} and ${file.path})`,
      );
    }
    seen.set(at.path, file.path);
    planned.push(prepare(file, at));
  }

  const files: WrittenFile[] = [];
  const written: string[] = [];
  for (const p of planned) {
    let status: FileStatus = p.status;
    if (options.dryRun) {
      if (status !== "unchanged") {
        status = `would ${
          status === "created" ? "create" : status === "merged" ? "merge" : "update"
        }`;
      }
    } else if (status !== "unchanged") {
      writePlanned(p, written, options.flush ?? true);
      written.push(display(p.at));
    }
    files.push({
      key: p.plan.key,
      path: p.at.path,
      ...(p.at.relative ? { relative: p.at.relative } : {}),
      status,
    });
  }

  const setup_commands: SetupCommandResult[] = [];
  for (const command of plan.setupCommands) {
    if (options.dryRun) setup_commands.push({ command, status: "would_run" });
    else if (options.setupCommands === "skip") setup_commands.push({ command, status: "skipped" });
    else {
      setup_commands.push(
        await runSetupCommand(command, {
          cwd: realpathSync(options.targetDir),
          env: options.env ?? {},
          timeoutMs: options.setupTimeoutMs ?? 60_000,
        }),
      );
    }
  }
  return { files, setup_commands, warnings: plan.warnings };
}
