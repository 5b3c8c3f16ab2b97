/**
 * Flag values with a fixed set (`--type`, `--harness`, `--scope`, `--visibility`, roles,
 * launchers) and setting keys are refused with the values they take, and the closest one.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../support/cli.ts";
import { AGENT_FILE, json, seed } from "./_registry_seed.ts";

const HARNESSES = /Use one of: cursor, kiro, claude-code, codex, copilot, copilot-cli, opencode/;

Deno.test("a value outside a flag's set exits 2 and lists the values it takes", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-values-"));
  const env = { OBSERVAL_HOME: home, HOME: home };
  try {
    const table: Array<{ argv: string[]; message: RegExp; allowed: RegExp }> = [
      {
        argv: ["registry", "search", "x", "--type", "agnet"],
        message: /--type cannot be "agnet"/,
        allowed: /Did you mean agent\? Use one of: agent, a2a/,
      },
      {
        argv: ["registry", "search", "x", "--harness", "claude"],
        message: /--harness cannot be "claude"/,
        allowed: HARNESSES,
      },
      {
        argv: ["registry", "agent", "install", "some/agent", "--harness", "codx"],
        message: /--harness cannot be "codx"/,
        allowed: /Did you mean codex\?/,
      },
      {
        argv: ["registry", "agent", "install", "some/agent", "--harness", "codex", "--scope", "x"],
        message: /--scope cannot be "x"/,
        allowed: /Use one of: project, user/,
      },
      {
        argv: ["agent", "pull", "some/agent", "--harness", "vim"],
        message: /--harness cannot be "vim"/,
        allowed: HARNESSES,
      },
      {
        argv: ["agent", "pull", "some/agent", "--harness", "codex", "--scope", "global"],
        message: /--scope cannot be "global"/,
        allowed: /Use one of: project, user/,
      },
      {
        argv: ["mcp", "install", "--harness", "kiroo"],
        message: /--harness cannot be "kiroo"/,
        allowed: /Did you mean kiro\?/,
      },
      {
        argv: ["mcp", "install", "--harness", "kiro", "--scope", "users"],
        message: /--scope cannot be "users"/,
        allowed: /Did you mean user\? Use one of: project, user/,
      },
      {
        argv: ["registry", "agent", "publish", AGENT_FILE, "--visibility", "everyone"],
        message: /--visibility cannot be "everyone"/,
        allowed: /Use one of: private, team, public/,
      },
      {
        argv: ["registry", "a2a", "submit", "https://x.example", "--visibility", "publik"],
        message: /--visibility cannot be "publik"/,
        allowed: /Did you mean public\?/,
      },
      {
        argv: ["registry", "user", "add", "amy", "--role", "root"],
        message: /--role cannot be "root"/,
        allowed: /Use one of: admin, reviewer, user/,
      },
      {
        argv: ["registry", "team", "member", "t", "amy", "--role", "boss"],
        message: /--role cannot be "boss"/,
        allowed: /Use one of: owner, reviewer, member/,
      },
    ];
    for (const { argv, message, allowed } of table) {
      const r = await cli(argv, { env });
      const label = argv.join(" ");
      assert.equal(r.code, 2, `${label}: ${r.stderr}`);
      assert.match(r.stderr, message, label);
      assert.match(r.stderr, allowed, label);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

Deno.test("harness keys are taken in any spelling the harness registry accepts", async () => {
  const s = await seed();
  try {
    const digest = String(s.agent["obs:artifactDigest"]);
    await json(
      ["registry", "agent", "review", s.agent.identifier, "--approve", "--digest", digest],
      s.env,
    );
    const install = await json(
      ["registry", "agent", "install", s.agent.identifier, "--harness", "Claude_Code"],
      s.env,
    );
    assert.equal(install.harness, "claude-code");
    const found = await json(["registry", "search", "review", "--harness", "CODEX"], s.env);
    assert.ok(found.items.length > 0);
  } finally {
    await s.close();
  }
});

Deno.test("settings get and set refuse an unknown key with the closest one and every key", async () => {
  const s = await seed();
  try {
    const typo = await cli(["registry", "settings", "set", "discovery.a2a_private_host", "x"], {
      env: s.env,
    });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /Unknown setting "discovery\.a2a_private_host"/);
    assert.match(typo.stderr, /Did you mean discovery\.a2a_private_hosts\?/);
    assert.match(typo.stderr, /deployment\.public_url, deployment\.public_registry_enabled/);
    const get = await cli(["registry", "settings", "get", "nonsense"], { env: s.env });
    assert.equal(get.code, 2);
    assert.doesNotMatch(get.stderr, /Did you mean/);
    assert.match(get.stderr, /Settings: deployment\.public_url/);
    const value = await cli(
      ["registry", "settings", "set", "deployment.public_registry_enabled", "yes"],
      { env: s.env },
    );
    assert.equal(value.code, 2);
    assert.match(value.stderr, /accepts true or false/);
    const listed = await json(["registry", "settings", "list"], s.env);
    const hosts = listed.items.find((i: { key: string }) =>
      i.key === "discovery.a2a_private_hosts"
    );
    assert.match(hosts.allowed, /comma-separated host names/);
    const set = await cli(
      ["registry", "settings", "set", "deployment.public_registry_enabled", "true"],
      { env: s.env },
    );
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, "deployment.public_registry_enabled = true\n");
  } finally {
    await s.close();
  }
});
