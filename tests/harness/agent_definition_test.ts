import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ObservalError } from "../../lib/core/mod.ts";
import {
  MAX_AGENT_YAML_BYTES,
  parseAgentDefinition,
  parseAgentYaml,
} from "../../lib/harness/mod.ts";

const EXAMPLE = fileURLToPath(new URL("../../examples/agent/observal-agent.yaml", import.meta.url));
const BASE = "name: reviewer\nversion: 1.0.0\nprompt: Review the diff.\n";

/** Asserts that parsing fails with INVALID_AGENT and a message matching `pattern`. */
function refuses(text: string, pattern: RegExp, resource?: string): ObservalError {
  let caught: unknown;
  try {
    parseAgentYaml(text);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ObservalError, `expected a refusal for:\n${text}`);
  assert.equal(caught.code, "INVALID_AGENT");
  assert.match(caught.message, pattern);
  assert.ok(caught.remediation, "a refusal says what to do next");
  if (resource !== undefined) assert.equal(caught.resource, resource);
  return caught;
}

Deno.test("parseAgentYaml() accepts the example agent", () => {
  const agent = parseAgentYaml(readFileSync(EXAMPLE, "utf8"));
  assert.equal(agent.name, "code-reviewer");
  assert.equal(agent.version, "1.2.0");
  assert.ok(agent.prompt.includes("senior code reviewer"));
  assert.ok(agent.supported_harnesses.length >= 3);
  assert.ok(agent.supported_harnesses.includes("claude-code"));
  assert.equal(agent.mcp_servers.length, 1);
  assert.equal(agent.mcp_servers[0].command, "npx");
  assert.deepEqual(agent.mcp_servers[0].args.slice(0, 1), ["-y"]);
  assert.equal(agent.skills.length, 1);
  assert.ok(agent.skills[0].content.startsWith("# Review checklist"));
  assert.deepEqual(agent.models_by_harness, { kiro: "claude-sonnet-4.5" });
});

Deno.test("parseAgentYaml() fills defaults for a minimal agent", () => {
  const agent = parseAgentYaml(BASE);
  assert.deepEqual(agent, {
    name: "reviewer",
    version: "1.0.0",
    description: "",
    prompt: "Review the diff.",
    mcp_servers: [],
    skills: [],
    supported_harnesses: [],
  });
});

Deno.test("parseAgentYaml() accepts a prerelease version and a namespace", () => {
  const agent = parseAgentYaml(BASE.replace("1.0.0", "2.1.0-beta.1") + "namespace: alice\n");
  assert.equal(agent.version, "2.1.0-beta.1");
  assert.equal(agent.namespace, "alice");
});

Deno.test("parseAgentYaml() splits a string of args on spaces", () => {
  const agent = parseAgentYaml(
    `${BASE}mcp_servers:\n  - name: fs\n    command: npx\n    args: "-y  @scope/server-fs /tmp"\n`,
  );
  assert.deepEqual(agent.mcp_servers[0], {
    name: "fs",
    command: "npx",
    args: ["-y", "@scope/server-fs", "/tmp"],
    env: {},
  });
});

Deno.test("parseAgentYaml() reads external_mcps as an alias of mcp_servers", () => {
  const agent = parseAgentYaml(`${BASE}external_mcps:\n  - name: fs\n    args: [a]\n`);
  assert.equal(agent.mcp_servers[0].name, "fs");
  assert.equal(agent.mcp_servers[0].command, "npx");
  assert.ok(!("external_mcps" in agent));
});

Deno.test("parseAgentYaml() names the alias the author used in an error", () => {
  refuses(
    `${BASE}external_mcps:\n  - name: fs\n    command: curl\n`,
    /"external_mcps\[0\]\.command"/,
  );
});

Deno.test("parseAgentYaml() refuses both mcp_servers and external_mcps", () => {
  refuses(`${BASE}mcp_servers: []\nexternal_mcps: []\n`, /both "mcp_servers" and its alias/);
});

Deno.test("parseAgentYaml() normalises and de-duplicates supported harnesses", () => {
  const agent = parseAgentYaml(`${BASE}supported_harnesses: [claude_code, Codex, claude-code]\n`);
  assert.deepEqual(agent.supported_harnesses, ["claude-code", "codex"]);
});

Deno.test("parseAgentYaml() refuses each kind of invalid field and names it", async (t) => {
  const cases: [string, string, RegExp, string][] = [
    ["a missing prompt", "name: r\nversion: 1.0.0\n", /Field "prompt" is required/, "prompt"],
    [
      "a blank prompt",
      BASE.replace("Review the diff.", '"  "'),
      /"prompt" must not be empty/,
      "prompt",
    ],
    [
      "a capitalised name",
      BASE.replace("reviewer", "Reviewer"),
      /Field "name" must be a name/,
      "name",
    ],
    [
      "a name over 64 characters",
      BASE.replace("reviewer", "r".repeat(65)),
      /"name" must be at most 64/,
      "name",
    ],
    ["a bad namespace", `${BASE}namespace: "a/b"\n`, /Field "namespace"/, "namespace"],
    [
      "an unquoted two-part version",
      BASE.replace("1.0.0", "1.0"),
      /"version" must be a string; quote it/,
      "version",
    ],
    [
      "a non-semver version",
      BASE.replace("1.0.0", '"v1"'),
      /"version" must be a semantic version/,
      "version",
    ],
    [
      "a long description",
      `${BASE}description: "${"d".repeat(2001)}"\n`,
      /"description" must be at most 2000/,
      "description",
    ],
    ["a null description", `${BASE}description:\n`, /"description" is empty/, "description"],
    [
      "an unknown harness",
      `${BASE}supported_harnesses: [claude-code, vim]\n`,
      /"supported_harnesses\[1\]" names unknown harness "vim"/,
      "supported_harnesses[1]",
    ],
    [
      "an unknown harness in models",
      `${BASE}models_by_harness: {emacs: x}\n`,
      /"models_by_harness\.emacs" names unknown harness/,
      "models_by_harness.emacs",
    ],
    [
      "servers that are not a list",
      `${BASE}mcp_servers: {git: {}}\n`,
      /"mcp_servers" must be a list/,
      "mcp_servers",
    ],
    [
      "a server without a name",
      `${BASE}mcp_servers:\n  - command: npx\n`,
      /"mcp_servers\[0\]\.name" is required/,
      "mcp_servers[0].name",
    ],
    [
      "a command with arguments",
      `${BASE}mcp_servers:\n  - {name: a, command: "npx -y x"}\n`,
      /put its arguments in args/,
      "mcp_servers[0].command",
    ],
    [
      "a shell as command",
      `${BASE}mcp_servers:\n  - {name: a, command: /bin/bash}\n`,
      /"mcp_servers\[0\]\.command" must not be "\/bin\/bash"/,
      "mcp_servers[0].command",
    ],
    [
      "shell operators in args",
      `${BASE}mcp_servers:\n  - {name: a, args: ["x;rm -rf /"]}\n`,
      /"mcp_servers\[0\]\.args\[0\]" must not contain shell operators/,
      "mcp_servers[0].args[0]",
    ],
    [
      "args of the wrong type",
      `${BASE}mcp_servers:\n  - {name: a, args: 3}\n`,
      /"mcp_servers\[0\]\.args" must be a list of strings/,
      "mcp_servers[0].args",
    ],
    [
      "a numeric env value",
      `${BASE}mcp_servers:\n  - {name: a, env: {PORT: 80}}\n`,
      /"mcp_servers\[0\]\.env\.PORT" must be a string/,
      "mcp_servers[0].env.PORT",
    ],
    [
      "a bad env name",
      `${BASE}mcp_servers:\n  - {name: a, env: {"my var": x}}\n`,
      /"mcp_servers\[0\]\.env\.my var" is not a valid environment variable name/,
      "mcp_servers[0].env.my var",
    ],
    [
      "the reserved delegation name",
      `${BASE}mcp_servers:\n  - {name: observal-agents}\n`,
      /reserved for delegation/,
      "mcp_servers[0].name",
    ],
    [
      "a repeated server name",
      `${BASE}mcp_servers:\n  - {name: a}\n  - {name: a}\n`,
      /"mcp_servers\[1\]\.name" repeats the server name "a"/,
      "mcp_servers[1].name",
    ],
    [
      "a skill without content",
      `${BASE}skills:\n  - {name: s, description: d}\n`,
      /"skills\[0\]\.content" is required/,
      "skills[0].content",
    ],
    [
      "a skill with its own front matter",
      `${BASE}skills:\n  - {name: s, description: d, content: "---\\nname: s\\n---\\nbody"}\n`,
      /SKILL\.md body only/,
      "skills[0].content",
    ],
    [
      "a repeated skill name",
      `${BASE}skills:\n  - {name: s, description: d, content: x}\n  - {name: s, description: d, content: y}\n`,
      /repeats the skill name "s"/,
      "skills[1].name",
    ],
    [
      "a query that is not a string",
      `${BASE}representative_queries: [[a]]\n`,
      /"representative_queries\[0\]" must be a string/,
      "representative_queries[0]",
    ],
    [
      "too many tags",
      `${BASE}tags: [${Array.from({ length: 33 }, (_, i) => `t${i}`).join(", ")}]\n`,
      /"tags" must have at most 32 items/,
      "tags",
    ],
  ];
  for (const [what, text, pattern, resource] of cases) {
    await t.step(what, () => {
      refuses(text, pattern, resource);
    });
  }
});

Deno.test("parseAgentYaml() reports several problems in one message", () => {
  const err = refuses("name: Bad\nversion: 1.0.0\n", /"name".*; Field "prompt" is required/);
  assert.equal(err.resource, "name");
});

Deno.test("parseAgentYaml() refuses unknown keys and names them", () => {
  refuses(`${BASE}owner: alice\ncomponents: []\n`, /Unknown fields "owner", "components"/, "owner");
  refuses(
    `${BASE}mcp_servers:\n  - {name: a, url: "http://x"}\n`,
    /Unknown field "mcp_servers\[0\]\.url"/,
  );
  refuses(
    `${BASE}skills:\n  - {name: s, description: d, content: x, slash_command: /s}\n`,
    /"skills\[0\]\.slash_command"/,
  );
});

Deno.test("parseAgentYaml() refuses a YAML alias bomb without expanding it", () => {
  const bomb = [
    BASE.trimEnd(),
    "tags: &a [x, x, x, x, x, x, x, x, x]",
    "capabilities: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "representative_queries: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "description: [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
    "",
  ].join("\n");
  refuses(bomb, /aliases too heavily/);
});

Deno.test("parseAgentYaml() still accepts a light use of anchors", () => {
  const agent = parseAgentYaml(`${BASE}tags: &t [review]\ncapabilities: *t\n`);
  assert.deepEqual(agent.capabilities, ["review"]);
});

Deno.test("parseAgentYaml() refuses a file over 256 KiB", () => {
  const text = `${BASE}description: "${"x".repeat(MAX_AGENT_YAML_BYTES)}"\n`;
  refuses(text, /more than the 262144 allowed/);
});

Deno.test("parseAgentYaml() refuses malformed YAML with its position", () => {
  refuses(`${BASE}tags: [a, b\n`, /not valid YAML at line \d+/);
  refuses(`${BASE}name: again\n`, /not valid YAML at line 4, column 1: Map keys must be unique/);
});

Deno.test("parseAgentYaml() refuses more than one document", () => {
  refuses(`${BASE}---\nname: other\n`, /more than one YAML document/);
});

Deno.test("parseAgentYaml() refuses a document that is not a mapping", () => {
  refuses("- name: reviewer\n", /must be a mapping/);
  // Comments alone hold no mapping either (an empty text is refused as empty, below).
  refuses("# nothing yet\n", /must be a mapping/);
});

Deno.test("parseAgentDefinition() validates a decoded JSON body the same way", () => {
  const agent = parseAgentDefinition({ name: "r", version: "1.0.0", prompt: "p" });
  assert.equal(agent.description, "");
  assert.throws(
    () => parseAgentDefinition({ name: "r", version: "1.0.0", prompt: "p", extra: 1 }),
    /Unknown field "extra"/,
  );
});

Deno.test("parseAgentYaml() refuses an empty definition as empty", () => {
  for (const text of ["", "  \n\n\t\n"]) {
    const err = refuses(text, /^The agent definition is empty$/);
    assert.match(err.remediation ?? "", /name, version and prompt/);
  }
});

Deno.test("parseAgentYaml() refuses deep nesting before parsing it, however it is written", () => {
  const deep = [
    "[".repeat(100_000),
    `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
    "{a: ".repeat(50_000),
    `${BASE}tags: ${"a: [".repeat(20_000)}`,
    "- ".repeat(100_000),
    "? ".repeat(100_000),
  ];
  for (const text of deep) {
    const err = refuses(
      text,
      /^The agent definition nests \d+ levels deep; at most 64 are accepted$/,
    );
    assert.match(err.remediation ?? "", /Flatten/);
  }
  // Brackets, dashes and quotes inside text are not nesting.
  const prompt = `name: reviewer\nversion: 1.0.0\nprompt: |\n  ${"[".repeat(100)} don't\n  ${
    "- ".repeat(100)
  }\ndescription: '${"{".repeat(100)}' # ${"[".repeat(100)}\n`;
  assert.equal(parseAgentYaml(prompt).name, "reviewer");
});

Deno.test("parseAgentYaml() takes nesting by indentation as deep as its size allows", () => {
  // About 700 levels fit in 256 KiB; they parse, and are refused as unknown fields.
  const stairs = Array.from({ length: 700 }, (_, i) => `${" ".repeat(i)}a:`).join("\n");
  refuses(`${BASE}${stairs}\n`, /Unknown field "a"/);
});
