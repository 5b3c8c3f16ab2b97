/**
 * The Node single executable that `compile.sh --sea` builds (the binary that can be built
 * without network here): it re-executes itself as the worker, and the observal-agents
 * entry it writes launches from a bare PATH.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findDelegationEntry } from "../../lib/harness/mod.ts";
import { probeMcpServer } from "../../lib/mcp/probe_server.ts";
import { playground } from "../support/delegation.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const BARE_PATH = "/usr/local/bin:/usr/bin:/bin";

Deno.test("compile.sh --sea: a delegation runs through the binary, and its MCP entry launches", async () => {
  execFileSync("bash", ["compile.sh", "--sea"], { cwd: root, stdio: "pipe" });
  const bin = join(root, "dist", "observal-node-sea");
  const work = realpathSync(mkdtempSync(join(tmpdir(), "observal-sea-")));
  const pg = await playground({ behaviour: "complete" });
  try {
    // The worker is the binary run again with its own arguments: the task must complete.
    const run = await new Deno.Command(bin, {
      args: ["delegate", "run", pg.identifier, "from the binary", "--wait", "60", "--json"],
      env: { ...pg.env, PATH: BARE_PATH } as Record<string, string>,
      clearEnv: true,
    }).output();
    const task = JSON.parse(new TextDecoder().decode(run.stdout));
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(task.artifacts[0].parts[0].text, "echo:from the binary");

    const home = join(work, "home");
    mkdirSync(join(home, ".codex"), { recursive: true });
    const env = { HOME: home, OBSERVAL_HOME: join(home, ".observal"), PATH: BARE_PATH };
    execFileSync(bin, ["mcp", "install", "--harness", "codex", "--scope", "user"], {
      env,
      stdio: "pipe",
    });
    const found = findDelegationEntry("codex", "user", env, work);
    assert.equal(found.entry?.command, bin);
    assert.deepEqual(found.entry?.args, ["delegate", "mcp", "--harness", "codex"]);
    const probe = await probeMcpServer({
      command: found.entry!.command,
      args: found.entry!.args,
      env: { ...env, ...found.entry!.env },
    });
    assert.ok(probe.ok, JSON.stringify(probe));
    assert.equal(probe.tools.length, 4);
  } finally {
    await pg.close();
    rmSync(work, { recursive: true, force: true });
  }
});
