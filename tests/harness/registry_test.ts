import assert from "node:assert/strict";
import data from "../../harness_registry.json" with { type: "json" };
import { ObservalError } from "../../lib/core/mod.ts";
import {
  getHarness,
  HARNESS_KEYS,
  HarnessRegistrySchema,
  headlessHarnesses,
  loadHarnessRegistry,
  normalizeHarness,
} from "../../lib/harness/mod.ts";

Deno.test("the bundled harness_registry.json is exactly what HarnessRegistrySchema accepts", () => {
  // Commands read the file as it is: this is where it is checked.
  const parsed = HarnessRegistrySchema.safeParse(data);
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues[0]));
  assert.deepEqual(parsed.data, data, "the schema adds, drops or converts nothing");
  assert.deepEqual(loadHarnessRegistry(), data);
});

Deno.test("loadHarnessRegistry() returns all eleven harnesses in canonical order", () => {
  const registry = loadHarnessRegistry();
  assert.deepEqual(registry.harnesses.map((h) => h.key), [
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
  ]);
  assert.deepEqual(registry.harnesses.map((h) => h.key), [...HARNESS_KEYS]);
});

Deno.test("loadHarnessRegistry() records the headless facts delegation needs", () => {
  const registry = loadHarnessRegistry();
  const binaries = Object.fromEntries(registry.harnesses.map((h) => [h.key, h.headless.binary]));
  assert.deepEqual(binaries, {
    cursor: "cursor-agent",
    kiro: "kiro-cli",
    "claude-code": "claude",
    codex: "codex",
    copilot: null,
    "copilot-cli": "copilot",
    opencode: "opencode",
    antigravity: "agy",
    goose: null,
    pi: "pi",
    "gemini-cli": "gemini",
  });
  const onStdin = registry.harnesses.filter((h) => h.headless.task_on_stdin).map((h) => h.key);
  assert.deepEqual(onStdin, ["claude-code", "opencode", "pi", "gemini-cli"]);
  const withAgentFlag = registry.harnesses.filter((h) => h.headless.agent_flag).map((h) => h.key);
  assert.deepEqual(withAgentFlag, ["kiro", "claude-code", "copilot-cli", "opencode"]);
  for (const h of registry.harnesses) {
    assert.equal(h.headless.shell_refusal === null, !h.runtime.headless_run, h.key);
    assert.equal(h.headless.unsupported_reason === null, h.runtime.headless_run, h.key);
  }
});

Deno.test("loadHarnessRegistry() keeps scopes and path templates inside their roots", () => {
  for (const h of loadHarnessRegistry().harnesses) {
    assert.ok(h.scopes.includes(h.default_scope), h.key);
    for (const pair of [h.agent_profile, h.mcp_config, h.skills]) {
      for (const [scope, path] of Object.entries(pair)) {
        if (path === null) continue;
        assert.ok(!path.split("/").includes(".."), `${h.key} ${path}`);
        assert.ok(!path.startsWith("/"), `${h.key} ${path}`);
        // Only Copilot CLI's MCP file is a home path under the project key (see render).
        if (scope === "user") assert.ok(path.startsWith("~/"), `${h.key} ${path}`);
      }
    }
    assert.ok(h.skills.project?.includes("{name}"), h.key);
    assert.ok(h.agent_profile.project?.includes("{name}") || h.key === "pi", h.key);
  }
  assert.deepEqual(getHarness("copilot").scopes, ["project"]);
  assert.deepEqual(getHarness("copilot-cli").scopes, ["project"]);
  assert.equal(getHarness("kiro").default_scope, "user");
  assert.equal(getHarness("claude-code").runtime.mcp_install_mode, "setup_command");
  assert.equal(getHarness("codex").mcp_servers_key, "mcp_servers");
  assert.equal(getHarness("goose").home_mcp_config, "~/.config/goose/config.yaml");
});

Deno.test("HarnessRegistrySchema refuses a registry that drops or reorders harnesses", () => {
  const registry = structuredClone(loadHarnessRegistry());
  const dropped = { ...registry, harnesses: registry.harnesses.slice(1) };
  assert.equal(HarnessRegistrySchema.safeParse(dropped).success, false);
  const swapped = {
    ...registry,
    harnesses: [registry.harnesses[1], registry.harnesses[0], ...registry.harnesses.slice(2)],
  };
  assert.equal(HarnessRegistrySchema.safeParse(swapped).success, false);
});

Deno.test("HarnessRegistrySchema refuses a headless harness without a binary", () => {
  const registry = structuredClone(loadHarnessRegistry());
  registry.harnesses[2].headless.binary = null;
  const result = HarnessRegistrySchema.safeParse(registry);
  assert.equal(result.success, false);
  assert.deepEqual(result.error?.issues[0].path, ["harnesses", 2, "headless", "binary"]);
});

Deno.test("HarnessRegistrySchema refuses unknown fields", () => {
  const registry = structuredClone(loadHarnessRegistry()) as unknown as {
    harnesses: Record<string, unknown>[];
  };
  registry.harnesses[0].surprise = true;
  assert.equal(HarnessRegistrySchema.safeParse(registry).success, false);
});

Deno.test("headlessHarnesses() lists every harness that runs headless, without copilot and goose", () => {
  assert.deepEqual(headlessHarnesses(), [
    "cursor",
    "kiro",
    "claude-code",
    "codex",
    "copilot-cli",
    "opencode",
    "antigravity",
    "pi",
    "gemini-cli",
  ]);
});

Deno.test("headlessHarnesses() follows the registry it is given", () => {
  const registry = structuredClone(loadHarnessRegistry());
  registry.harnesses[9].runtime.headless_run = false;
  assert.ok(!headlessHarnesses(registry).includes("pi"));
});

Deno.test("normalizeHarness() accepts underscores, capitals and spaces around the name", () => {
  assert.equal(normalizeHarness("claude_code"), "claude-code");
  assert.equal(normalizeHarness("Claude-Code"), "claude-code");
  assert.equal(normalizeHarness(" COPILOT_CLI "), "copilot-cli");
  assert.equal(normalizeHarness("pi"), "pi");
});

Deno.test("normalizeHarness() refuses an unknown name and lists the valid ones", () => {
  assert.throws(
    () => normalizeHarness("vim"),
    (err: unknown) => {
      assert.ok(err instanceof ObservalError);
      assert.equal(err.code, "INVALID_ARGUMENT");
      assert.match(err.message, /"vim"/);
      for (const key of HARNESS_KEYS) assert.ok(err.remediation?.includes(key), key);
      return true;
    },
  );
  assert.throws(() => normalizeHarness(""), ObservalError);
  assert.throws(() => getHarness("claude code"), ObservalError);
});

Deno.test("loadHarnessRegistry() validates once and hands out one frozen registry", () => {
  const registry = loadHarnessRegistry();
  assert.equal(loadHarnessRegistry(), registry);
  const claude = registry.harnesses.find((h) => h.key === "claude-code")!;
  assert.throws(() => {
    (claude.headless as { binary: string | null }).binary = "elsewhere";
  }, TypeError);
  assert.throws(() => (claude.guidance_files as string[]).push("X.md"), TypeError);
  assert.equal(loadHarnessRegistry().harnesses.find((h) => h.key === "claude-code"), claude);
  assert.notEqual(claude.headless.binary, "elsewhere");
});
