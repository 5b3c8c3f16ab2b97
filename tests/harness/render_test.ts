import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { ObservalError } from "../../lib/core/mod.ts";
import {
  type AgentDefinition,
  type ConfigSnippet,
  getHarness,
  parseAgentYaml,
  renderInstall,
  type RenderInstallOptions,
  type Scope,
  toToml,
} from "../../lib/harness/mod.ts";

const EXAMPLE = fileURLToPath(new URL("../../examples/agent/observal-agent.yaml", import.meta.url));
const DELEGATE = ["observal", "delegate", "mcp"];

/** The example agent, opened to every harness so each can be rendered. */
function exampleAgent(): AgentDefinition {
  return { ...parseAgentYaml(readFileSync(EXAMPLE, "utf8")), supported_harnesses: [] };
}

function options(
  harness: string,
  scope: Scope,
  delegation = true,
  definition: AgentDefinition = exampleAgent(),
): RenderInstallOptions {
  return {
    agent: { id: "agent-42", name: "code-reviewer", version: "1.2.0", definition },
    harness,
    scope,
    delegation: { enabled: delegation, command: DELEGATE },
  };
}

/** Splits a Markdown file into its parsed front matter and body. */
function frontMatter(text: string): { fields: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(text);
  assert.ok(match, `no front matter in:\n${text.slice(0, 200)}`);
  return { fields: parseYaml(match[1]), body: match[2] };
}

/** Table headers of a TOML text, after checking each line reads back as TOML we emit. */
function tomlTables(text: string): string[] {
  const tables: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      tables.push(header[1]);
      continue;
    }
    const pair = /^([A-Za-z0-9_.-]+) = (.+)$/.exec(line);
    assert.ok(pair, `not a TOML key line: ${line}`);
    // Our strings, arrays and scalars are written in a JSON-compatible subset of TOML.
    JSON.parse(pair[2]);
  }
  return tables;
}

function text(file: ConfigSnippet["agent_profile"]): string {
  assert.ok(file && typeof file.content === "string");
  return file.content;
}

function object(file: ConfigSnippet["agent_profile"]): Record<string, unknown> {
  assert.ok(file && typeof file.content === "object");
  return file.content;
}

/** The MCP server map a harness will read, however that harness stores it. */
function servers(harness: string, snippet: ConfigSnippet): Record<string, Record<string, unknown>> {
  if (harness === "kiro") return object(snippet.agent_profile).mcpServers as never;
  const mcp = snippet.mcp_config as Record<string, unknown> | undefined;
  if (!mcp) return {};
  if (harness === "claude-code") return mcp as never;
  return (mcp.content as Record<string, unknown>)[getHarness(harness).mcp_servers_key] as never;
}

/** An entry's full argv, whatever the harness calls its fields. */
function argv(harness: string, entry: Record<string, unknown>): unknown[] {
  if (harness === "opencode") return entry.command as unknown[];
  if (harness === "goose") return [entry.cmd, ...(entry.args as unknown[])];
  return [entry.command, ...(entry.args as unknown[])];
}

function envOf(harness: string, entry: Record<string, unknown>): unknown {
  if (harness === "opencode") return entry.environment ?? {};
  if (harness === "goose") return entry.envs;
  return entry.env;
}

function paths(snippet: ConfigSnippet): string[] {
  const out = [snippet.agent_profile!.path];
  const mcp = snippet.mcp_config as { path?: unknown } | undefined;
  if (typeof mcp?.path === "string") out.push(mcp.path);
  for (const file of snippet.skills ?? []) out.push(file.path);
  return out;
}

interface Case {
  harness: string;
  scope: Scope;
  profile: string;
  format: "frontmatter" | "json" | "toml" | "markdown";
  /** The MCP file, "map" for Claude Code's unwritten map, null when servers live in the profile. */
  mcp: string | null;
  skill: string;
}

const CASES: Case[] = [
  {
    harness: "cursor",
    scope: "project",
    profile: ".cursor/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: ".cursor/mcp.json",
    skill: ".cursor/skills/review-checklist/SKILL.md",
  },
  {
    harness: "cursor",
    scope: "user",
    profile: ".cursor/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: "~/.cursor/mcp.json",
    skill: "~/.cursor/skills/review-checklist/SKILL.md",
  },
  {
    harness: "kiro",
    scope: "project",
    profile: ".kiro/agents/code-reviewer.json",
    format: "json",
    mcp: null,
    skill: ".kiro/skills/review-checklist/SKILL.md",
  },
  {
    harness: "kiro",
    scope: "user",
    profile: "~/.kiro/agents/code-reviewer.json",
    format: "json",
    mcp: null,
    skill: "~/.kiro/skills/review-checklist/SKILL.md",
  },
  {
    harness: "claude-code",
    scope: "project",
    profile: ".claude/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: "map",
    skill: ".claude/skills/review-checklist/SKILL.md",
  },
  {
    harness: "claude-code",
    scope: "user",
    profile: "~/.claude/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: "map",
    skill: "~/.claude/skills/review-checklist/SKILL.md",
  },
  {
    harness: "codex",
    scope: "project",
    profile: ".codex/agents/code-reviewer.toml",
    format: "toml",
    mcp: ".codex/config.toml",
    skill: ".agents/skills/review-checklist/SKILL.md",
  },
  {
    harness: "codex",
    scope: "user",
    profile: "~/.codex/agents/code-reviewer.toml",
    format: "toml",
    mcp: "~/.codex/config.toml",
    skill: "~/.agents/skills/review-checklist/SKILL.md",
  },
  {
    harness: "copilot",
    scope: "project",
    profile: ".github/agents/code-reviewer.agent.md",
    format: "frontmatter",
    mcp: ".vscode/mcp.json",
    skill: ".github/skills/review-checklist/SKILL.md",
  },
  {
    harness: "copilot-cli",
    scope: "project",
    profile: ".github/agents/code-reviewer.agent.md",
    format: "frontmatter",
    mcp: ".copilot/mcp-config.json",
    skill: ".agents/skills/review-checklist/SKILL.md",
  },
  {
    harness: "opencode",
    scope: "project",
    profile: ".opencode/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: "opencode.json",
    skill: ".opencode/skills/review-checklist/SKILL.md",
  },
  {
    harness: "opencode",
    scope: "user",
    profile: "~/.config/opencode/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: "~/.config/opencode/opencode.json",
    skill: "~/.config/opencode/skills/review-checklist/SKILL.md",
  },
  {
    harness: "antigravity",
    scope: "project",
    profile: ".agents/agents/code-reviewer/agent.json",
    format: "json",
    mcp: ".agents/mcp_config.json",
    skill: ".agents/skills/review-checklist/SKILL.md",
  },
  {
    harness: "antigravity",
    scope: "user",
    profile: "~/.gemini/antigravity-cli/agents/code-reviewer/agent.json",
    format: "json",
    mcp: "~/.gemini/antigravity-cli/mcp_config.json",
    skill: "~/.gemini/antigravity-cli/skills/review-checklist/SKILL.md",
  },
  {
    harness: "goose",
    scope: "project",
    profile: ".agents/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: ".config/goose/config.yaml",
    skill: ".agents/skills/review-checklist/SKILL.md",
  },
  {
    harness: "goose",
    scope: "user",
    profile: "~/.agents/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: "~/.config/goose/config.yaml",
    skill: "~/.agents/skills/review-checklist/SKILL.md",
  },
  {
    harness: "pi",
    scope: "project",
    profile: "AGENTS.md",
    format: "markdown",
    mcp: ".pi/agents/code-reviewer/mcp.json",
    skill: ".pi/agents/code-reviewer/skills/review-checklist/SKILL.md",
  },
  {
    harness: "pi",
    scope: "user",
    profile: "~/.pi/agent/agents/code-reviewer/AGENTS.md",
    format: "markdown",
    mcp: "~/.pi/agent/agents/code-reviewer/mcp.json",
    skill: "~/.pi/agent/agents/code-reviewer/skills/review-checklist/SKILL.md",
  },
  {
    harness: "gemini-cli",
    scope: "project",
    profile: ".gemini/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: ".gemini/settings.json",
    skill: ".gemini/skills/review-checklist/SKILL.md",
  },
  {
    harness: "gemini-cli",
    scope: "user",
    profile: "~/.gemini/agents/code-reviewer.md",
    format: "frontmatter",
    mcp: "~/.gemini/settings.json",
    skill: "~/.gemini/skills/review-checklist/SKILL.md",
  },
];

Deno.test("renderInstall() covers every harness that runs headless, plus copilot and goose", () => {
  const covered = new Set(CASES.map((c) => c.harness));
  for (
    const h of [
      "cursor",
      "kiro",
      "claude-code",
      "codex",
      "copilot",
      "copilot-cli",
      "opencode",
      "antigravity",
      "goose",
      "pi",
      "gemini-cli",
    ]
  ) {
    assert.ok(covered.has(h), h);
  }
  for (const c of CASES.filter((c) => c.scope === "project")) {
    if (getHarness(c.harness).scopes.includes("user")) {
      assert.ok(CASES.some((u) => u.harness === c.harness && u.scope === "user"), c.harness);
    }
  }
});

Deno.test("renderInstall() writes each harness's files at the registry paths", async (t) => {
  for (const c of CASES) {
    await t.step(`${c.harness} at ${c.scope} scope`, () => {
      const { harness, config_snippet: snippet } = renderInstall(options(c.harness, c.scope));
      assert.equal(harness, c.harness);
      assert.equal(snippet.scope, c.scope);
      assert.equal(snippet.agent_profile?.path, c.profile);
      const mcp = snippet.mcp_config as Record<string, unknown> | undefined;
      if (c.mcp === null) assert.equal(mcp, undefined);
      else if (c.mcp === "map") assert.ok(mcp && !("path" in mcp) && "git" in mcp);
      else assert.equal(mcp?.path, c.mcp);
      assert.deepEqual(snippet.skills?.map((s) => s.path), [c.skill]);
    });
  }
});

Deno.test("renderInstall() writes profiles in each harness's format", async (t) => {
  for (const c of CASES) {
    await t.step(`${c.harness} at ${c.scope} scope`, () => {
      const { config_snippet: snippet } = renderInstall(options(c.harness, c.scope));
      const profile = snippet.agent_profile;
      if (c.format === "json") {
        const content = object(profile);
        // The writer serialises objects as JSON: they must survive a round trip.
        assert.deepEqual(JSON.parse(JSON.stringify(content)), content);
        assert.equal(content.name, "code-reviewer");
        const prompt = (content.prompt ?? content.system_prompt) as string;
        assert.ok(prompt.startsWith("You are a senior code reviewer."));
        assert.ok(prompt.includes("## MCP Servers\n\n- **git**"));
      } else if (c.format === "toml") {
        const content = text(profile);
        assert.deepEqual(tomlTables(content), []);
        assert.match(content, /^name = "code-reviewer"$/m);
        assert.match(content, /^developer_instructions = "You are a senior code reviewer\./m);
      } else if (c.format === "markdown") {
        const content = text(profile);
        assert.ok(content.startsWith("You are a senior code reviewer."));
        assert.ok(content.includes("## Skills\n\n- **review-checklist**"));
      } else {
        const { fields, body } = frontMatter(text(profile));
        if (c.harness !== "opencode") assert.equal(fields.name, "code-reviewer");
        assert.match(String(fields.description), /^Reviews the working tree/);
        assert.ok(body.startsWith("You are a senior code reviewer."));
        assert.ok(body.includes("## MCP Servers\n\n- **git**"));
      }
      for (const skill of snippet.skills ?? []) {
        const { fields, body } = frontMatter(text(skill));
        assert.deepEqual(Object.keys(fields), ["name", "description"]);
        assert.equal(fields.name, "review-checklist");
        assert.ok(body.startsWith("# Review checklist"));
      }
    });
  }
});

Deno.test("renderInstall() adds the observal-agents server when delegation is enabled", async (t) => {
  for (const c of CASES) {
    await t.step(`${c.harness} at ${c.scope} scope`, () => {
      const { config_snippet: snippet } = renderInstall(options(c.harness, c.scope));
      const map = servers(c.harness, snippet);
      assert.deepEqual(Object.keys(map), ["git", "observal-agents"]);
      const entry = map["observal-agents"];
      assert.deepEqual(argv(c.harness, entry), [...DELEGATE, "--harness", c.harness]);
      assert.deepEqual(envOf(c.harness, entry), {});
      // The agent's own servers carry its id; the shared delegation entry does not.
      assert.deepEqual(envOf(c.harness, map.git), {
        GIT_SIGN_COMMITS: "false",
        OBSERVAL_AGENT_ID: "agent-42",
      });
    });
  }
});

Deno.test("renderInstall() leaves observal-agents out when delegation is disabled", async (t) => {
  for (const c of CASES) {
    await t.step(`${c.harness} at ${c.scope} scope`, () => {
      const { config_snippet: snippet } = renderInstall(options(c.harness, c.scope, false));
      assert.ok(!JSON.stringify(snippet).includes("observal-agents"));
      assert.deepEqual(Object.keys(servers(c.harness, snippet)), ["git"]);
    });
  }
});

Deno.test("renderInstall() writes no MCP file for an agent without servers or delegation", async (t) => {
  const bare = parseAgentYaml("name: plain\nversion: 1.0.0\nprompt: Plain.\n");
  for (const c of CASES) {
    await t.step(`${c.harness} at ${c.scope} scope`, () => {
      const { config_snippet: snippet } = renderInstall(options(c.harness, c.scope, false, bare));
      assert.equal(snippet.mcp_config, undefined);
      assert.equal(snippet.mcp_setup_commands, undefined);
      assert.equal(snippet.skills, undefined);
    });
  }
});

Deno.test("renderInstall() keeps every generated path inside its scope root", async (t) => {
  const root = resolve(sep, "project");
  const home = resolve(sep, "home", "someone");
  for (const c of CASES) {
    await t.step(`${c.harness} at ${c.scope} scope`, () => {
      const { config_snippet: snippet } = renderInstall(options(c.harness, c.scope));
      for (const path of paths(snippet)) {
        assert.ok(!path.split("/").includes(".."), path);
        assert.ok(!path.includes("\\"), path);
        assert.ok(!path.startsWith("/"), path);
        if (c.scope === "project") assert.ok(!path.startsWith("~"), path);
        const base = path.startsWith("~/") ? home : root;
        const full = resolve(join(base, path.replace(/^~\//, "")));
        assert.ok(full.startsWith(base + sep), path);
      }
    });
  }
});

Deno.test("renderInstall() gives Codex an MCP config with one TOML table per server", () => {
  const { config_snippet: snippet } = renderInstall(options("codex", "project"));
  const mcp = snippet.mcp_config as { content: Record<string, unknown> };
  const toml = toToml(mcp.content);
  assert.deepEqual(tomlTables(toml), ["mcp_servers.git", "mcp_servers.observal-agents"]);
  assert.match(toml, /^env\.OBSERVAL_AGENT_ID = "agent-42"$/m);
  assert.match(toml, /^args = \["delegate", "mcp", "--harness", "codex"\]$/m);
});

Deno.test("renderInstall() registers Claude Code servers with claude mcp add at its scope, env with -e", () => {
  const { config_snippet: snippet } = renderInstall(options("claude-code", "project"));
  const agentId = "OBSERVAL_AGENT_ID=agent-42";
  assert.deepEqual(snippet.mcp_setup_commands, [
    [
      ..."claude mcp add git --scope project -e GIT_SIGN_COMMITS=false -e".split(" "),
      agentId,
      ..."-- npx -y @cyanheads/git-mcp-server".split(" "),
    ],
    [
      ..."claude mcp add observal-agents --scope project --".split(" "),
      ...DELEGATE,
      "--harness",
      "claude-code",
    ],
  ]);
  const { fields } = frontMatter(text(snippet.agent_profile));
  assert.deepEqual(fields.mcpServers, ["git", "observal-agents"]);
  assert.equal(fields.model, "sonnet");
  const user = renderInstall(options("claude-code", "user")).config_snippet;
  assert.deepEqual(user.mcp_setup_commands?.[1].slice(0, 6), [
    "claude",
    "mcp",
    "add",
    "observal-agents",
    "--scope",
    "user",
  ]);
});

Deno.test("renderInstall() lists Copilot CLI servers in the profile, typed stdio with their tools", () => {
  const { config_snippet: snippet } = renderInstall(options("copilot-cli", "project"));
  const { fields } = frontMatter(text(snippet.agent_profile));
  assert.deepEqual(fields.tools, ["*"]);
  // Copilot CLI refuses a profile whose servers do not say which tools they offer.
  assert.deepEqual(fields["mcp-servers"], {
    git: {
      type: "stdio",
      command: "npx",
      args: ["-y", "@cyanheads/git-mcp-server"],
      tools: ["*"],
    },
    "observal-agents": {
      type: "stdio",
      command: "observal",
      args: ["delegate", "mcp", "--harness", "copilot-cli"],
      tools: ["*"],
    },
  });
  const entry = servers("copilot-cli", snippet)["observal-agents"];
  assert.equal(entry.type, "stdio");
  assert.deepEqual(entry.tools, ["*"]);
});

Deno.test("renderInstall() gives Gemini CLI a local subagent and its servers under mcpServers", () => {
  const { config_snippet: snippet } = renderInstall(options("gemini-cli", "project"));
  // Gemini skips a subagent file without a name and a description.
  const { fields } = frontMatter(text(snippet.agent_profile));
  assert.equal(fields.name, "code-reviewer");
  assert.equal(fields.kind, "local");
  assert.deepEqual(Object.keys(servers("gemini-cli", snippet)).sort(), ["git", "observal-agents"]);
});

Deno.test("renderInstall() gives VS Code Copilot a servers map with stdio entries", () => {
  const { config_snippet: snippet } = renderInstall(options("copilot", "project"));
  const map = servers("copilot", snippet);
  assert.equal(map.git.type, "stdio");
  assert.equal(frontMatter(text(snippet.agent_profile)).fields.target, "vscode");
});

Deno.test("renderInstall() converts servers to OpenCode local and Goose stdio extensions", () => {
  const open = servers("opencode", renderInstall(options("opencode", "user")).config_snippet);
  assert.deepEqual(open["observal-agents"], {
    type: "local",
    command: ["observal", "delegate", "mcp", "--harness", "opencode"],
  });
  const goose = servers("goose", renderInstall(options("goose", "user")).config_snippet);
  assert.deepEqual(goose["observal-agents"], {
    type: "stdio",
    name: "observal-agents",
    enabled: true,
    cmd: "observal",
    args: ["delegate", "mcp", "--harness", "goose"],
    envs: {},
    env_keys: [],
    timeout: 300,
  });
});

Deno.test("renderInstall() resolves the model each harness expects", () => {
  const kiro = object(renderInstall(options("kiro", "user")).config_snippet.agent_profile);
  assert.equal(kiro.model, "claude-sonnet-4.5");
  const definition = {
    ...exampleAgent(),
    models_by_harness: { kiro: "claude-haiku-4-5", codex: "gpt-5.5" },
  };
  const dotted = object(
    renderInstall(options("kiro", "user", true, definition)).config_snippet.agent_profile,
  );
  assert.equal(dotted.model, "claude-haiku-4.5");
  const codex = text(
    renderInstall(options("codex", "user", true, definition)).config_snippet.agent_profile,
  );
  assert.match(codex, /^model = "gpt-5\.5"$/m);
  const cursor = frontMatter(
    text(renderInstall(options("cursor", "project")).config_snippet.agent_profile),
  );
  assert.equal(cursor.fields.model, "inherit");
  const anti = object(
    renderInstall(options("antigravity", "project")).config_snippet.agent_profile,
  );
  assert.equal(anti.model, null);
});

Deno.test("renderInstall() quotes front matter so descriptions cannot break it", () => {
  const definition = { ...exampleAgent(), description: 'Says: "ship it" # now\nand --- more' };
  for (const harness of ["claude-code", "cursor", "goose", "copilot-cli"]) {
    const { fields } = frontMatter(
      text(
        renderInstall(options(harness, "project", true, definition)).config_snippet.agent_profile,
      ),
    );
    assert.equal(fields.description, 'Says: "ship it" # now and --- more', harness);
  }
});

Deno.test("renderInstall() warns where a harness puts files somewhere surprising", () => {
  const warned = (harness: string, scope: Scope) =>
    renderInstall(options(harness, scope)).warnings.join("\n");
  assert.match(warned("pi", "project"), /AGENTS\.md/);
  assert.match(warned("goose", "project"), /config\.yaml/);
  assert.match(warned("cursor", "user"), /\.cursor\/agents/);
  assert.doesNotMatch(warned("pi", "user"), /AGENTS\.md/);
  assert.equal(warned("codex", "project"), "");
});

Deno.test("renderInstall() refuses user scope for Copilot and Copilot CLI", () => {
  for (const harness of ["copilot", "copilot-cli"]) {
    assert.throws(
      () => renderInstall(options(harness, "user")),
      (err: unknown) =>
        err instanceof ObservalError && err.code === "INVALID_ARGUMENT" &&
        /project/.test(err.remediation ?? ""),
    );
  }
});

Deno.test("renderInstall() refuses a harness the agent does not support", () => {
  const definition = { ...exampleAgent(), supported_harnesses: ["claude-code" as const] };
  assert.throws(
    () => renderInstall(options("codex", "project", true, definition)),
    (err: unknown) =>
      err instanceof ObservalError && err.code === "FAILED_PRECONDITION" &&
      /claude-code/.test(err.remediation ?? ""),
  );
  assert.ok(renderInstall(options("claude_code", "project", true, definition)));
});

Deno.test("renderInstall() refuses a local name that could leave the install root", () => {
  for (const name of ["../escape", "a/b", "", ".hidden", "UPPER", "x".repeat(65)]) {
    const bad = options("cursor", "project");
    bad.agent = { ...bad.agent, name };
    assert.throws(
      () => renderInstall(bad),
      (err: unknown) => err instanceof ObservalError && err.code === "INVALID_ARGUMENT",
      name,
    );
  }
});

Deno.test("renderInstall() refuses delegation without a command and an unknown harness", () => {
  const empty = options("codex", "project");
  empty.delegation = { enabled: true, command: [] };
  assert.throws(() => renderInstall(empty), /delegation server command is empty/);
  empty.delegation = { enabled: false, command: [] };
  assert.ok(renderInstall(empty));
  assert.throws(() => renderInstall(options("vim", "project")), /Unknown harness "vim"/);
});
