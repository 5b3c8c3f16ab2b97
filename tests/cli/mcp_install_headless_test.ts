/**
 * `observal mcp install --allow-headless` writes the allow rule where each harness reads it
 * and says what it wrote; without it the install names the step headless use still needs.
 * Codex's entry goes where Codex always reads it, and paths are shown as they are. The real
 * harnesses' behaviour behind each rule is tests/e2e/harness_caller_test.ts.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { installedFromNpm, npxVersionWarning } from "../../lib/cli/mcp/npx_version.ts";
import { cli } from "../support/cli.ts";

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-mcph-")));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  const env: Record<string, string> = {
    HOME: home,
    OBSERVAL_HOME: join(home, ".observal"),
    PATH: "/usr/bin:/bin",
    NO_COLOR: "1",
  };
  const install = (args: string[], extra: Record<string, string> = {}) =>
    cli(["mcp", "install", ...args], { env: { ...env, ...extra }, cwd: project });
  return { root, home, project, env, install, done: () => rmSync(root, { recursive: true }) };
}

const json = (path: string) => JSON.parse(readFileSync(path, "utf8"));
// deno-lint-ignore no-explicit-any -- the tests walk parsed TOML by known keys
const toml = (path: string) => parseToml(readFileSync(path, "utf8")) as Record<string, any>;

Deno.test("mcp install --harness claude-code --allow-headless: the allow rule in .claude/settings.local.json, the file's other settings kept", async () => {
  const s = setup();
  try {
    const settings = join(s.project, ".claude", "settings.local.json");
    mkdirSync(join(s.project, ".claude"));
    writeFileSync(
      settings,
      JSON.stringify({ permissions: { allow: ["Bash(ls)"], deny: ["WebFetch"] }, model: "x" }),
    );
    const r = await s.install(["--harness", "claude-code", "--allow-headless"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^created +\.mcp\.json$/m);
    assert.match(
      r.stdout,
      /^merged +\.claude\/settings\.local\.json \(permissions\.allow: "mcp__observal-agents"\)$/m,
    );
    assert.match(r.stdout, /claude -p may now call its tools/);
    assert.deepEqual(json(settings), {
      permissions: { allow: ["Bash(ls)", "mcp__observal-agents"], deny: ["WebFetch"] },
      model: "x",
    });
    // Once is enough: a second install changes nothing.
    const again = await s.install(["--harness", "claude-code", "--allow-headless", "--json"]);
    const out = JSON.parse(again.stdout);
    assert.deepEqual(out.allow_files.map((a: { status: string }) => a.status), ["unchanged"]);
    assert.equal(out.allow_files[0].path, settings);
  } finally {
    s.done();
  }
});

Deno.test("mcp install --harness claude-code --scope user --allow-headless: the rule in Claude Code's own settings.json", async () => {
  const s = setup();
  try {
    const config = join(s.root, "claude-config");
    mkdirSync(config);
    const r = await s.install(["--harness", "claude-code", "--scope", "user", "--allow-headless"], {
      CLAUDE_CONFIG_DIR: config,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(json(join(config, "settings.json")), {
      permissions: { allow: ["mcp__observal-agents"] },
    });
    // Shown as it is: CLAUDE_CONFIG_DIR is not under HOME, so not as ~/.
    assert.ok(r.stdout.includes(`created      ${join(config, "settings.json")} (`), r.stdout);
  } finally {
    s.done();
  }
});

Deno.test("mcp install --harness claude-code without the opt-in names --allowedTools and --allow-headless, and writes no rule", async () => {
  const s = setup();
  try {
    const r = await s.install(["--harness", "claude-code"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /claude -p denies its tools until allowed: run claude -p with --allowedTools mcp__observal-agents, or install again with --allow-headless\./,
    );
    assert.throws(() => readFileSync(join(s.project, ".claude", "settings.local.json")));
  } finally {
    s.done();
  }
});

Deno.test("mcp install --harness codex goes to $CODEX_HOME/config.toml, shown by its real path; --allow-headless approves the tools", async () => {
  const s = setup();
  try {
    const codexHome = join(s.root, "codex-home");
    mkdirSync(codexHome);
    const config = join(codexHome, "config.toml");
    writeFileSync(config, 'model = "gpt-5.5"\n');
    const plain = await s.install(["--harness", "codex"], { CODEX_HOME: codexHome });
    assert.equal(plain.code, 0, plain.stderr);
    assert.ok(plain.stdout.includes(`merged       ${config}\n`), plain.stdout);
    assert.ok(!plain.stdout.includes("~/config.toml"));
    assert.match(
      plain.stdout,
      /codex exec refuses delegate until approved: install again with --allow-headless\./,
    );
    assert.equal(
      toml(config).mcp_servers["observal-agents"].default_tools_approval_mode,
      undefined,
    );
    const allowed = await s.install(["--harness", "codex", "--allow-headless"], {
      CODEX_HOME: codexHome,
    });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /codex exec may now call its tools/);
    const doc = toml(config);
    assert.equal(doc.model, "gpt-5.5");
    assert.equal(doc.mcp_servers["observal-agents"].default_tools_approval_mode, "approve");
    assert.equal(doc.projects, undefined, "a user-scope entry needs no project trust");
    // Under HOME, the same file is shown from ~/.
    const underHome = await s.install(["--harness", "codex"]);
    assert.match(underHome.stdout, /^created +~\/\.codex\/config\.toml$/m);
  } finally {
    s.done();
  }
});

Deno.test("mcp install --harness codex --scope project names the trust step, and --allow-headless writes the trust", async () => {
  const s = setup();
  try {
    const codexHome = join(s.root, "codex-home");
    const plain = await s.install(["--harness", "codex", "--scope", "project"], {
      CODEX_HOME: codexHome,
    });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^created +\.codex\/config\.toml$/m);
    assert.ok(
      plain.stdout.includes(
        `Codex reads .codex/config.toml only in a trusted project: trust ${s.project} when Codex asks, or install again with --allow-headless.`,
      ),
      plain.stdout,
    );
    const allowed = await s.install([
      "--harness",
      "codex",
      "--scope",
      "project",
      "--allow-headless",
    ], {
      CODEX_HOME: codexHome,
    });
    assert.equal(allowed.code, 0, allowed.stderr);
    const config = join(codexHome, "config.toml");
    assert.ok(
      allowed.stdout.includes(
        `created      ${config} ([projects."${s.project}"] trust_level = "trusted")`,
      ),
      allowed.stdout,
    );
    assert.equal(toml(config).projects[s.project].trust_level, "trusted");
    assert.equal(
      toml(join(s.project, ".codex", "config.toml")).mcp_servers["observal-agents"]
        .default_tools_approval_mode,
      "approve",
    );
    assert.doesNotMatch(allowed.stdout, /trusted project: trust/);
  } finally {
    s.done();
  }
});

Deno.test("mcp install --harness opencode says its run needs no opt-in", async () => {
  const s = setup();
  try {
    const r = await s.install(["--harness", "opencode", "--allow-headless", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.allow_files, []);
    assert.deepEqual(out.notes, [
      "opencode run calls its tools without asking (unless your permission config says ask).",
    ]);
  } finally {
    s.done();
  }
});

Deno.test("mcp install --launcher npx sets no OBSERVAL_HOME unless --home is given, and warns about an unpublished version", async () => {
  const s = setup();
  try {
    const r = await s.install(["--harness", "claude-code", "--launcher", "npx"]);
    assert.equal(r.code, 0, r.stderr);
    const entry = json(join(s.project, ".mcp.json")).mcpServers["observal-agents"];
    assert.equal(entry.command, "npx");
    assert.deepEqual(entry.env, {});
    assert.match(
      r.stdout,
      /It sets no OBSERVAL_HOME: it uses the default home of whoever runs it\./,
    );
    // These tests run from a source checkout: that version is not known to be on npm.
    assert.match(
      r.stderr,
      /^warning: this observal was not installed from npm, so observal@\d+\.\d+\.\d+\S* may not exist there/m,
    );
    const home = join(s.root, "shared-home");
    const withHome = await s.install([
      "--harness",
      "claude-code",
      "--launcher",
      "npx",
      "--home",
      home,
    ]);
    assert.equal(withHome.code, 0, withHome.stderr);
    assert.deepEqual(json(join(s.project, ".mcp.json")).mcpServers["observal-agents"].env, {
      OBSERVAL_HOME: home,
    });
    assert.doesNotMatch(withHome.stdout, /sets no OBSERVAL_HOME/);
    // The default launcher carries this machine's home, as before.
    await s.install(["--harness", "claude-code"]);
    assert.deepEqual(json(join(s.project, ".mcp.json")).mcpServers["observal-agents"].env, {
      OBSERVAL_HOME: s.env.OBSERVAL_HOME,
    });
  } finally {
    s.done();
  }
});

Deno.test("the npx version warning: none for an observal installed from npm", () => {
  assert.equal(installedFromNpm("/usr/lib/node_modules/observal/bin/observal.mjs"), true);
  assert.equal(installedFromNpm("/home/u/src/observal/main.ts"), false);
  assert.equal(installedFromNpm(undefined), false);
  assert.equal(npxVersionWarning("1.2.3", true), undefined);
  assert.match(npxVersionWarning("1.2.3", false)!, /observal@1\.2\.3 may not exist there/);
  assert.match(npxVersionWarning("1.2.3", false)!, /use --launcher self/);
});

Deno.test("mcp install --allow-headless refuses a settings file it cannot merge before writing anything", async () => {
  const s = setup();
  try {
    mkdirSync(join(s.project, ".claude"));
    writeFileSync(join(s.project, ".claude", "settings.local.json"), "{ not json");
    const r = await s.install(["--harness", "claude-code", "--allow-headless"]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /settings\.local\.json: it is not valid JSON/);
    assert.throws(() => readFileSync(join(s.project, ".mcp.json")));
    // A dry run writes nothing and says what it would do.
    rmSync(join(s.project, ".claude"), { recursive: true });
    const dry = await s.install(["--harness", "claude-code", "--allow-headless", "--dry-run"]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^would create +\.claude\/settings\.local\.json \(/m);
    assert.throws(() => readFileSync(join(s.project, ".claude", "settings.local.json")));
  } finally {
    s.done();
  }
});
