/**
 * The npm package as users meet it: packed with `npm pack`, installed into an empty
 * folder, and its `observal mcp install` entries launched the way a harness launches
 * them, from a PATH without the install's bin folder and with an older Node first.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findDelegationEntry } from "../../lib/harness/mod.ts";
import { probeMcpServer } from "../../lib/mcp/probe_server.ts";
import { PROJECT_NODE } from "./_node_versions.ts";
import { packAndInstall } from "./_pack.ts";

const NODE24 = realpathSync(PROJECT_NODE);
const BARE_PATH = "/usr/local/bin:/usr/bin:/bin";

Deno.test("npm pack, npm install into an empty folder: mcp install entries launch from a bare PATH", async () => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), "observal-npmi-")));
  try {
    const { app, bin, npmEnv } = packAndInstall(work);
    const home = join(work, "home");
    mkdirSync(join(home, ".codex"), { recursive: true });
    const env = { ...npmEnv, HOME: home, OBSERVAL_HOME: join(home, ".observal"), NO_COLOR: "1" };
    for (const [harness, scope] of [["codex", "user"], ["claude-code", "project"]] as const) {
      execFileSync(bin, ["mcp", "install", "--harness", harness, "--scope", scope], {
        cwd: app,
        env,
        stdio: "pipe",
      });
      const found = findDelegationEntry(harness, scope, env, app);
      assert.ok(found.entry, found.path);
      // Absolute paths: the Node that ran the install, and the package's own script.
      assert.equal(realpathSync(found.entry.command), NODE24);
      assert.match(found.entry.args[0], /node_modules\/observal\/bin\/observal\.mjs$/);
      const probe = await probeMcpServer({
        command: found.entry.command,
        args: found.entry.args,
        env: { HOME: home, PATH: BARE_PATH, ...found.entry.env },
        cwd: app,
      });
      assert.ok(probe.ok, JSON.stringify(probe));
      assert.deepEqual(probe.tools.sort(), ["cancel_task", "delegate", "find_agents", "get_task"]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
