/**
 * `observal delegate mcp` driven by a real MCP client over stdio, against a real A2A agent
 * on 127.0.0.1 imported and approved in a temp home. The SDK client fails on anything but
 * JSON-RPC on the server's stdout, so every passing call also shows stdout stayed clean.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Task } from "../../lib/a2a/mod.ts";
import type { Env } from "../../lib/core/mod.ts";
import { INPUT_QUESTION } from "../support/a2a_agents.ts";
import { type Playground, playground } from "../support/delegation.ts";
import { MAIN } from "../support/process.ts";

/** How long the SDK client waits for a server to leave on its own before SIGTERM. */
const CLIENT_GRACE_MS = 2000;

interface Session {
  client: Client;
  /** Calls a tool; returns its text and whether it is an error result. */
  call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  /** Closes the client; resolves with how long the server took to go, and its stderr. */
  close(): Promise<{ ms: number; stderr: string }>;
}

async function connect(pg: Playground, extra: Env = {}): Promise<Session> {
  const env = Object.fromEntries(
    Object.entries({ ...pg.env, ...extra }).filter((e): e is [string, string] =>
      e[1] !== undefined
    ),
  );
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", MAIN, "delegate", "mcp", "--harness", "claude-code"],
    env,
    cwd: pg.home,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "observal-test", version: "0.0.0" });
  await client.connect(transport);
  return {
    client,
    async call(name, args) {
      const r = await client.callTool({ name, arguments: args });
      const content = r.content as Array<{ type: string; text?: string }>;
      return { text: content.map((c) => c.text ?? "").join("\n"), isError: r.isError === true };
    },
    async close() {
      const started = performance.now();
      await client.close();
      return { ms: performance.now() - started, stderr };
    },
  };
}

function taskId(summary: string): string {
  const id = summary.match(/^task_id: (\S+)$/m)?.[1];
  assert.ok(id, `a task_id line in:\n${summary}`);
  return id;
}

Deno.test("observal delegate mcp serves the four tools, finds and completes, and exits when the client closes", async () => {
  const pg = await playground({ behaviour: "complete" });
  const s = await connect(pg);
  let closed = false;
  try {
    const info = s.client.getServerVersion();
    assert.equal(info?.name, "observal-agents");
    assert.match(s.client.getInstructions() ?? "", /find_agents.*delegate/s);
    assert.match(s.client.getInstructions() ?? "", /patch/);

    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      "cancel_task",
      "delegate",
      "find_agents",
      "get_task",
    ]);
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.get("find_agents")?.inputSchema.required, ["task"]);
    assert.deepEqual(byName.get("delegate")?.inputSchema.required, ["message"]);
    assert.deepEqual(byName.get("get_task")?.inputSchema.required, ["task_id"]);
    assert.deepEqual(byName.get("cancel_task")?.inputSchema.required, ["task_id"]);
    const wait = byName.get("delegate")?.inputSchema.properties?.wait_seconds as
      | Record<string, unknown>
      | undefined;
    assert.equal(wait?.type, "integer");
    assert.equal(wait?.maximum, 50);

    // A limit above the range is clamped, not refused.
    const found = await s.call("find_agents", { task: "echo what it is told", limit: 50 });
    assert.equal(found.isError, false, found.text);
    assert.ok(found.text.includes(pg.identifier), found.text);
    const agents = JSON.parse(found.text).agents as Array<Record<string, unknown>>;
    assert.equal(agents[0].identifier, pg.identifier);
    assert.equal(agents[0].kind, "a2a");

    const none = await s.call("find_agents", { task: "quantum chromodynamics lattice" });
    assert.equal(none.isError, false, none.text);
    assert.match(none.text, /Do it yourself/);

    // A wait above the range is clamped to 50 s, which is plenty for this agent.
    const done = await s.call("delegate", {
      agent: pg.identifier,
      message: "Summarise the release",
      wait_seconds: 600,
    });
    assert.equal(done.isError, false, done.text);
    assert.match(done.text, /^state: TASK_STATE_COMPLETED$/m);
    assert.match(done.text, /^agent: Echo Agent \(a2a\)$/m);
    assert.match(done.text, /echo:Summarise the release/);

    const again = await s.call("get_task", { task_id: taskId(done.text) });
    assert.match(again.text, /^state: TASK_STATE_COMPLETED$/m);

    const { ms, stderr } = await s.close();
    closed = true;
    assert.match(stderr, /client disconnected; stopped/, "the command returned after stdin closed");
    assert.ok(ms < CLIENT_GRACE_MS, `the server left on its own (took ${Math.round(ms)} ms)`);
  } finally {
    if (!closed) await s.close();
    await pg.close();
  }
});

Deno.test("observal delegate mcp turns refusals into tool errors that say what to do", async () => {
  const pg = await playground({ behaviour: "complete" });
  const s = await connect(pg);
  const deep = await connect(pg, { OBSERVAL_DELEGATION_DEPTH: "2" });
  try {
    const unknown = await s.call("get_task", { task_id: "0b8f5a52-3c7e-4f1e-9d51-2a7b6c1d9e00" });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /No delegated task with id/);
    assert.match(unknown.text, /\n\S/, "the next step follows the message");
    // The next step names a tool, never a command the model cannot run.
    assert.match(unknown.text, /Call get_task with the task_id from delegate/);
    assert.doesNotMatch(unknown.text, /observal /);

    const missing = await s.call("delegate", {
      agent: "urn:air:observal.local:a2a:nobody",
      message: "Write the docs",
    });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /Call find_agents/);
    assert.doesNotMatch(missing.text, /observal /);

    const noAgent = await s.call("delegate", { message: "Write the docs" });
    assert.equal(noAgent.isError, true);
    assert.match(noAgent.text, /identifier from find_agents/);

    const empty = await s.call("delegate", { agent: pg.identifier, message: "  " });
    assert.equal(empty.isError, true);
    assert.match(empty.text, /complete brief/);

    // Arguments the schema refuses are a protocol error the client sees, not a tool result.
    await assert.rejects(s.call("get_task", { task_id: "x", wait_seconds: "soon" }), (err) => {
      assert.ok(err instanceof McpError, String(err));
      assert.equal(err.code, ErrorCode.InvalidParams);
      assert.match(err.message, /`wait_seconds` must be a whole number, not the string "soon"/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });

    const limited = await deep.call("delegate", { agent: pg.identifier, message: "Go deeper" });
    assert.equal(limited.isError, true);
    assert.match(limited.text, /depth limit/);
    assert.match(limited.text, /yourself/);
    assert.deepEqual(pg.agent.requests.filter((r) => r.rpcMethod), [], "nothing reached the agent");
  } finally {
    await deep.close();
    await s.close();
    await pg.close();
  }
});

Deno.test("observal delegate mcp takes a reply for an agent that asks for input", async () => {
  const pg = await playground({ behaviour: "input" });
  const s = await connect(pg);
  try {
    const asked = await s.call("delegate", { agent: pg.identifier, message: "Write notes" });
    assert.equal(asked.isError, false, asked.text);
    assert.match(asked.text, /^state: TASK_STATE_INPUT_REQUIRED$/m);
    assert.ok(asked.text.includes(`status: ${INPUT_QUESTION}`), asked.text);
    assert.match(asked.text, /Call delegate again with this task_id and your answer/);

    const done = await s.call("delegate", {
      task_id: taskId(asked.text),
      message: "Developers",
      wait_seconds: 50,
    });
    assert.equal(done.isError, false, done.text);
    assert.equal(taskId(done.text), taskId(asked.text));
    assert.match(done.text, /^state: TASK_STATE_COMPLETED$/m);
    assert.match(done.text, /Developers/);
  } finally {
    await s.close();
    await pg.close();
  }
});

Deno.test("observal delegate mcp cancels a running task", async () => {
  const pg = await playground({ behaviour: "slow" });
  const s = await connect(pg);
  try {
    const started = await s.call("delegate", {
      agent: pg.identifier,
      message: "Take your time",
      wait_seconds: 0,
    });
    assert.equal(started.isError, false, started.text);
    assert.match(started.text, /Call get_task with this task_id/);
    const id = taskId(started.text);
    // Cancel once the worker has reached the agent, so the agent is told too.
    for (let i = 0;; i++) {
      const r = await pg.json(["delegate", "status", id]);
      if ((r.body as unknown as Task).metadata.observal.remoteTaskId) break;
      assert.ok(i < 100, "the worker reached the agent");
      await new Promise((res) => setTimeout(res, 100));
    }
    const canceled = await s.call("cancel_task", { task_id: id });
    assert.equal(canceled.isError, false, canceled.text);
    assert.match(canceled.text, /^state: TASK_STATE_CANCELED$/m);
    assert.equal(pg.agent.canceled.length, 1);
  } finally {
    await s.close();
    await pg.close();
  }
});

Deno.test("observal delegate mcp answers a question with data, and refuses data without a task", async () => {
  const pg = await playground({ behaviour: "input" });
  const s = await connect(pg);
  try {
    const noTask = await s.call("delegate", {
      agent: pg.identifier,
      message: "Start",
      data: { approved: true },
    });
    assert.equal(noTask.isError, true);
    assert.match(noTask.text, /`data` answers a task; it cannot start one/);
    assert.deepEqual(pg.agent.requests.filter((r) => r.rpcMethod), [], "nothing was started");

    const asked = await s.call("delegate", { agent: pg.identifier, message: "Write notes" });
    assert.match(asked.text, /^state: TASK_STATE_INPUT_REQUIRED$/m);
    const id = taskId(asked.text);
    const done = await s.call("delegate", {
      task_id: id,
      message: "Developers",
      data: { audience: "developers", depth: 2 },
      wait_seconds: 50,
    });
    assert.equal(done.isError, false, done.text);
    assert.match(done.text, /^state: TASK_STATE_COMPLETED$/m);
    const sent = pg.agent.requests.filter((r) => JSON.stringify(r.body ?? "").includes("audience"));
    assert.equal(sent.length, 1, "one message carried the data part");
    assert.match(JSON.stringify(sent[0].body), /"developers"/);

    // The question was answered: a second answer is refused and says why.
    const again = await s.call("delegate", { task_id: id, message: "", data: { x: 1 } });
    assert.equal(again.isError, true);
    assert.match(again.text, /waiting for input|accepted first/);
  } finally {
    await s.close();
    await pg.close();
  }
});
