/**
 * The `observal-agents` entry alone, for `observal mcp install`: which config file each
 * harness reads MCP servers from (honouring the harness's own home variables), and the
 * entry in that harness's shape.
 * @module
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "./_yaml.ts";
import { ObservalError } from "../core/mod.ts";
import type { Env } from "../core/mod.ts";
import { DELEGATION_MCP_NAME } from "./agent_definition.ts";
import type { ConfigSnippet } from "./config_snippet.ts";
import type { DelegationLauncher } from "./launcher.ts";
import { mcpFileContent } from "./_renderers.ts";
import { getHarness, type HarnessKey, type Scope } from "./registry.ts";
import { CODEX_APPROVE } from "./headless_allow.ts";

/** What to write, and where `~/` points for it. */
export interface DelegationInstall {
  snippet: ConfigSnippet;
  /** The scope the file is written at (some harnesses read only their user file). */
  scope: Scope;
  /** The folder `~/` stands for: the user's home, or the harness's own home variable. */
  home: string;
}

/** The config file a harness reads its MCP servers from, as `~/`-relative or project path. */
function target(
  key: HarnessKey,
  scope: Scope,
  env: Env,
): { path: string; scope: Scope; home: string } {
  const home = env.HOME || env.USERPROFILE || "";
  const facts = getHarness(key);
  switch (key) {
    case "claude-code":
      // `claude mcp add --scope project` writes .mcp.json; user scope lives in .claude.json.
      return scope === "project"
        ? { path: ".mcp.json", scope, home }
        : env.CLAUDE_CONFIG_DIR
        ? { path: "~/.claude.json", scope, home: env.CLAUDE_CONFIG_DIR }
        : { path: "~/.claude.json", scope, home };
    case "codex":
      if (scope === "user" && env.CODEX_HOME) {
        return { path: "~/config.toml", scope, home: env.CODEX_HOME };
      }
      break;
    case "copilot-cli":
      // Copilot CLI reads MCP servers only from its home folder.
      return env.COPILOT_HOME
        ? { path: "~/mcp-config.json", scope: "user", home: env.COPILOT_HOME }
        : { path: "~/.copilot/mcp-config.json", scope: "user", home };
    case "goose":
      return { path: facts.home_mcp_config!, scope: "user", home };
    case "gemini-cli":
      if (scope === "user" && env.GEMINI_CLI_HOME) {
        return { path: "~/.gemini/settings.json", scope, home: env.GEMINI_CLI_HOME };
      }
      break;
    case "pi":
      if (scope === "user" && env.PI_CODING_AGENT_DIR) {
        return { path: "~/mcp.json", scope, home: env.PI_CODING_AGENT_DIR };
      }
      break;
  }
  const path = facts.mcp_config[scope];
  if (!path) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `${facts.display_name} has no ${scope} MCP config`,
      {
        remediation: `Install with --scope ${scope === "user" ? "project" : "user"}`,
        resource: key,
      },
    );
  }
  return { path, scope, home };
}

/**
 * The snippet that adds only `observal-agents` to a harness's MCP config.
 *
 * @param harness the harness key
 * @param scope project or user (harnesses that read only a user file are written there)
 * @param env where HOME and the harnesses' home variables come from
 * @param launcher how the server is started here
 * @param options `approveTools`: Codex calls the tools without asking (`codex exec` refuses
 *   them otherwise)
 */
export function delegationInstall(
  harness: HarnessKey,
  scope: Scope,
  env: Env,
  launcher: DelegationLauncher,
  options: { approveTools?: boolean } = {},
): DelegationInstall {
  const facts = getHarness(harness);
  const at = target(harness, scope, env);
  const servers = {
    [DELEGATION_MCP_NAME]: {
      command: launcher.command[0],
      args: [...launcher.command.slice(1), "delegate", "mcp", "--harness", harness],
      env: { ...launcher.env },
      ...(options.approveTools && harness === "codex"
        ? { default_tools_approval_mode: CODEX_APPROVE }
        : {}),
    },
  };
  const content = harness === "claude-code"
    ? { mcpServers: servers }
    : mcpFileContent(harness, facts.mcp_servers_key, servers);
  return {
    snippet: { mcp_config: { path: at.path, content }, scope: at.scope },
    scope: at.scope,
    home: at.home,
  };
}

/** An `observal-agents` entry as found in a harness's config, in one normal shape. */
export interface FoundEntry {
  /** The config file read. */
  path: string;
  scope: Scope;
  /** The entry, when the file has one that names a command. */
  entry?: { command: string; args: string[]; env: Record<string, string> };
  /** The entry as the file holds it (harness-specific keys such as Codex's approval mode). */
  raw?: Record<string, unknown>;
  /** Why the file could not be read or parsed (a missing file is not an error). */
  error?: string;
}

function asStrings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;
}

function asEnv(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/** Reads the entry in whichever shape the harness stores it. */
function normalEntry(raw: unknown): FoundEntry["entry"] | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const e = raw as Record<string, unknown>;
  const line = asStrings(e.command);
  if (line && line.length) {
    return { command: line[0], args: line.slice(1), env: asEnv(e.environment) };
  }
  const command = typeof e.command === "string"
    ? e.command
    : typeof e.cmd === "string"
    ? e.cmd
    : undefined;
  if (!command) return undefined;
  return { command, args: asStrings(e.args) ?? [], env: asEnv(e.env ?? e.envs) };
}

/**
 * The `observal-agents` entry a harness would load, from the config file `observal mcp
 * install` writes for that scope.
 *
 * @param harness the harness
 * @param scope project or user
 * @param env HOME and the harness's home variables
 * @param dir the project directory (for project-scope files)
 */
export function findDelegationEntry(
  harness: HarnessKey,
  scope: Scope,
  env: Env,
  dir: string,
): FoundEntry {
  const facts = getHarness(harness);
  const at = target(harness, scope, env);
  const path = at.path.startsWith("~/")
    ? join(at.home, at.path.slice(2))
    : isAbsolute(at.path)
    ? at.path
    : join(dir, at.path);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { path, scope: at.scope };
  }
  let doc: unknown;
  try {
    doc = path.endsWith(".toml")
      ? parseToml(text)
      : path.endsWith(".yaml") || path.endsWith(".yml")
      ? parseYaml(text, { logLevel: "error" })
      : JSON.parse(text);
  } catch (err) {
    return { path, scope: at.scope, error: `cannot be parsed: ${(err as Error).message}` };
  }
  const key = harness === "claude-code" ? "mcpServers" : facts.mcp_servers_key;
  const servers = (doc as Record<string, unknown> | null)?.[key] as
    | Record<string, unknown>
    | undefined;
  const raw = servers?.[DELEGATION_MCP_NAME];
  return {
    path,
    scope: at.scope,
    entry: normalEntry(raw),
    raw: raw && typeof raw === "object" ? raw as Record<string, unknown> : undefined,
  };
}
