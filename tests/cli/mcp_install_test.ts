/**
 * `observal mcp install` writes an observal-agents entry that launches as the harness would
 * start it: the command, args and env from the written file, a PATH without observal's own
 * folders, and the system's older Node first on it.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findDelegationEntry, type HarnessKey } from "../../lib/harness/mod.ts";
import { probeMcpServer } from "../../lib/mcp/probe_server.ts";
import { MAIN } from "../support/process.ts";

/** What a harness started from a desktop or another shell would have: no observal on it. */
const BARE_PATH = "/usr/local/bin:/usr/bin:/bin";

async function observal(args: string[], env: Record<string, string>, cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

for (
  const [harness, scope] of [["claude-code", "project"], ["codex", "user"], [
    "codex",
    "project",
  ]] as const
) {
  Deno.test(`mcp install --harness ${harness} --scope ${scope}: the entry launches from a bare PATH`, async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-mcpi-")));
    try {
      const home = join(root, "home");
      const project = join(root, "project");
      mkdirSync(join(home, ".codex"), { recursive: true });
      mkdirSync(project);
      const env = {
        HOME: home,
        OBSERVAL_HOME: join(home, ".observal"),
        PATH: Deno.env.get("PATH") ?? BARE_PATH,
        NO_COLOR: "1",
      };
      const r = await observal(
        ["mcp", "install", "--harness", harness, "--scope", scope, "--json"],
        env,
        project,
      );
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.files[0].status, "created");
      const found = findDelegationEntry(harness as HarnessKey, scope, env, project);
      assert.ok(found.entry, `no entry in ${found.path}: ${readFileSync(found.path, "utf8")}`);
      assert.equal(found.entry.env.OBSERVAL_HOME, env.OBSERVAL_HOME);
      // A server that lives as long as the harness keeps V8's young generation small.
      assert.ok(
        found.entry.args.includes("--v8-flags=--max-semi-space-size=1"),
        found.entry.args.join(" "),
      );
      // Spawned exactly as the harness would: its command and args, the file's env over a
      // bare environment with the system Node (older than observal needs) first on PATH.
      const probe = await probeMcpServer({
        command: found.entry.command,
        args: found.entry.args,
        env: { HOME: home, PATH: BARE_PATH, ...found.entry.env },
        cwd: project,
      });
      assert.ok(probe.ok, JSON.stringify(probe));
      assert.deepEqual(probe.tools.sort(), ["cancel_task", "delegate", "find_agents", "get_task"]);
      // Installing twice changes nothing.
      const again = await observal(
        ["mcp", "install", "--harness", harness, "--scope", scope, "--json"],
        env,
        project,
      );
      assert.equal(JSON.parse(again.stdout).files[0].status, "unchanged");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}

Deno.test("mcp install --harness goose merges a config holding a tag yaml does not know, and warns of nothing", async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-mcpi-")));
  try {
    const env = { HOME: root, OBSERVAL_HOME: join(root, ".observal"), PATH: BARE_PATH };
    const config = join(root, ".config", "goose", "config.yaml");
    mkdirSync(join(root, ".config", "goose"), { recursive: true });
    writeFileSync(config, "GOOSE_MODEL: m\nsecret: !env KEY\n");
    // Written, then read back (the entry found again) by a second install.
    for (const status of ["merged", "unchanged"]) {
      const r = await observal(["mcp", "install", "--harness", "goose", "--json"], env, root);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).files[0].status, status);
      assert.equal(r.stderr, "");
    }
    assert.match(readFileSync(config, "utf8"), /^GOOSE_MODEL: m\nsecret: !env KEY\nextensions:\n/);
    // Read here too, as doctor reads it: with nothing on the console either.
    const warned: unknown[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warned.push(args);
    try {
      assert.ok(findDelegationEntry("goose", "user", env, root).entry);
    } finally {
      console.warn = warn;
    }
    assert.deepEqual(warned, []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("mcp install --launcher npx writes npx -y observal@<version>", async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-mcpi-")));
  try {
    const env = { HOME: root, OBSERVAL_HOME: join(root, ".observal"), PATH: BARE_PATH };
    const r = await observal(
      ["mcp", "install", "--harness", "claude-code", "--launcher", "npx", "--json"],
      env,
      root,
    );
    assert.equal(r.code, 0, r.stderr);
    const entry = JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8")).mcpServers[
      "observal-agents"
    ];
    assert.equal(entry.command, "npx");
    assert.equal(entry.args[0], "-y");
    assert.match(entry.args[1], /^observal@\d+\.\d+\.\d+/);
    assert.deepEqual(entry.args.slice(2), ["delegate", "mcp", "--harness", "claude-code"]);
    const bad = await observal(
      ["mcp", "install", "--harness", "claude-code", "--launcher", "x"],
      env,
      root,
    );
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--launcher cannot be "x"/);
    assert.match(bad.stderr, /Use one of: self, npx/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
