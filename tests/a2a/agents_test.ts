import assert from "node:assert/strict";
import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import {
  FAILURE_TEXT,
  INPUT_QUESTION,
  startV03Agent,
  startV1Agent,
  type TestAgent,
  type TestAgentOptions,
} from "../support/a2a_agents.ts";

type Version = "1.0" | "0.3";

async function clientFor(agent: TestAgent, version: Version): Promise<Client> {
  const legacyCompat = { enabled: version === "0.3" };
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ legacyCompat })],
    cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
  }));
  return await factory.createFromUrl(agent.url);
}

function request(text: string, follow: { taskId?: string; contextId?: string } = {}) {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...follow },
  });
}

function start(version: Version, options: TestAgentOptions): Promise<TestAgent> {
  return version === "1.0" ? startV1Agent(options) : startV03Agent(options);
}

function asTask(result: unknown): Task {
  assert.ok(result && typeof result === "object" && "status" in result, "expected a task");
  return result as Task;
}

function texts(parts: { content?: { $case: string; value: unknown } }[] | undefined): string[] {
  return (parts ?? []).flatMap((p) => p.content?.$case === "text" ? [String(p.content.value)] : []);
}

for (const version of ["1.0", "0.3"] as const) {
  const start_ = (options: TestAgentOptions) => start(version, options);
  const fn = version === "1.0" ? "startV1Agent()" : "startV03Agent()";

  Deno.test(`${fn} complete echoes the text into an artifact`, async () => {
    const agent = await start_({ behaviour: "complete" });
    try {
      const client = await clientFor(agent, version);
      const task = asTask(await client.sendMessage(request("hello")));
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.deepEqual(texts(task.artifacts[0]?.parts), ["echo:hello"]);
      const again = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
      assert.equal(again.status?.state, TaskState.TASK_STATE_COMPLETED);
      const rpc = agent.requests.map((r) => r.rpcMethod).filter(Boolean);
      assert.deepEqual(
        rpc,
        version === "1.0" ? ["SendMessage", "GetTask"] : ["message/send", "tasks/get"],
      );
      assert.ok(
        agent.requests.some((r) => r.method === "GET" && r.path.endsWith("agent-card.json")),
      );
    } finally {
      await agent.close();
    }
  });

  Deno.test(`${fn} input asks, then completes with both texts`, async () => {
    const agent = await start_({ behaviour: "input" });
    try {
      const client = await clientFor(agent, version);
      const first = asTask(await client.sendMessage(request("draft notes")));
      assert.equal(first.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      assert.deepEqual(texts(first.status?.message?.parts), [INPUT_QUESTION]);
      const second = asTask(
        await client.sendMessage(
          request("developers", { taskId: first.id, contextId: first.contextId }),
        ),
      );
      assert.equal(second.id, first.id);
      assert.equal(second.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.deepEqual(texts(second.artifacts.at(-1)?.parts), ["echo:draft notes + developers"]);
    } finally {
      await agent.close();
    }
  });

  Deno.test(`${fn} fail ends FAILED with a status message`, async () => {
    const agent = await start_({ behaviour: "fail" });
    try {
      const client = await clientFor(agent, version);
      const task = asTask(await client.sendMessage(request("anything")));
      assert.equal(task.status?.state, TaskState.TASK_STATE_FAILED);
      assert.deepEqual(texts(task.status?.message?.parts), [FAILURE_TEXT]);
    } finally {
      await agent.close();
    }
  });

  Deno.test(`${fn} slow stays WORKING until canceled`, async () => {
    const agent = await start_({ behaviour: "slow", streaming: true });
    try {
      const client = await clientFor(agent, version);
      // Streaming returns as soon as the task exists, while it is still working.
      const stream = client.sendMessageStream(request("take your time"));
      let taskId = "";
      for await (const event of stream) {
        const p = event.payload;
        if (p?.$case === "task") taskId = p.value.id;
        if (p?.$case === "statusUpdate" && p.value.status?.state === TaskState.TASK_STATE_WORKING) {
          break;
        }
      }
      assert.ok(taskId);
      const working = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
      assert.equal(working.status?.state, TaskState.TASK_STATE_WORKING);
      const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      assert.deepEqual(agent.canceled, [taskId]);
    } finally {
      await agent.close();
    }
  });

  Deno.test(`${fn} message answers with a direct Message`, async () => {
    const agent = await start_({ behaviour: "message" });
    try {
      const client = await clientFor(agent, version);
      const result = await client.sendMessage(request("hi"));
      assert.ok(!("status" in result), "expected a message, not a task");
      assert.deepEqual(texts(result.parts), ["echo:hi"]);
    } finally {
      await agent.close();
    }
  });

  Deno.test(`${fn} streaming sends task, artifact and status events`, async () => {
    const agent = await start_({ behaviour: "complete", streaming: true });
    try {
      const client = await clientFor(agent, version);
      const kinds: string[] = [];
      let artifact: string[] = [];
      let last: TaskState | undefined;
      for await (const event of client.sendMessageStream(request("stream me"))) {
        const p = event.payload;
        if (!p) continue;
        kinds.push(p.$case);
        if (p.$case === "artifactUpdate") artifact = texts(p.value.artifact?.parts);
        if (p.$case === "statusUpdate") last = p.value.status?.state;
      }
      assert.equal(kinds[0], "task");
      assert.ok(kinds.includes("artifactUpdate"));
      assert.deepEqual(artifact, ["echo:stream me"]);
      assert.equal(last, TaskState.TASK_STATE_COMPLETED);
      const method = version === "1.0" ? "SendStreamingMessage" : "message/stream";
      assert.ok(agent.requests.some((r) => r.rpcMethod === method));
    } finally {
      await agent.close();
    }
  });

  Deno.test(`${fn} bearer scheme answers 401 without the token`, async () => {
    const agent = await start_({ securitySchemes: { type: "bearer", token: "s3cret" } });
    try {
      const client = await clientFor(agent, version);
      await assert.rejects(client.sendMessage(request("no token")), /401/);
      const task = asTask(
        await client.sendMessage(request("with token"), {
          serviceParameters: { Authorization: "Bearer s3cret" },
        }),
      );
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      const posts = agent.requests.filter((r) => r.method === "POST");
      assert.deepEqual(posts.map((r) => r.status), [401, 200]);
      assert.equal(posts[0].headers.authorization, undefined);
      assert.equal(posts[1].headers.authorization, "Bearer s3cret");
    } finally {
      await agent.close();
    }
  });

  Deno.test(`${fn} apiKey scheme checks the named header`, async () => {
    const agent = await start_({
      securitySchemes: { type: "apiKey", name: "X-Api-Key", token: "k1" },
    });
    try {
      const card = await (await fetch(agent.cardUrl)).json();
      assert.deepEqual(Object.keys(card.securitySchemes), ["apiKey"]);
      const client = await clientFor(agent, version);
      await assert.rejects(
        client.sendMessage(request("bad"), { serviceParameters: { "X-Api-Key": "wrong" } }),
        /401/,
      );
      const task = asTask(
        await client.sendMessage(request("good"), { serviceParameters: { "X-Api-Key": "k1" } }),
      );
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(agent.requests.at(-1)?.headers["x-api-key"], "k1");
    } finally {
      await agent.close();
    }
  });
}

Deno.test("startV1Agent() serves an altered card once an override is set", async () => {
  const agent = await startV1Agent({ name: "Before" });
  try {
    assert.equal((await (await fetch(agent.cardUrl)).json()).name, "Before");
    agent.setCardOverride((card) => ({ ...card, name: "After" }));
    assert.equal((await (await fetch(agent.cardUrl)).json()).name, "After");
    assert.equal(agent.card.name, "Before");
  } finally {
    await agent.close();
  }
});

Deno.test("startV03Agent() serves a v0.3 card with url and protocolVersion", async () => {
  const agent = await startV03Agent({ name: "Legacy" });
  try {
    const card = await (await fetch(agent.cardUrl)).json();
    assert.equal(card.protocolVersion, "0.3.0");
    assert.equal(card.url, agent.rpcUrl);
    assert.equal(card.supportedInterfaces, undefined);
  } finally {
    await agent.close();
  }
});
