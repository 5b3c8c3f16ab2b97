/**
 * One renderer per harness: each turns a prepared install into that harness's files.
 * The shared preparation (names, MCP map, agent body, model) happens in render.ts.
 * @module
 */
import { ObservalError } from "../core/mod.ts";
import type { AgentDefinition } from "./agent_definition.ts";
import type { ConfigSnippet, SnippetFile, StdioMcpEntry } from "./config_snippet.ts";
import { oneLine, withFrontMatter } from "./_front_matter.ts";
import type { HarnessFacts, HarnessKey, Scope } from "./registry.ts";
import { toToml } from "./to_toml.ts";

/** Everything a renderer needs, prepared once. */
export interface RenderInput {
  facts: HarnessFacts;
  scope: Scope;
  /** The local agent name, already validated as a safe path segment. */
  name: string;
  definition: AgentDefinition;
  /** name → stdio entry, agent servers first, then `observal-agents` when enabled. */
  servers: Record<string, StdioMcpEntry>;
  /** The agent body: prompt plus the MCP and skill sections. */
  body: string;
  /** The model for this harness, already formatted, or undefined for the harness default. */
  model?: string;
  /** Adds a warning for the install response. */
  warn(text: string): void;
}

type Renderer = (input: RenderInput) => Omit<ConfigSnippet, "scope">;

/** Fills `{name}` in a registry path template. */
function fill(template: string, name: string): string {
  return template.replaceAll("{name}", name);
}

/**
 * A registry path for the chosen scope. At project scope a `~/` path (Copilot CLI, Goose)
 * is placed under the project directory, as the writer does for harnesses without a
 * user scope.
 */
function place(template: string | null, scope: Scope, name: string): string | null {
  if (template === null) return null;
  const path = fill(template, name);
  return scope === "project" && path.startsWith("~/") ? path.slice(2) : path;
}

function required(path: string | null, what: string, facts: HarnessFacts): string {
  // The registry schema and the scope check make this unreachable for bundled data.
  if (path === null) {
    throw new ObservalError(
      "INTERNAL",
      `${facts.display_name} has no ${what} path for this scope`,
      {
        remediation: "Reinstall observal; its harness registry is incomplete",
      },
    );
  }
  return path;
}

/** Pi keeps one folder per agent so several can be installed and switched between. */
function piPath(path: string, name: string): string {
  if (path.startsWith("~/.pi/agent/")) {
    return `~/.pi/agent/agents/${name}/${path.slice("~/.pi/agent/".length)}`;
  }
  if (path.startsWith(".pi/")) return `.pi/agents/${name}/${path.slice(".pi/".length)}`;
  return path;
}

function profilePath(input: RenderInput): string {
  const { facts, scope, name } = input;
  const path = required(place(facts.agent_profile[scope], scope, name), "agent profile", facts);
  return facts.key === "pi" ? piPath(path, name) : path;
}

function mcpPath(input: RenderInput): string {
  const { facts, scope, name } = input;
  const template = facts.mcp_config[scope] ?? facts.home_mcp_config ?? null;
  const path = required(place(template, scope, name), "MCP config", facts);
  return facts.key === "pi" ? piPath(path, name) : path;
}

function hasServers(input: RenderInput): boolean {
  return Object.keys(input.servers).length > 0;
}

function mapServers<T>(
  servers: Record<string, StdioMcpEntry>,
  fn: (name: string, entry: StdioMcpEntry) => T,
): Record<string, T> {
  return Object.fromEntries(Object.entries(servers).map(([n, e]) => [n, fn(n, e)]));
}

function description(input: RenderInput, fallback = true): string {
  const text = oneLine(input.definition.description);
  return text || (fallback ? input.name : "");
}

/** Skill files at the harness's skills path; content = front matter + the inline body. */
export function skillFiles(input: RenderInput): SnippetFile[] {
  const { facts, scope, name, definition } = input;
  const template = facts.skills[scope];
  if (template === null || definition.skills.length === 0) return [];
  if (!facts.capabilities.includes("skills")) {
    input.warn(
      `${facts.display_name} does not declare skills support; the skill files are still written to its skills folder`,
    );
  }
  return definition.skills.map((skill) => {
    const raw = required(place(template, scope, skill.name), "skills", facts);
    return {
      path: facts.key === "pi" ? piPath(raw, name) : raw,
      content: withFrontMatter(
        { name: skill.name, description: oneLine(skill.description, 1024) },
        skill.content,
      ),
    };
  });
}

/**
 * The content of a harness's MCP config file holding `servers`, in the shape that harness
 * reads: the standard map under its key, typed entries for the Copilots, OpenCode's local
 * commands, Goose's extensions.
 */
export function mcpFileContent(
  key: HarnessKey,
  serversKey: string,
  servers: Record<string, StdioMcpEntry>,
): Record<string, unknown> {
  switch (key) {
    case "copilot":
      return { servers: mapServers(servers, (_, e) => ({ ...e, type: "stdio" })) };
    case "copilot-cli":
      return { mcpServers: mapServers(servers, (_, e) => ({ ...e, type: "stdio", tools: ["*"] })) };
    case "opencode":
      return {
        mcp: mapServers(servers, (_, e) => ({
          type: "local",
          command: [e.command, ...e.args],
          ...(Object.keys(e.env).length ? { environment: e.env } : {}),
        })),
      };
    case "goose":
      return {
        extensions: mapServers(servers, (name, e) => ({
          type: "stdio",
          name,
          enabled: true,
          cmd: e.command,
          args: e.args,
          envs: e.env,
          env_keys: [],
          timeout: 300,
        })),
      };
    default:
      return { [serversKey]: servers };
  }
}

function mcpFile(input: RenderInput): Pick<ConfigSnippet, "mcp_config"> {
  if (!hasServers(input)) return {};
  return {
    mcp_config: {
      path: mcpPath(input),
      content: mcpFileContent(input.facts.key, input.facts.mcp_servers_key, input.servers),
    },
  };
}

const cursor: Renderer = (input) => {
  if (input.scope === "user") {
    input.warn(
      "Cursor reads agent profiles only from the project, so the profile goes to .cursor/agents/ in the target directory even at user scope",
    );
  }
  return {
    agent_profile: {
      // Cursor ignores ~/.cursor/agents/, so the profile always lands in the project.
      path: `.cursor/agents/${input.name}.md`,
      content: withFrontMatter(
        { name: input.name, description: description(input), model: input.model ?? "inherit" },
        input.body,
      ),
    },
    ...mcpFile(input),
  };
};

const kiro: Renderer = (input) => ({
  // Kiro takes MCP servers inline in the profile; no separate mcp.json is written.
  agent_profile: {
    path: profilePath(input),
    content: {
      name: input.name,
      description: description(input),
      prompt: input.body,
      mcpServers: input.servers,
      tools: ["*"],
      toolAliases: {},
      resources: [
        "file://AGENTS.md",
        "file://README.md",
        "skill://.kiro/skills/**/SKILL.md",
        "skill://~/.kiro/skills/**/SKILL.md",
      ],
      includeMcpJson: true,
      model: input.model ?? null,
    },
  },
});

const claudeCode: Renderer = (input) => {
  const names = Object.keys(input.servers);
  // `claude mcp add` writes where --scope says: .mcp.json in the project, or the user's
  // own Claude config; -e carries each server's environment with it.
  const scope = input.scope === "user" ? "user" : "project";
  return {
    agent_profile: {
      path: profilePath(input),
      content: withFrontMatter(
        {
          name: input.name,
          description: description(input, false) || undefined,
          model: input.model,
          mcpServers: names.length ? names : undefined,
        },
        input.body,
      ),
    },
    ...(names.length
      ? {
        // Not written to a file: `claude mcp add` registers each server, and headless runs
        // pass this map with --mcp-config.
        mcp_config: input.servers,
        mcp_setup_commands: Object.entries(input.servers).map(([name, entry]) => [
          "claude",
          "mcp",
          "add",
          name,
          "--scope",
          scope,
          ...Object.entries(entry.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
          "--",
          entry.command,
          ...entry.args,
        ]),
      }
      : {}),
  };
};

const codex: Renderer = (input) => ({
  agent_profile: {
    path: profilePath(input),
    content: toToml({
      name: input.name,
      description: description(input),
      developer_instructions: input.body,
      model: input.model,
    }),
  },
  ...mcpFile(input),
});

const copilot: Renderer = (input) => ({
  agent_profile: {
    path: profilePath(input),
    content: withFrontMatter(
      { name: input.name, description: description(input), target: "vscode", tools: ["*"] },
      input.body,
    ),
  },
  ...mcpFile(input),
});

const copilotCli: Renderer = (input) => {
  const withEnv = input.definition.mcp_servers.filter((s) => Object.keys(s.env).length > 0);
  if (withEnv.length > 0) {
    input.warn(
      `Copilot CLI agent profiles carry no environment for MCP servers; set ${
        withEnv.flatMap((s) => Object.keys(s.env)).join(", ")
      } in the environment copilot starts from`,
    );
  }
  return {
    agent_profile: {
      path: profilePath(input),
      content: withFrontMatter(
        {
          name: input.name,
          description: description(input),
          tools: ["*"],
          "mcp-servers": hasServers(input)
            ? mapServers(input.servers, (_, e) => ({
              type: "stdio",
              command: e.command,
              args: e.args,
              // Copilot CLI refuses a profile whose servers do not list their tools.
              tools: ["*"],
            }))
            : undefined,
        },
        input.body,
      ),
    },
    ...mcpFile(input),
  };
};

const opencode: Renderer = (input) => ({
  agent_profile: {
    path: profilePath(input),
    // OpenCode needs a description to list the agent; the model stays with the agent
    // rather than becoming the project's default in opencode.json.
    content: withFrontMatter({ description: description(input), model: input.model }, input.body),
  },
  ...mcpFile(input),
});

const antigravity: Renderer = (input) => ({
  agent_profile: {
    path: profilePath(input),
    content: {
      name: input.name,
      description: description(input),
      system_prompt: input.body,
      mcpServers: input.servers,
      tools: ["*"],
      model: input.model ?? null,
    },
  },
  ...mcpFile(input),
});

const goose: Renderer = (input) => {
  if (input.scope === "project" && hasServers(input)) {
    input.warn(
      "Goose reads extensions only from ~/.config/goose/config.yaml; at project scope they are written to .config/goose/config.yaml in the target directory, which Goose does not read",
    );
  }
  return {
    agent_profile: {
      path: profilePath(input),
      content: withFrontMatter(
        { name: input.name, description: description(input), model: input.model },
        input.body,
      ),
    },
    ...mcpFile(input),
  };
};

const pi: Renderer = (input) => {
  if (input.scope === "project") {
    input.warn(
      "Pi reads the project's AGENTS.md as the agent, so a project install replaces the AGENTS.md at the project root",
    );
  }
  return {
    agent_profile: { path: profilePath(input), content: `${input.body.trimEnd()}\n` },
    ...mcpFile(input),
  };
};

/**
 * Gemini CLI reads Markdown subagents from its agents folder (a name and a description are
 * required) and MCP servers from its settings file, merged with the user's other settings.
 */
const geminiCli: Renderer = (input) => ({
  agent_profile: {
    path: profilePath(input),
    content: withFrontMatter(
      { name: input.name, description: description(input), kind: "local", model: input.model },
      input.body,
    ),
  },
  ...mcpFile(input),
});

/** The renderer for each harness key. */
export const RENDERERS: Readonly<Record<HarnessKey, Renderer>> = Object.freeze({
  cursor,
  kiro,
  "claude-code": claudeCode,
  codex,
  copilot,
  "copilot-cli": copilotCli,
  opencode,
  antigravity,
  goose,
  pi,
  "gemini-cli": geminiCli,
});
