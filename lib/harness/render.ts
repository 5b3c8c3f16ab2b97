/**
 * Renders a portable agent definition into the files one harness reads: the agent
 * profile, MCP server config, skills and (for Claude Code) MCP setup commands. The result
 * is the `config_snippet` of an install; writing it to disk is the writer's job.
 * @module
 */
import { ObservalError } from "../core/mod.ts";
import {
  AGENT_NAME_PATTERN,
  type AgentDefinition,
  DELEGATION_MCP_NAME,
} from "./agent_definition.ts";
import type { ConfigSnippet, StdioMcpEntry } from "./config_snippet.ts";
import { RENDERERS, type RenderInput, skillFiles } from "./_renderers.ts";
import {
  getHarness,
  type HarnessKey,
  type HarnessRegistry,
  loadHarnessRegistry,
  type Scope,
} from "./registry.ts";

/** The agent being installed. */
export interface InstallAgent {
  /** The registry's agent id; set as `OBSERVAL_AGENT_ID` on every agent MCP server. */
  id: string;
  /** The local name files are named after (a safe slug, e.g. `code-reviewer`). */
  name: string;
  /** The version being installed. */
  version: string;
  definition: AgentDefinition;
}

/** Whether and how the `observal-agents` delegation MCP server is added. */
export interface DelegationOption {
  enabled: boolean;
  /**
   * The argv prefix that starts the delegation MCP server, e.g.
   * `["observal", "delegate", "mcp"]`; `--harness <key>` is appended.
   */
  command: readonly string[];
}

/** Options for {@linkcode renderInstall}. */
export interface RenderInstallOptions {
  agent: InstallAgent;
  /** A harness key (aliases such as `claude_code` are accepted). */
  harness: string;
  scope: Scope;
  delegation: DelegationOption;
  /** The harness registry; the bundled one by default. */
  registry?: HarnessRegistry;
}

/** What {@linkcode renderInstall} returns. */
export interface RenderedInstall {
  harness: HarnessKey;
  config_snippet: ConfigSnippet;
  warnings: string[];
}

/** The agent body shared by every harness: the prompt, then what the agent brings. */
export function agentBody(definition: AgentDefinition): string {
  const sections = [definition.prompt.trim()];
  if (definition.mcp_servers.length) {
    sections.push(
      `## MCP Servers\n\n${definition.mcp_servers.map((s) => `- **${s.name}**`).join("\n")}`,
    );
  }
  if (definition.skills.length) {
    sections.push(`## Skills\n\n${definition.skills.map((s) => `- **${s.name}**`).join("\n")}`);
  }
  return sections.join("\n\n");
}

/**
 * The model id for a harness: its `models_by_harness` entry, else (Claude Code only) the
 * legacy `model_name`, in the spelling that harness expects.
 */
function resolveModel(key: HarnessKey, definition: AgentDefinition): string | undefined {
  const explicit = definition.models_by_harness?.[key];
  const model = explicit ?? (key === "claude-code" ? definition.model_name : undefined);
  if (model === undefined || model === "inherit") return undefined;
  if (key === "claude-code") {
    // Claude Code agent files take the family alias, which follows model upgrades.
    return model.match(/\b(opus|sonnet|haiku)\b/)?.[1] ?? model;
  }
  if (key === "kiro") {
    // Kiro spells versions with a dot: claude-sonnet-4-5 → claude-sonnet-4.5.
    return model.replace(/^(claude-[a-z]+-\d+)-(\d{1,2})(-\d{8})?$/, "$1.$2$3");
  }
  return model;
}

function mcpServers(
  options: RenderInstallOptions,
  key: HarnessKey,
): Record<string, StdioMcpEntry> {
  const servers: Record<string, StdioMcpEntry> = {};
  for (const server of options.agent.definition.mcp_servers) {
    servers[server.name] = {
      command: server.command,
      args: [...server.args],
      env: { ...server.env, OBSERVAL_AGENT_ID: options.agent.id },
    };
  }
  const { delegation } = options;
  if (delegation.enabled) {
    // Added after the agent id: one entry is shared by every agent in the same config.
    servers[DELEGATION_MCP_NAME] = {
      command: delegation.command[0],
      args: [...delegation.command.slice(1), "--harness", key],
      env: {},
    };
  }
  return servers;
}

function validate(options: RenderInstallOptions): void {
  const { agent, delegation } = options;
  if (
    typeof agent.name !== "string" || agent.name.length > 64 || !AGENT_NAME_PATTERN.test(agent.name)
  ) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `Local agent name "${agent.name}" cannot name files`,
      {
        remediation: 'Use lower-case letters, digits, "-" and "_", starting with a letter or digit',
        resource: String(agent.name),
      },
    );
  }
  if (typeof agent.id !== "string" || agent.id.trim() === "") {
    throw new ObservalError("INVALID_ARGUMENT", "The agent id is empty", {
      remediation: "Pass the registry id of the agent being installed",
    });
  }
  if (
    delegation.enabled &&
    (delegation.command.length === 0 ||
      delegation.command.some((part) => typeof part !== "string" || part === ""))
  ) {
    throw new ObservalError("INVALID_ARGUMENT", "The delegation server command is empty", {
      remediation: 'Pass the argv that starts it, e.g. ["observal", "delegate", "mcp"]',
    });
  }
}

/** Fails loudly if a renderer ever produced a path outside its scope root. */
function assertContained(path: string, scope: Scope): void {
  const rel = scope === "user" && path.startsWith("~/") ? path.slice(2) : path;
  const bad = rel === "" || rel.startsWith("/") || rel.startsWith("~") || rel.includes("\\") ||
    /^[A-Za-z]:/.test(rel) ||
    rel.split("/").some((part) => part === ".." || part === "." || part === "");
  if (bad) {
    throw new ObservalError("INTERNAL", `Generated path escapes the install root: ${path}`, {
      remediation: "Report this agent and harness; nothing was written",
      resource: path,
    });
  }
}

function snippetPaths(snippet: ConfigSnippet): string[] {
  const paths: string[] = [];
  if (snippet.agent_profile) paths.push(snippet.agent_profile.path);
  const mcp = snippet.mcp_config;
  if (mcp && typeof mcp.path === "string") paths.push(mcp.path);
  for (const file of snippet.skills ?? []) paths.push(file.path);
  return paths;
}

/**
 * Renders the install of one agent into one harness at one scope.
 *
 * @param options the agent, harness, scope and delegation settings
 * @returns the harness key, the `config_snippet` and warnings for the user
 * @throws {ObservalError} INVALID_ARGUMENT for an unknown harness, a scope the harness
 *   lacks, or an unsafe local name; FAILED_PRECONDITION when the agent does not support
 *   the harness
 *
 * @example
 * ```ts
 * import { parseAgentYaml } from "./agent_definition.ts";
 *
 * const definition = parseAgentYaml("name: reviewer\nversion: 1.0.0\nprompt: Review.\n");
 * const { config_snippet } = renderInstall({
 *   agent: { id: "a1", name: "reviewer", version: "1.0.0", definition },
 *   harness: "codex",
 *   scope: "project",
 *   delegation: { enabled: true, command: ["observal", "delegate", "mcp"] },
 * });
 * config_snippet.agent_profile?.path; // ".codex/agents/reviewer.toml"
 * ```
 */
export function renderInstall(options: RenderInstallOptions): RenderedInstall {
  const registry = options.registry ?? loadHarnessRegistry();
  const facts = getHarness(options.harness, registry);
  const { scope, agent } = options;
  const { definition } = agent;
  validate(options);

  if (!facts.scopes.includes(scope)) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `${facts.display_name} has no ${scope} scope`,
      { remediation: `Install with scope ${facts.scopes.join(" or ")}`, resource: facts.key },
    );
  }
  const supported = definition.supported_harnesses;
  if (supported.length > 0 && !supported.includes(facts.key)) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `Agent "${agent.name}" does not support ${facts.display_name}`,
      { remediation: `Choose one of its harnesses: ${supported.join(", ")}`, resource: facts.key },
    );
  }

  const warnings: string[] = [];
  const input: RenderInput = {
    facts,
    scope,
    name: agent.name,
    definition,
    servers: mcpServers(options, facts.key),
    body: agentBody(definition),
    model: resolveModel(facts.key, definition),
    warn: (text) => warnings.push(text),
  };
  const rendered = RENDERERS[facts.key](input);
  const skills = skillFiles(input);
  const config_snippet: ConfigSnippet = {
    ...rendered,
    ...(skills.length ? { skills } : {}),
    scope,
  };
  for (const path of snippetPaths(config_snippet)) assertContained(path, scope);
  return { harness: facts.key, config_snippet, warnings };
}
