/**
 * Cancelling an observal-agents call reaches everything under it. A real MCP SDK client
 * drives `observal delegate mcp` over stdio against a registry stand-in on 127.0.0.1 that
 * accepts each connection, reads the request and never answers: a call the client cancels
 * ends within a second, its registry connection closed (seen at the stand-in), and the
 * server goes on serving; stdin closed with a call in flight ends the server within a
 * second, cleanly. A `delegate` stopped that way leaves no task behind.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { cli } from "../support/cli.ts";
import { MAIN } from "../support/process.ts";

/** What the acceptance asks of a cancel and of a closed stdin. */
const WITHIN_MS = 1000;
/** How long the test waits on any one event before it fails instead of hanging. */
const GIVE_UP_MS = 30_000;

/** One connection to the stand-in, once its request has arrived. */
interface Held {
  /** Resolves with `performance.now()` when the connection closes. */
  closed: Promise<number>;
}

/** A registry that takes each request and never answers it. */
interface StandIn {
  url: string;
  /** The next connection whose request has arrived (its headers, at least). */
  nextRequest(): Promise<Held>;
  /** Connections not yet closed. */
  open(): number;
  close(): Promise<void>;
}

async function silentRegistry(): Promise<StandIn> {
  const sockets = new Set<Socket>();
  const arrived: Held[] = [];
  let wake: (() => void) | undefined;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const closed = new Promise<number>((resolve) =>
      socket.on("close", () => {
        sockets.delete(socket);
        resolve(performance.now());
      })
    );
    socket.on("error", () => {/* a reset is a close too */});
    let head = "";
    const onData = (chunk: Uint8Array) => {
      head += new TextDecoder().decode(chunk);
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      socket.resume(); // read and drop the rest; never answer
      arrived.push({ closed });
      wake?.();
    };
    socket.on("data", onData);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async nextRequest() {
      while (arrived.length === 0) {
        await within(new Promise<void>((resolve) => (wake = resolve)), "a registry request");
      }
      return arrived.shift()!;
    },
    open: () => sockets.size,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** `promise`, or a failure naming `what` once GIVE_UP_MS pass: a guard, not a timing assert. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no ${what} within ${GIVE_UP_MS} ms`)),
          GIVE_UP_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

interface Session {
  client: Client;
  transport: StdioClientTransport;
  /** Errors the client reported, such as a response to a request it had cancelled. */
  errors: Error[];
  stderr(): string;
}

interface Home {
  env: Record<string, string>;
  path: string;
}

function tempHome(registryUrl: string): Home {
  const path = mkdtempSync(join(tmpdir(), "observal-mcp-cancel-"));
  return {
    path,
    env: {
      HOME: path,
      OBSERVAL_HOME: path,
      OBSERVAL_SERVER_URL: registryUrl,
      OBSERVAL_API_KEY: "test-key",
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      NO_COLOR: "1",
    },
  };
}

async function connect(home: Home): Promise<Session> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", MAIN, "delegate", "mcp", "--harness", "codex"],
    env: home.env,
    cwd: home.path,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  const client = new Client({ name: "observal-test", version: "0.0.0" });
  const errors: Error[] = [];
  client.onerror = (err) => errors.push(err);
  await client.connect(transport);
  return { client, transport, errors, stderr: () => stderr };
}

/** The calls under test: each reaches the registry before it can answer. */
const CALLS = {
  find_agents: { task: "review the parser for off-by-one errors" },
  delegate: {
    agent: "urn:air:acme:agent:0b9f4c1e-5d3a-4f6b-8a2e-9c7d1e0f3a4b",
    message: "Review lib/parser.ts for off-by-one errors and report each with a fix.",
  },
} as const;

/** How many tasks the home's store holds, read once the server has exited. */
async function taskCount(home: Home): Promise<number> {
  const r = await cli(["delegate", "list", "--json"], { env: home.env, cwd: home.path });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { total: number }).total;
}

for (const [tool, args] of Object.entries(CALLS)) {
  Deno.test(`a ${tool} call the client cancels ends within 1 s, its registry connection closed`, async () => {
    const registry = await silentRegistry();
    const home = tempHome(registry.url);
    const s = await connect(home);
    try {
      const cancel = new AbortController();
      const call = s.client.callTool({ name: tool, arguments: args }, undefined, {
        signal: cancel.signal,
      });
      const held = await registry.nextRequest();
      const cancelledAt = performance.now();
      cancel.abort();
      await assert.rejects(call);
      const closedAt = await within(held.closed, "close of the registry connection");
      const ms = closedAt - cancelledAt;
      console.log(`${tool} cancelled: registry connection closed after ${ms.toFixed(0)} ms`);
      assert.ok(ms < WITHIN_MS, `the registry connection closed ${ms.toFixed(0)} ms after`);
      // The server still serves, and sent nothing for the cancelled call.
      await s.client.ping();
      assert.deepEqual(s.errors.map((e) => e.message), []);
      assert.equal(registry.open(), 0);
    } finally {
      await s.client.close();
      await registry.close();
    }
    try {
      assert.match(s.stderr(), /client disconnected; stopped/);
      assert.doesNotMatch(s.stderr(), /failed/, "a cancellation is not logged as a failure");
      assert.equal(await taskCount(home), 0, "no task was created");
    } finally {
      rmSync(home.path, { recursive: true, force: true });
    }
  });

  Deno.test(`stdin closed during a ${tool} call: the server exits within 1 s`, async () => {
    const registry = await silentRegistry();
    const home = tempHome(registry.url);
    const s = await connect(home);
    try {
      const call = s.client.callTool({ name: tool, arguments: args });
      call.catch(() => {/* the connection closes under it */});
      const held = await registry.nextRequest();
      const closingAt = performance.now();
      // Ends stdin and resolves once the process has exited (SIGTERM only after 2 s).
      await within(s.transport.close(), "exit of the server");
      const ms = performance.now() - closingAt;
      console.log(`${tool} in flight, stdin closed: the server exited after ${ms.toFixed(0)} ms`);
      assert.ok(ms < WITHIN_MS, `the server exited ${ms.toFixed(0)} ms after stdin closed`);
      await within(held.closed, "close of the registry connection");
      assert.match(s.stderr(), /client disconnected; stopped/, "it ended on its own");
    } finally {
      await s.client.close();
      await registry.close();
    }
    try {
      assert.equal(await taskCount(home), 0, "no task was created");
    } finally {
      rmSync(home.path, { recursive: true, force: true });
    }
  });
}
