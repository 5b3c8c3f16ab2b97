/**
 * The broker a sandboxed child delegates through: the child's `observal delegate mcp`
 * relays to a socket in its task folder, and a server started outside answers with the
 * child's delegation variables. Real sockets, real processes, a real MCP client.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MAX_AGENTS_SERVERS, openAgentsBroker } from "../../lib/runner/agents_broker.ts";
import { relayStdio } from "../../lib/mcp/agents_relay.ts";
import { agentsSocketPath, WORKSPACE_PREFIX } from "../../lib/workspace/roots/mod.ts";
import { MAIN } from "../support/process.ts";

const TASK = "0b4f0c4e-8a9e-4d52-9f33-3c1d3e0c7a11";

/** An OBSERVAL_HOME with one workspace root (and its copy), and a task folder. */
function layout() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "observal-broker-")));
  const home = join(base, "h");
  const root = join(home, "delegations", "ws", `${WORKSPACE_PREFIX}a1`);
  const copy = join(root, "copy");
  // Outside the home: that one holds no task store until a server makes one.
  const taskDir = join(base, TASK);
  for (const d of [copy, taskDir]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const logged: string[] = [];
  return {
    base,
    home,
    root,
    copy,
    taskDir,
    socket: agentsSocketPath(taskDir)!,
    log: { write: (t: string) => void logged.push(t) },
    logged,
    done: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** Connects and resolves with what the other end sent back before it closed. */
function exchange(path: string, send: string): { socket: Socket; answer: Promise<string> } {
  const socket = connect(path);
  // A refused connection is closed under the write: that ends it like any close.
  socket.on("error", () => socket.destroy());
  let got = "";
  socket.on("data", (d) => (got += d));
  const answer = new Promise<string>((resolve) => socket.on("close", () => resolve(got)));
  socket.on("connect", () => socket.write(send));
  return { socket, answer };
}

Deno.test("the child's server relays to the broker, whose server has the child's variables, not the relay's", async () => {
  const l = layout();
  const base = {
    HOME: l.home,
    OBSERVAL_HOME: l.home,
    PATH: Deno.env.get("PATH") ?? "",
    NO_COLOR: "1",
  };
  const broker = await openAgentsBroker({
    socket: l.socket,
    cwd: l.home,
    // The child's place in the chain: one level from the limit.
    env: { ...base, OBSERVAL_DELEGATION_DEPTH: "2", OBSERVAL_DELEGATION_MAX_DEPTH: "2" },
    command: [Deno.execPath(), "run", "-A", MAIN, "delegate", "mcp", "--direct"],
    serverLog: join(l.taskDir, "agents.log"),
    log: l.log,
  });
  const client = new Client({ name: "observal-test", version: "0.0.0" });
  try {
    // Started in the copy, as the agent's harness starts it.
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "-A", MAIN, "delegate", "mcp", "--harness", "codex"],
        env: { ...base, OBSERVAL_AGENTS_SOCKET: l.socket },
        cwd: l.copy,
        stderr: "pipe",
      }),
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      "cancel_task",
      "delegate",
      "find_agents",
      "get_task",
    ]);
    // The relay's own environment says depth 0; the answer comes from the broker's server.
    const r = await client.callTool({
      name: "delegate",
      arguments: { agent: "urn:air:example:agent", message: "do it" },
    });
    const text = (r.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n");
    assert.equal(r.isError, true, text);
    assert.match(text, /depth limit/i);
    // The server wrote its store where the broker's environment said, not inside the copy.
    assert.ok(Deno.statSync(join(l.home, "delegations", "tasks.db")).isFile);
    // Closing the broker leaves the connected server serving.
    broker.close();
    assert.throws(() => Deno.lstatSync(l.socket));
    assert.equal((await client.listTools()).tools.length, 4);
  } finally {
    await client.close();
    broker.close();
    l.done();
  }
});

Deno.test("the broker serves a few connections at a time and refuses the rest", async () => {
  const l = layout();
  // `cat` stands in for a server: it echoes the connection it was given.
  const broker = await openAgentsBroker({
    socket: l.socket,
    cwd: l.copy,
    env: { PATH: Deno.env.get("PATH") ?? "" },
    command: ["cat"],
    serverLog: join(l.taskDir, "agents.log"),
    log: l.log,
  });
  const open: Socket[] = [];
  try {
    const echoed: Promise<string>[] = [];
    for (let i = 0; i < MAX_AGENTS_SERVERS; i++) {
      const { socket } = exchange(l.socket, `hello ${i}\n`);
      open.push(socket);
      echoed.push(
        new Promise((resolve) => socket.once("data", (d) => resolve(String(d)))),
      );
    }
    assert.deepEqual(
      await Promise.all(echoed),
      Array.from({ length: MAX_AGENTS_SERVERS }, (_, i) => `hello ${i}\n`),
    );
    const refused = exchange(l.socket, "one too many\n");
    assert.equal(await refused.answer, "");
    assert.match(l.logged.join(""), /refused a connection/);
    // A server that ends frees its place.
    open.shift()!.end();
    for (let tries = 0;; tries++) {
      const again = exchange(l.socket, "again\n");
      const got = await Promise.race([
        new Promise<string>((r) => again.socket.once("data", (d) => r(String(d)))),
        again.answer,
      ]);
      if (got === "again\n") {
        open.push(again.socket);
        break;
      }
      assert.ok(tries < 50, "no place came free");
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    for (const s of open) s.end();
    broker.close();
    l.done();
  }
});

Deno.test("inside a delegated workspace, a server that is named no broker refuses to serve", async () => {
  const l = layout();
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "delegate", "mcp"],
      env: { HOME: l.home, OBSERVAL_HOME: l.home, PATH: Deno.env.get("PATH") ?? "" },
      clearEnv: true,
      cwd: l.copy,
      stdin: "null",
    }).output();
    assert.equal(out.code, 1);
    assert.equal(out.stdout.length, 0);
    assert.match(
      new TextDecoder().decode(out.stderr),
      /inside the delegated workspace .* names no broker/,
    );
    // Nothing was opened in the home it would have served from.
    assert.throws(() => Deno.lstatSync(join(l.home, "delegations", "tasks.db")));
  } finally {
    l.done();
  }
});

Deno.test("a relay that finds no broker says so, and gives up", async () => {
  const l = layout();
  try {
    const said: string[] = [];
    const started = Date.now();
    const ok = await relayStdio(l.socket, {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: { write: (t) => void said.push(t) },
      connectMs: 300,
    });
    assert.equal(ok, false);
    assert.ok(Date.now() - started >= 300, "it waits for a worker that takes the run over");
    assert.match(said.join(""), /cannot reach the delegation broker at .*agents\.sock/);
  } finally {
    l.done();
  }
});

Deno.test("a relay whose harness closes stdin stops waiting for the broker, quietly", async () => {
  const l = layout();
  try {
    const said: string[] = [];
    const stdin = new PassThrough();
    setTimeout(() => stdin.end(), 50);
    // A window far longer than the test: only the end of stdin can end the wait, and the
    // "cannot reach" line is said only when the window is over.
    const ok = await relayStdio(l.socket, {
      stdin,
      stdout: new PassThrough(),
      stderr: { write: (t) => void said.push(t) },
      connectMs: 600_000,
    });
    assert.equal(ok, false);
    assert.deepEqual(said, []);
  } finally {
    l.done();
  }
});

Deno.test("what a harness sends before the broker listens reaches the broker", async () => {
  const l = layout();
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let answered = "";
  stdout.on("data", (d) => (answered += d));
  // The harness's first request, sent while nobody listens yet.
  stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize"}\n');
  const relayed = relayStdio(l.socket, { stdin, stdout, stderr: l.log, connectMs: 30_000 });
  await new Promise((r) => setTimeout(r, 300));
  let received = "";
  const server = createServer((socket) => {
    socket.on("data", (d) => {
      received += d;
      if (received.endsWith("\n")) socket.end("answer\n");
    });
  });
  try {
    await new Promise<void>((resolve) => server.listen(l.socket, resolve));
    assert.equal(await relayed, true);
    assert.equal(received, '{"jsonrpc":"2.0","id":1,"method":"initialize"}\n');
    assert.equal(answered, "answer\n");
  } finally {
    stdin.end();
    await new Promise((r) => server.close(r));
    l.done();
  }
});
