import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type AgentDefinition,
  agentDigest,
  installResponse,
  InstallResponseSchema,
  parseAgentYaml,
} from "../../lib/harness/mod.ts";

const EXAMPLE = fileURLToPath(new URL("../../examples/agent/observal-agent.yaml", import.meta.url));

function example(): AgentDefinition {
  return parseAgentYaml(readFileSync(EXAMPLE, "utf8"));
}

Deno.test("installResponse() returns the snippet, warnings and a locked digest", () => {
  const definition = example();
  const response = installResponse({
    agent: { id: "agent-7", name: "code-reviewer", version: "1.2.0", definition },
    harness: "Claude_Code",
    scope: "project",
    delegation: { enabled: true, command: ["observal", "delegate", "mcp"] },
  });
  assert.deepEqual(Object.keys(response), [
    "agent_id",
    "harness",
    "version",
    "config_snippet",
    "warnings",
    "lock",
  ]);
  assert.equal(response.agent_id, "agent-7");
  assert.equal(response.harness, "claude-code");
  assert.equal(response.version, "1.2.0");
  assert.equal(response.config_snippet.agent_profile?.path, ".claude/agents/code-reviewer.md");
  assert.deepEqual(response.lock, {
    lock_version: 1,
    status: "locked",
    digest: agentDigest(definition),
    components: [],
  });
  assert.match(response.lock.digest, /^sha256:[0-9a-f]{64}$/);
  // The response is its own wire type: it parses back unchanged.
  assert.deepEqual(InstallResponseSchema.parse(JSON.parse(JSON.stringify(response))), response);
});

Deno.test("agentDigest() is the sha256 of the definition's canonical JSON", () => {
  const definition = parseAgentYaml("name: r\nversion: 1.0.0\nprompt: p\n");
  const canonical =
    '{"description":"","mcp_servers":[],"name":"r","prompt":"p","skills":[],"supported_harnesses":[],"version":"1.0.0"}';
  const expected = createHash("sha256").update(canonical).digest("hex");
  assert.equal(agentDigest(definition), `sha256:${expected}`);
});

Deno.test("agentDigest() ignores key order and applied defaults", () => {
  const a = parseAgentYaml("name: r\nversion: 1.0.0\nprompt: p\ntags: [x]\n");
  const b = parseAgentYaml("tags: [x]\nprompt: p\nversion: 1.0.0\nname: r\ndescription: ''\n");
  assert.equal(agentDigest(a), agentDigest(b));
});

Deno.test("agentDigest() changes when any part of the definition changes", () => {
  const base = example();
  const digest = agentDigest(base);
  assert.notEqual(agentDigest({ ...base, prompt: `${base.prompt}!` }), digest);
  assert.notEqual(agentDigest({ ...base, version: "1.2.1" }), digest);
  const skills = [{ ...base.skills[0], content: "changed" }];
  assert.notEqual(agentDigest({ ...base, skills }), digest);
});
