/** The observal-agents MCP server driven by the MCP Inspector CLI, a client we do not own. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { playground } from "../support/delegation.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const inspector = `${root}node_modules/.bin/mcp-inspector`;

async function inspect(env: Record<string, string>, args: string[]) {
  const envFlags = Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  const out = await new Deno.Command(inspector, {
    args: [
      "--cli",
      ...envFlags,
      Deno.execPath(),
      "run",
      "-A",
      `${root}main.ts`,
      "delegate",
      "mcp",
      "--harness",
      "codex",
      ...args,
    ],
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(stdout);
}

Deno.test("MCP Inspector CLI lists the tools and delegates a task through them", async () => {
  const pg = await playground({ behaviour: "complete" });
  try {
    const env = { OBSERVAL_HOME: pg.home, HOME: pg.home };
    const listed = await inspect(env, ["--method", "tools/list"]);
    assert.deepEqual(
      listed.tools.map((t: { name: string }) => t.name).sort(),
      ["cancel_task", "delegate", "find_agents", "get_task"],
    );
    const found = await inspect(env, [
      "--method",
      "tools/call",
      "--tool-name",
      "find_agents",
      "--tool-arg",
      "task=echo this back",
    ]);
    assert.match(found.content[0].text, new RegExp(pg.identifier.replaceAll(".", "\\.")));
    const done = await inspect(env, [
      "--method",
      "tools/call",
      "--tool-name",
      "delegate",
      "--tool-arg",
      `agent=${pg.identifier}`,
      "message=Say hello",
      "wait_seconds=30",
    ]);
    assert.notEqual(done.isError, true, JSON.stringify(done));
    assert.match(done.content[0].text, /state: TASK_STATE_COMPLETED/);
    assert.match(done.content[0].text, /echo:Say hello/);
  } finally {
    await pg.close();
  }
});
