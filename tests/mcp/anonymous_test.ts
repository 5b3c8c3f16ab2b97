/**
 * observal-agents against a registry that answers an anonymous caller with nothing: the
 * model is told it is not signed in and which variable to set, not "no agent matches".
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MAIN } from "../support/process.ts";
import { startRegistry } from "../support/registry.ts";

async function findAgents(env: Record<string, string>, cwd: string): Promise<string> {
  const client = new Client({ name: "observal-test", version: "0.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", MAIN, "delegate", "mcp", "--harness", "codex"],
      env,
      cwd,
      stderr: "pipe",
    }),
  );
  try {
    const r = await client.callTool({ name: "find_agents", arguments: { task: "review code" } });
    return (r.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n");
  } finally {
    await client.close();
  }
}

Deno.test("find_agents tells an anonymous caller that it is not signed in and what to set", async () => {
  const registry = await startRegistry();
  const home = mkdtempSync(join(tmpdir(), "observal-anon-"));
  try {
    const env = {
      HOME: home,
      OBSERVAL_HOME: home,
      OBSERVAL_SERVER_URL: registry.url,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      NO_COLOR: "1",
    };
    const anonymous = await findAgents(env, home);
    assert.match(anonymous, /not signed in to the registry at http:\/\/127\.0\.0\.1:\d+/);
    assert.match(anonymous, /OBSERVAL_API_KEY/);
    assert.doesNotMatch(anonymous, /`observal /, "no CLI command for the model");
    const { key } = registry.user("ana");
    const signedIn = await findAgents({ ...env, OBSERVAL_API_KEY: key }, home);
    assert.equal(signedIn, "No approved agent in the registry matches that task. Do it yourself.");
  } finally {
    await registry.close();
    rmSync(home, { recursive: true, force: true });
  }
});
