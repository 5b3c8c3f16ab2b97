/**
 * ToolServer against the MCP SDK: a real SDK client drives it over the SDK's linked
 * in-memory transports, and what it says (protocol versions, capabilities, the tool listing)
 * is compared with what the SDK's own McpServer says for the same tools.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { SUPPORTED_PROTOCOL_VERSIONS, type Tool, ToolServer } from "../../lib/mcp/mod.ts";

const shape = {
  text: z.string().min(1).max(50).describe("What to echo"),
  times: z.number().int().transform((n) => Math.min(3, n)).default(1).meta({
    minimum: 1,
    maximum: 3,
    description: "How often",
  }),
  extra: z.record(z.string(), z.unknown()).optional(),
};

const echo: Tool = {
  name: "echo",
  title: "Echo",
  description: "Says it again",
  input: z.object(shape),
  annotations: { readOnlyHint: true },
  run: (args) =>
    Promise.resolve({
      content: [{ type: "text", text: String(args.text).repeat(Number(args.times)) }],
    }),
};

/** A connected SDK client; `sent` holds every message the server wrote. */
async function connect(
  server: { connect(t: InMemoryTransport): Promise<void> },
): Promise<{ client: Client; sent: JSONRPCMessage[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  await server.connect(serverSide);
  const client = new Client({ name: "tool-server-test", version: "0.0.0" });
  await client.connect(clientSide);
  return { client, sent };
}

Deno.test("ToolServer speaks the protocol versions of the MCP SDK it is tested against", () => {
  assert.deepEqual([...SUPPORTED_PROTOCOL_VERSIONS], SDK_VERSIONS);
  assert.equal(SUPPORTED_PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
});

Deno.test("ToolServer lists its tools and reports itself as the SDK's McpServer does", async () => {
  const ours = await connect(
    new ToolServer({ name: "demo", version: "1.2.3" }, { instructions: "Use echo", tools: [echo] }),
  );
  const sdk = new McpServer({ name: "demo", version: "1.2.3" }, { instructions: "Use echo" });
  sdk.registerTool(
    "echo",
    {
      title: echo.title,
      description: echo.description,
      inputSchema: shape,
      annotations: echo.annotations,
    },
    () => ({ content: [] }),
  );
  const theirs = await connect(sdk);
  try {
    assert.deepEqual(ours.client.getServerVersion(), theirs.client.getServerVersion());
    assert.deepEqual(ours.client.getServerCapabilities(), theirs.client.getServerCapabilities());
    assert.equal(ours.client.getInstructions(), theirs.client.getInstructions());
    // As a client reads them off the wire: members set to undefined are not sent.
    const wire = (value: unknown) => JSON.parse(JSON.stringify(value));
    assert.deepEqual(wire(await ours.client.listTools()), wire(await theirs.client.listTools()));
    assert.deepEqual(
      await ours.client.callTool({ name: "echo", arguments: { text: "ab", times: 9 } }),
      { content: [{ type: "text", text: "ababab" }] },
    );
    await ours.client.ping();
  } finally {
    await ours.client.close();
    await theirs.client.close();
  }
});

Deno.test("ToolServer answers an unknown protocol version with its newest, and unknown methods with -32601", async () => {
  const server = new ToolServer({ name: "demo", version: "1" }, { tools: [echo] });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answers: JSONRPCMessage[] = [];
  const { promise: two, resolve } = Promise.withResolvers<void>();
  clientSide.onmessage = (m) => {
    answers.push(m);
    if (answers.length === 2) resolve();
  };
  await server.connect(serverSide);
  await clientSide.start();
  await clientSide.send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "1999-01-01",
      capabilities: {},
      clientInfo: { name: "x", version: "1" },
    },
  });
  await clientSide.send({ jsonrpc: "2.0", id: 2, method: "resources/list" });
  await two;
  await clientSide.close();
  assert.deepEqual(answers, [
    {
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "demo", version: "1" },
      },
    },
    {
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32601, message: 'Method not found: "resources/list"' },
    },
  ]);
});

Deno.test("ToolServer aborts a call the client cancels and does not answer it", async () => {
  const { promise: started, resolve: start } = Promise.withResolvers<AbortSignal>();
  const { promise: aborted, resolve: abort } = Promise.withResolvers<void>();
  const wait: Tool = {
    name: "wait",
    title: "Wait",
    description: "Waits until canceled",
    input: z.object({}),
    run: (_args, { signal }) => {
      signal.addEventListener("abort", () => abort(), { once: true });
      start(signal);
      return new Promise(() => {});
    },
  };
  const { client, sent } = await connect(
    new ToolServer({ name: "demo", version: "1" }, { tools: [wait] }),
  );
  try {
    const controller = new AbortController();
    const call = client.callTool({ name: "wait", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await started;
    controller.abort("no longer needed");
    await assert.rejects(call);
    await aborted;
    await client.ping();
    // initialize, the ping: nothing was sent for the canceled call.
    assert.equal(sent.length, 2, JSON.stringify(sent));
  } finally {
    await client.close();
  }
});

Deno.test("ToolServer.close() aborts calls under way and returns only once they have finished", async () => {
  const { promise: started, resolve: start } = Promise.withResolvers<void>();
  let cleanedUp = false;
  const slow: Tool = {
    name: "slow",
    title: "Slow",
    description: "Cleans up for a while when aborted",
    input: z.object({}),
    run: async (_args, { signal }) => {
      start();
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      // What a delegation does when its caller leaves mid-start: finish starting it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      cleanedUp = true;
      return { content: [] };
    },
  };
  const server = new ToolServer({ name: "demo", version: "1" }, { tools: [slow] });
  const { client, sent } = await connect(server);
  const call = client.callTool({ name: "slow", arguments: {} }).catch((e) => e);
  await started;
  assert.equal(await server.close(), 0);
  assert.ok(cleanedUp, "close() returned while a call was still cleaning up");
  await call;
  // initialize only: the aborted call's answer went nowhere.
  assert.equal(sent.length, 1, JSON.stringify(sent));
  await client.close();
});

Deno.test("ToolServer.close(graceMs) stops waiting for a call that ignores the abort and counts it", async () => {
  const { promise: started, resolve: start } = Promise.withResolvers<void>();
  const { promise: release, resolve: letGo } = Promise.withResolvers<void>();
  let aborted = false;
  const stuck: Tool = {
    name: "stuck",
    title: "Stuck",
    description: "Ends only when the test lets it",
    input: z.object({}),
    run: async (_args, { signal }) => {
      signal.addEventListener("abort", () => (aborted = true));
      start();
      await release;
      return { content: [] };
    },
  };
  const server = new ToolServer({ name: "demo", version: "1" }, { tools: [stuck] });
  const { client } = await connect(server);
  const call = client.callTool({ name: "stuck", arguments: {} }).catch((e) => e);
  await started;
  assert.equal(await server.close(10), 1, "one call was still under way");
  assert.ok(aborted, "the call was aborted first");
  letGo();
  await call;
  await client.close();
});

Deno.test("ToolServer calls onListed once, after its first tools/list answer was sent; a throw there is only reported", async () => {
  const seen: string[] = [];
  const errors: string[] = [];
  let sentBefore = -1;
  let sentMessages: JSONRPCMessage[] = [];
  const server = new ToolServer({ name: "demo", version: "1" }, {
    tools: [echo],
    onListed: () => {
      sentBefore = sentMessages.length;
      seen.push("listed");
      throw new Error("not ready");
    },
  });
  server.onerror = (e) => errors.push(e.message);
  const { client, sent } = await connect(server);
  sentMessages = sent;
  try {
    assert.deepEqual(seen, [], "not at initialize");
    await client.listTools();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(seen, ["listed"]);
    assert.equal(sentBefore, 2, "after the listing was sent (initialize, tools/list)");
    assert.deepEqual(errors, ["not ready"]);
    await client.listTools();
    const echoed = await client.callTool({ name: "echo", arguments: { text: "a" } });
    assert.deepEqual(echoed.content, [{ type: "text", text: "a" }]);
    assert.deepEqual(seen, ["listed"], "once");
  } finally {
    await client.close();
  }
});
