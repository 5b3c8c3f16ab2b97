/**
 * Whether a harness run headless (`claude -p`, `codex exec`) may call observal-agents'
 * tools without a person to ask, what `observal mcp install --allow-headless` writes so it
 * may, and which trust step a harness still needs. Measured with the real CLIs:
 *
 * - Claude Code in print mode denies an MCP tool no allow rule names. The rule works in
 *   `.claude/settings.local.json` and in the user's `settings.json`; one in the project's
 *   committed `.claude/settings.json` did not.
 * - Codex `exec` refuses `delegate` ("MCP tool call requires approval, but approval policy
 *   is never") unless the server's `default_tools_approval_mode` is `approve`, and reads a
 *   project's `.codex/config.toml` only once `[projects."<dir>"] trust_level = "trusted"`
 *   stands in its own config.
 * - OpenCode `run` calls MCP tools unasked (a `permission` rule set to `ask` is refused).
 *
 * In interactive use the harness's own prompt stays the consent point; nothing here is
 * written unless asked for.
 * @module
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { Env } from "../core/mod.ts";
import { DELEGATION_MCP_NAME } from "./agent_definition.ts";
import type { Doc } from "./_merge_common.ts";
import { jsonText, mergeJson } from "./_merge_json.ts";
import { mergeToml, tomlText } from "./_merge_toml.ts";
import { writeFileAtomic } from "./write_snippet.ts";
import type { HarnessKey, Scope } from "./registry.ts";

/** Claude Code's allow rule for every observal-agents tool. */
export const CLAUDE_ALLOW_RULE = `mcp__${DELEGATION_MCP_NAME}`;

/** What Codex's `default_tools_approval_mode` must say for `codex exec` to call the tools. */
export const CODEX_APPROVE = "approve";

/**
 * The scope `mcp install` writes when none is given. Codex ignores a project's config
 * until the project is trusted, so its entry goes where Codex always reads: the user's.
 */
export function mcpDefaultScope(harness: HarnessKey, factsDefault: Scope): Scope {
  return harness === "codex" ? "user" : factsDefault;
}

function userHome(env: Env): string {
  return env.HOME || env.USERPROFILE || "";
}

/** Claude Code's own folder: `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: Env): string {
  return env.CLAUDE_CONFIG_DIR || join(userHome(env), ".claude");
}

/** Codex's config file: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`. */
export function codexConfigPath(env: Env): string {
  return join(env.CODEX_HOME || join(userHome(env), ".codex"), "config.toml");
}

/** The settings file Claude Code reads an allow rule from in print mode, for a scope. */
export function claudeSettingsPath(scope: Scope, env: Env, dir: string): string {
  return scope === "project"
    ? join(resolve(dir), ".claude", "settings.local.json")
    : join(claudeConfigDir(env), "settings.json");
}

/** One file the opt-in merges into, and what it adds, in words. */
export interface AllowWrite {
  /** Absolute path. */
  path: string;
  format: "json" | "toml";
  /** What to merge: the root section is updated entry by entry (see mergeData). */
  incoming: Doc;
  /** What it adds, for the user: `permissions.allow += "mcp__observal-agents"`. */
  adds: string;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function readDoc(path: string): Doc | undefined {
  const text = readText(path);
  if (text === undefined) return undefined;
  try {
    const doc = path.endsWith(".toml") ? parseToml(text) : JSON.parse(text);
    return doc && typeof doc === "object" && !Array.isArray(doc) ? doc as Doc : undefined;
  } catch {
    return undefined;
  }
}

function allowList(doc: Doc | undefined): string[] {
  const permissions = doc?.permissions as Doc | undefined;
  const allow = permissions?.allow;
  return Array.isArray(allow) ? allow.filter((a): a is string => typeof a === "string") : [];
}

/** Whether a Claude Code allow rule lets `delegate` of observal-agents through. */
function allowsDelegate(rule: string): boolean {
  return rule === CLAUDE_ALLOW_RULE || rule === `${CLAUDE_ALLOW_RULE}__*` ||
    rule === `${CLAUDE_ALLOW_RULE}__delegate`;
}

/** Whether Codex's own config marks `dir` trusted. */
export function codexTrusts(env: Env, dir: string): boolean {
  const projects = readDoc(codexConfigPath(env))?.projects as Doc | undefined;
  const entry = projects?.[resolve(dir)] as Doc | undefined;
  return entry?.trust_level === "trusted";
}

/**
 * The files `--allow-headless` merges into besides the entry itself (Codex's approval
 * mode lives in the entry): Claude Code's allow rule, Codex's trust in a project.
 *
 * @param harness the harness
 * @param scope the scope the entry is written at
 * @param env HOME and the harnesses' home variables
 * @param dir the project directory
 */
export function allowWrites(
  harness: HarnessKey,
  scope: Scope,
  env: Env,
  dir: string,
): AllowWrite[] {
  if (harness === "claude-code") {
    const path = claudeSettingsPath(scope, env, dir);
    const allow = allowList(readDoc(path));
    const next = allow.some(allowsDelegate) ? allow : [...allow, CLAUDE_ALLOW_RULE];
    return [{
      path,
      format: "json",
      incoming: { permissions: { allow: next } },
      adds: `permissions.allow: "${CLAUDE_ALLOW_RULE}"`,
    }];
  }
  if (harness === "codex" && scope === "project") {
    const project = resolve(dir);
    return [{
      path: codexConfigPath(env),
      format: "toml",
      incoming: { projects: { [project]: { trust_level: "trusted" } } },
      adds: `[projects."${project}"] trust_level = "trusted"`,
    }];
  }
  return [];
}

/**
 * Merges one opt-in write into its file (created with its folder when missing), keeping
 * everything else the file holds.
 *
 * @returns what happened, as `writeSnippet` says it
 * @throws {ObservalError} FAILED_PRECONDITION when the file cannot be merged safely
 */
export function applyAllowWrite(
  write: AllowWrite,
  dryRun: boolean,
): "created" | "merged" | "unchanged" | "would create" | "would merge" {
  const existing = readText(write.path);
  const text = existing === undefined
    ? (write.format === "json" ? jsonText(write.incoming) : tomlText(write.incoming))
    : write.format === "json"
    ? mergeJson(existing, write.incoming, write.path)
    : mergeToml(existing, write.incoming, write.path);
  if (existing !== undefined && text === existing) return "unchanged";
  if (dryRun) return existing === undefined ? "would create" : "would merge";
  mkdirSync(dirname(write.path), { recursive: true });
  writeFileAtomic(write.path, text);
  return existing === undefined ? "created" : "merged";
}

/** Whether headless runs of a harness may call `delegate`, and if not, the fix. */
export interface HeadlessVerdict {
  allowed: boolean;
  /** The harness does not read the entry at all (an untrusted Codex project). */
  ignored?: boolean;
  detail: string;
  /** The command or step that makes it allowed. */
  fix?: string;
}

/**
 * Reads the settings a harness reads to tell whether its headless run may call
 * `delegate` on the observal-agents entry found at `scope`.
 *
 * @param harness the harness
 * @param scope where the entry was found
 * @param entry the entry as written (for Codex's approval mode)
 * @param env HOME and the harnesses' home variables
 * @param dir the project directory
 * @returns a verdict, or undefined for harnesses whose headless permissions were not measured
 */
export function headlessVerdict(
  harness: HarnessKey,
  scope: Scope,
  entry: Doc | undefined,
  env: Env,
  dir: string,
): HeadlessVerdict | undefined {
  const fix = `observal mcp install --harness ${harness} --scope ${scope} --allow-headless`;
  if (harness === "claude-code") {
    const files = [claudeSettingsPath("project", env, dir), claudeSettingsPath("user", env, dir)];
    const found = files.find((f) => allowList(readDoc(f)).some(allowsDelegate));
    return found
      ? { allowed: true, detail: `claude -p may call delegate (allowed in ${found})` }
      : {
        allowed: false,
        detail: `claude -p denies delegate: no allow rule for ${CLAUDE_ALLOW_RULE} in ${
          files.join(" or ")
        }`,
        fix: `${fix}, or run claude -p with --allowedTools ${CLAUDE_ALLOW_RULE}`,
      };
  }
  if (harness === "codex") {
    const tools = entry?.tools as Doc | undefined;
    const mode = (tools?.delegate as Doc | undefined)?.approval_mode ??
      entry?.default_tools_approval_mode;
    if (scope === "project" && !codexTrusts(env, dir)) {
      return {
        allowed: false,
        ignored: true,
        detail: `codex ignores this project's .codex/config.toml: ${resolve(dir)} is not ` +
          `trusted in ${codexConfigPath(env)}`,
        fix,
      };
    }
    return mode === CODEX_APPROVE
      ? { allowed: true, detail: `codex exec may call delegate (approval mode ${mode})` }
      : {
        allowed: false,
        detail: `codex exec refuses delegate: the entry's default_tools_approval_mode is ${
          mode === undefined ? "not set" : `"${mode}"`
        }, not "${CODEX_APPROVE}"`,
        fix,
      };
  }
  if (harness === "opencode") {
    return { allowed: true, detail: "opencode run calls MCP tools without asking" };
  }
  return undefined;
}

/**
 * One line each for what a user still has to do (or may want to know) for headless runs,
 * after an install with or without `--allow-headless`.
 */
export function headlessNotes(
  harness: HarnessKey,
  scope: Scope,
  env: Env,
  dir: string,
  allowHeadless: boolean,
): string[] {
  const flag = "--allow-headless";
  switch (harness) {
    case "claude-code": {
      // Print mode loads a project's .mcp.json unasked; an interactive session asks first.
      const first = scope === "project"
        ? [
          "Started interactively, Claude Code first asks you to approve this project's .mcp.json servers.",
        ]
        : [];
      return [
        ...first,
        ...(allowHeadless
          ? [`claude -p may now call its tools; interactive sessions still ask as before.`]
          : [
            `claude -p denies its tools until allowed: run claude -p with --allowedTools ${CLAUDE_ALLOW_RULE}, or install again with ${flag}.`,
          ]),
      ];
    }
    case "codex": {
      const notes: string[] = [];
      if (scope === "project" && !allowHeadless && !codexTrusts(env, dir)) {
        notes.push(
          `Codex reads .codex/config.toml only in a trusted project: trust ${
            resolve(dir)
          } when Codex asks, or install again with ${flag}.`,
        );
      }
      notes.push(
        allowHeadless
          ? 'codex exec may now call its tools (default_tools_approval_mode = "approve").'
          : `codex exec refuses delegate until approved: install again with ${flag}.`,
      );
      return notes;
    }
    case "opencode":
      return [
        "opencode run calls its tools without asking (unless your permission config says ask).",
      ];
    default:
      return allowHeadless
        ? [`${flag} writes nothing for ${harness}: its headless permissions were not measured.`]
        : [];
  }
}
