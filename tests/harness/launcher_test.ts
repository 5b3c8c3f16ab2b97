import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import {
  HARNESS_KEYS,
  parseAgentYaml,
  renderInstall,
  type Scope,
  withDelegationLauncher,
} from "../../lib/harness/mod.ts";

const EXAMPLE = fileURLToPath(new URL("../../examples/agent/observal-agent.yaml", import.meta.url));
const LAUNCHER = {
  command: ["/opt/node/bin/node", "/opt/observal/bin/observal.mjs"],
  env: { OBSERVAL_HOME: "/home/u/.observal" },
};

/** The servers map under `key` in a snippet's MCP config file. */
function serversIn(
  snippet: { mcp_config?: unknown },
  key: string,
): Record<string, Record<string, unknown>> {
  return (snippet.mcp_config as {
    content: Record<string, Record<string, Record<string, unknown>>>;
  })
    .content[key];
}

function snippetFor(harness: string, scope: Scope) {
  const definition = { ...parseAgentYaml(readFileSync(EXAMPLE, "utf8")), supported_harnesses: [] };
  return renderInstall({
    agent: { id: "agent-42", name: "code-reviewer", version: "1.2.0", definition },
    harness,
    scope,
    delegation: { enabled: true, command: ["observal", "delegate", "mcp"] },
  }).config_snippet;
}

Deno.test("withDelegationLauncher() leaves no placeholder command in any harness's install", () => {
  for (const harness of HARNESS_KEYS) {
    const scope: Scope = harness === "copilot" || harness === "copilot-cli" ? "project" : "user";
    const before = snippetFor(harness, scope);
    const after = withDelegationLauncher(before, harness, LAUNCHER);
    const text = JSON.stringify(after);
    assert.ok(text.includes("/opt/observal/bin/observal.mjs"), harness);
    // The placeholder was the bare program name "observal" followed by the subcommand.
    assert.doesNotMatch(text, /"observal","delegate"|"observal"\]|command: observal\\n/, harness);
    // The agent's own server is left as it was.
    assert.ok(text.includes("@cyanheads/git-mcp-server"), harness);
    assert.ok(JSON.stringify(before).includes('"observal"'), "the input is not changed");
  }
});

Deno.test("withDelegationLauncher() keeps each harness's entry shape", () => {
  const argv = [...LAUNCHER.command, "delegate", "mcp", "--harness"];
  const codex = withDelegationLauncher(snippetFor("codex", "project"), "codex", LAUNCHER);
  const entry = serversIn(codex, "mcp_servers")["observal-agents"];
  assert.deepEqual(entry, {
    command: argv[0],
    args: [...argv.slice(1), "codex"],
    env: { OBSERVAL_HOME: "/home/u/.observal" },
  });

  const opencode = withDelegationLauncher(snippetFor("opencode", "user"), "opencode", LAUNCHER);
  const local = serversIn(opencode, "mcp")["observal-agents"];
  assert.deepEqual(local, {
    type: "local",
    command: [...argv, "opencode"],
    environment: { OBSERVAL_HOME: "/home/u/.observal" },
  });

  const goose = withDelegationLauncher(snippetFor("goose", "user"), "goose", LAUNCHER);
  const ext = serversIn(goose, "extensions")["observal-agents"];
  assert.equal(ext.cmd, argv[0]);
  assert.deepEqual(ext.envs, { OBSERVAL_HOME: "/home/u/.observal" });

  const claude = withDelegationLauncher(
    snippetFor("claude-code", "project"),
    "claude-code",
    LAUNCHER,
  );
  assert.deepEqual(claude.mcp_setup_commands?.[1], [
    "claude",
    "mcp",
    "add",
    "observal-agents",
    "--scope",
    "project",
    "-e",
    "OBSERVAL_HOME=/home/u/.observal",
    "--",
    ...argv,
    "claude-code",
  ]);

  const copilot = withDelegationLauncher(
    snippetFor("copilot-cli", "project"),
    "copilot-cli",
    LAUNCHER,
  );
  const profile = String(copilot.agent_profile?.content);
  const front = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(profile)![1]);
  assert.deepEqual(front["mcp-servers"]["observal-agents"], {
    type: "stdio",
    command: argv[0],
    args: [...argv.slice(1), "copilot-cli"],
    tools: ["*"],
  });
  assert.match(profile, /\n---\n\nYou are a senior code reviewer/, "the body is untouched");
});
