/**
 * createAgentsServer() opening its delegation service on demand: a real SDK client over the
 * SDK's linked in-memory transports, a real service on a temp home with an approved agent.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Task } from "../../lib/a2a/mod.ts";
import { createContext, isoSeconds, ObservalError, systemClock } from "../../lib/core/mod.ts";
import { DelegationService, type WaitOptions } from "../../lib/delegation/mod.ts";
import { type AgentsServerWork, createAgentsServer } from "../../lib/mcp/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { playground } from "../support/delegation.ts";

async function connectClient(open: () => Promise<AgentsServerWork>): Promise<Client> {
  const server = createAgentsServer({
    open,
    clock: systemClock,
    version: "0.0.0",
    stderr: { write: () => {} },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agents-server-test", version: "0.0.0" });
  await client.connect(clientSide);
  return client;
}

function text(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n");
}

Deno.test("createAgentsServer() with open lists its tools without opening the service, then opens it once", async () => {
  const pg = await playground({ behaviour: "complete" });
  const opened: Array<ReturnType<typeof pg.service>> = [];
  const client = await connectClient(() => {
    const o = pg.service();
    opened.push(o);
    return Promise.resolve({ service: o.service, caller: o.service.caller() });
  });
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 4);
    assert.equal(opened.length, 0, "the handshake opened nothing");

    const found = await client.callTool({ name: "find_agents", arguments: { task: "echo" } });
    assert.equal(found.isError, undefined, text(found));
    assert.ok(text(found).includes(pg.identifier), text(found));
    const missing = await client.callTool({
      name: "get_task",
      arguments: { task_id: crypto.randomUUID() },
    });
    assert.equal(missing.isError, true);
    assert.equal(opened.length, 1, "opened by the first call, and only once");
  } finally {
    await client.close();
    for (const o of opened) o.close();
    await pg.close();
  }
});

Deno.test("createAgentsServer() tries a failed open again on the next call", async () => {
  const pg = await playground({ behaviour: "complete" });
  const opened: Array<ReturnType<typeof pg.service>> = [];
  let attempts = 0;
  const client = await connectClient(() => {
    if (++attempts === 1) {
      return Promise.reject(
        new ObservalError("UNAVAILABLE", "Cannot open the task store", {
          remediation: "Free some disk space",
        }),
      );
    }
    const o = pg.service();
    opened.push(o);
    return Promise.resolve({ service: o.service, caller: o.service.caller() });
  });
  try {
    const failed = await client.callTool({ name: "find_agents", arguments: { task: "echo" } });
    assert.equal(failed.isError, true);
    assert.match(text(failed), /Cannot open the task store\.\nFree some disk space\./);
    const found = await client.callTool({ name: "find_agents", arguments: { task: "echo" } });
    assert.ok(text(found).includes(pg.identifier), text(found));
    assert.equal(attempts, 2);
  } finally {
    await client.close();
    for (const o of opened) o.close();
    await pg.close();
  }
});

Deno.test("createAgentsServer() prepares for the first call once its tools are listed, and only once", async () => {
  const pg = await playground({ behaviour: "complete" });
  const events: string[] = [];
  let fail = true;
  let opened: ReturnType<typeof pg.service> | undefined;
  const server = createAgentsServer({
    open: () => {
      events.push("open");
      opened = pg.service();
      return Promise.resolve({ service: opened.service, caller: opened.service.caller() });
    },
    // It fails here: a failed preparation must change nothing for the calls.
    prepare: () => {
      events.push("prepare");
      return fail ? Promise.reject(new Error("no code here")) : Promise.resolve();
    },
    clock: systemClock,
    version: "0.0.0",
    stderr: { write: (t) => void events.push(`stderr: ${t}`) },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agents-server-test", version: "0.0.0" });
  try {
    await client.connect(clientSide);
    assert.deepEqual(events, [], "initialize alone prepares nothing");
    await client.listTools();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(events, ["prepare"], "prepared after the listing, opening nothing");
    fail = false;
    await client.listTools();
    const found = await client.callTool({ name: "find_agents", arguments: { task: "echo" } });
    assert.ok(text(found).includes(pg.identifier), text(found));
    assert.deepEqual(events, ["prepare", "open"]);
  } finally {
    await client.close();
    opened?.close();
    await pg.close();
  }
});

/** A service that records each wait: its options, and the promise of its end. */
class WatchedService extends DelegationService {
  readonly waits: Array<{ options: WaitOptions; ended: Promise<Task> }> = [];
  readonly #started = Promise.withResolvers<void>();
  /** Resolves once the first wait has begun. */
  readonly started = this.#started.promise;

  override wait(id: string, seconds: number, options: WaitOptions = {}): Promise<Task> {
    const ended = super.wait(id, seconds, options);
    this.waits.push({ options, ended });
    this.#started.resolve();
    return ended;
  }
}

Deno.test("get_task's wait gets the call's signal: a cancel ends it, the task left as it is", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-agents-cancel-"));
  const ctx = createContext({ env: { HOME: home, OBSERVAL_HOME: home }, cwd: home });
  const store = openTaskStore({ home, clock: ctx.clock });
  const service = new WatchedService({
    ctx,
    store,
    registry: () => {
      throw new Error("no registry here");
    },
    launch: () => 0,
  });
  const now = isoSeconds(new Date());
  const task = store.insert({
    id: crypto.randomUUID(),
    contextId: crypto.randomUUID(),
    // Just created: its worker is within the start grace, so the wait waits.
    status: { state: "TASK_STATE_SUBMITTED", timestamp: now },
    history: [],
    metadata: {
      observal: {
        target: "urn:air:acme:agent:x",
        kind: "a2a",
        depth: 0,
        chain: [],
        cwd: home,
        createdAt: now,
      },
    },
  });
  const client = await connectClient(() =>
    Promise.resolve({ service, caller: { depth: 0, maxDepth: 2, chain: [] } })
  );
  try {
    const cancel = new AbortController();
    const call = client.callTool(
      { name: "get_task", arguments: { task_id: task.id, wait_seconds: 600 } },
      undefined,
      { signal: cancel.signal },
    );
    await service.started;
    cancel.abort();
    await assert.rejects(call);
    const [wait] = service.waits;
    assert.equal(wait.options.signal?.aborted, true, "the wait was given the call's signal");
    assert.equal((await wait.ended).status.state, "TASK_STATE_SUBMITTED");
  } finally {
    await client.close();
    store.close();
    rmSync(home, { recursive: true, force: true });
  }
});

Deno.test("find_agents leaves out the agents the cycle guard would refuse the caller", async () => {
  const pg = await playground({ behaviour: "complete" });
  const o = pg.service();
  const free = await connectClient(() =>
    Promise.resolve({ service: o.service, caller: { depth: 0, maxDepth: 2, chain: [] } })
  );
  // The agent is already working on this task higher up the chain.
  const below = await connectClient(() =>
    Promise.resolve({
      service: o.service,
      caller: { depth: 1, maxDepth: 3, chain: [pg.identifier.toUpperCase()] },
    })
  );
  try {
    const listed = await free.callTool({ name: "find_agents", arguments: { task: "echo" } });
    assert.ok(text(listed).includes(pg.identifier), text(listed));
    const left = await below.callTool({ name: "find_agents", arguments: { task: "echo" } });
    assert.equal(left.isError, undefined, text(left));
    assert.ok(!text(left).includes(pg.identifier), text(left));
    // And it is refused all the same, were it named.
    const refused = await below.callTool({
      name: "delegate",
      arguments: { agent: pg.identifier, message: "again" },
    });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /higher up the chain/);
  } finally {
    await free.close();
    await below.close();
    o.close();
    await pg.close();
  }
});
