import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { SendMessageRequest } from "@a2a-js/sdk";
import {
  callableInterface,
  isFinal,
  isInterrupted,
  parseAgentCard,
  partsText,
  RemoteRpcError,
  type RemoteSnapshot,
  RPC_TASK_NOT_FOUND,
} from "../../../lib/a2a/mod.ts";
import { createRemoteClient, type RemoteClient } from "../../../lib/a2a/client/mod.ts";
import { type Env, ObservalError } from "../../../lib/core/mod.ts";
import {
  FAILURE_TEXT,
  INPUT_QUESTION,
  startV03Agent,
  startV1Agent,
  type TestAgent,
  type TestAgentOptions,
} from "../../support/a2a_agents.ts";

/** Each protocol generation, with its test agent and JSON-RPC method names. */
const VERSIONS = [
  {
    label: "v1.0",
    version: "1.0",
    start: startV1Agent,
    methods: { send: "SendMessage", stream: "SendStreamingMessage", get: "GetTask" },
  },
  {
    label: "v0.3",
    version: "0.3",
    start: startV03Agent,
    methods: { send: "message/send", stream: "message/stream", get: "tasks/get" },
  },
] as const;

function clientFor(agent: TestAgent, env: Env = {}): RemoteClient {
  const card = parseAgentCard(agent.card);
  const iface = callableInterface(card);
  assert.ok(iface);
  return createRemoteClient({ iface, card, env, allowPrivateHosts: ["127.0.0.1"] });
}

/** Follows a task with get() until it is final (the agents settle within milliseconds). */
async function settle(client: RemoteClient, snap: RemoteSnapshot): Promise<RemoteSnapshot> {
  for (let i = 0; i < 200 && !isFinal(snap.state); i++) {
    assert.ok(snap.taskId, "a task to follow");
    await sleep(10);
    snap = await client.get(snap.taskId);
  }
  return snap;
}

async function withAgent(
  start: (options?: TestAgentOptions) => Promise<TestAgent>,
  options: TestAgentOptions,
  fn: (agent: TestAgent) => Promise<void>,
): Promise<void> {
  const agent = await start(options);
  try {
    await fn(agent);
  } finally {
    await agent.close();
  }
}

function text(snap: RemoteSnapshot): string {
  return (snap.artifacts ?? []).map((a) => partsText(a.parts)).join("\n");
}

function rpcMethods(agent: TestAgent): string[] {
  return agent.requests.flatMap((r) => r.rpcMethod ? [r.rpcMethod] : []);
}

for (const v of VERSIONS) {
  Deno.test(`RemoteClient.send() completes a task with its artifacts (${v.label})`, async () => {
    await withAgent(v.start, {}, async (agent) => {
      const client = clientFor(agent);
      assert.equal(client.version, v.version);
      assert.equal(client.streaming, false);
      const first = await client.send({ text: "hello" });
      assert.ok(first.taskId);
      assert.ok(first.contextId);
      const done = await settle(client, first);
      assert.equal(done.state, "TASK_STATE_COMPLETED");
      assert.equal(done.taskId, first.taskId);
      assert.equal(done.direct, false);
      assert.equal(text(done), "echo:hello");
      assert.equal(rpcMethods(agent)[0], v.methods.send);
      const sent = agent.requests.find((r) => r.rpcMethod === v.methods.send);
      const headers = sent?.headers ?? {};
      assert.equal(headers["a2a-version"], v.version === "1.0" ? "1.0" : undefined);
      assert.equal(headers["content-type"], "application/json");
      assert.equal(headers.authorization, undefined);
    });
  });

  Deno.test(`RemoteClient.send() resumes an input-required task (${v.label})`, async () => {
    await withAgent(v.start, { behaviour: "input" }, async (agent) => {
      const client = clientFor(agent);
      const asked = await settle(client, await client.send({ text: "draft notes" }));
      assert.equal(asked.state, "TASK_STATE_INPUT_REQUIRED");
      assert.equal(asked.message?.role, "ROLE_AGENT");
      assert.equal(partsText(asked.message?.parts ?? []), INPUT_QUESTION);
      const resumed = await client.send({
        text: "engineers",
        taskId: asked.taskId,
        contextId: asked.contextId,
      });
      assert.ok(!isInterrupted(resumed.state), "the reply's own answer is not final");
      const done = await settle(client, resumed);
      assert.equal(done.state, "TASK_STATE_COMPLETED");
      assert.equal(done.taskId, asked.taskId);
      assert.equal(text(done), "echo:draft notes + engineers");
      const second = agent.requests.filter((r) => r.rpcMethod === v.methods.send)[1];
      const message = (second?.body as { params: { message: Record<string, unknown> } })
        .params.message;
      assert.equal(message.taskId, asked.taskId);
      assert.equal(message.contextId, asked.contextId);
    });
  });

  Deno.test(`RemoteClient.send() reports a failed task (${v.label})`, async () => {
    await withAgent(v.start, { behaviour: "fail" }, async (agent) => {
      const client = clientFor(agent);
      const done = await settle(client, await client.send({ text: "break" }));
      assert.equal(done.state, "TASK_STATE_FAILED");
      assert.equal(partsText(done.message?.parts ?? []), FAILURE_TEXT);
    });
  });

  Deno.test(`RemoteClient.cancel() cancels a slow task (${v.label})`, async () => {
    await withAgent(v.start, { behaviour: "slow" }, async (agent) => {
      const client = clientFor(agent);
      const started = await client.send({ text: "take your time" });
      assert.ok(started.taskId);
      assert.ok(!isFinal(started.state), started.state);
      const canceled = await client.cancel(started.taskId);
      assert.equal(canceled.state, "TASK_STATE_CANCELED");
      assert.deepEqual(agent.canceled, [started.taskId]);
      assert.equal((await client.get(started.taskId)).state, "TASK_STATE_CANCELED");
    });
  });

  Deno.test(`RemoteClient.send() turns a direct message into a result (${v.label})`, async () => {
    await withAgent(v.start, { behaviour: "message" }, async (agent) => {
      const snap = await clientFor(agent).send({ text: "hi" });
      assert.equal(snap.state, "TASK_STATE_COMPLETED");
      assert.equal(snap.direct, true);
      assert.deepEqual(snap.artifacts?.map((a) => [a.artifactId, a.name]), [["result", "result"]]);
      assert.equal(text(snap), "echo:hi");
    });
  });

  Deno.test(`RemoteClient.stream() yields snapshots up to completion (${v.label})`, async () => {
    await withAgent(v.start, { streaming: true }, async (agent) => {
      const client = clientFor(agent);
      assert.equal(client.streaming, true);
      const seen: RemoteSnapshot[] = [];
      for await (const snap of client.stream({ text: "streamed" })) seen.push(snap);
      assert.ok(seen.length >= 2, `events: ${seen.length}`);
      const last = seen.at(-1);
      assert.equal(last?.state, "TASK_STATE_COMPLETED");
      assert.equal(last && text(last), "echo:streamed");
      assert.equal(last?.taskId, seen[0].taskId);
      assert.deepEqual(rpcMethods(agent), [v.methods.stream]);
      const accept = agent.requests.find((r) => r.rpcMethod === v.methods.stream)?.headers.accept;
      assert.equal(accept, "text/event-stream");
    });
  });

  Deno.test(`RemoteClient.stream() stops when the caller stops reading (${v.label})`, async () => {
    await withAgent(v.start, { streaming: true, behaviour: "slow" }, async (agent) => {
      const client = clientFor(agent);
      let first: RemoteSnapshot | undefined;
      for await (const snap of client.stream({ text: "long" })) {
        first = snap;
        break;
      }
      assert.ok(first?.taskId);
      assert.equal((await client.cancel(first.taskId)).state, "TASK_STATE_CANCELED");
    });
  });

  Deno.test(`RemoteClient sends a bearer token from the host's variable (${v.label})`, async () => {
    const token = "s3cret-bearer";
    await withAgent(v.start, { securitySchemes: { type: "bearer", token } }, async (agent) => {
      const client = clientFor(agent, { OBSERVAL_A2A_TOKEN_127_0_0_1: token });
      const done = await settle(client, await client.send({ text: "auth" }));
      assert.equal(done.state, "TASK_STATE_COMPLETED");
      const calls = agent.requests.filter((r) => r.rpcMethod);
      assert.ok(calls.length >= 1);
      for (const call of calls) assert.equal(call.headers.authorization, `Bearer ${token}`);
    });
  });

  Deno.test(`RemoteClient sends the token in an API-key header (${v.label})`, async () => {
    const scheme = { type: "apiKey", name: "X-Echo-Key", token: "k3y" } as const;
    await withAgent(v.start, { securitySchemes: scheme }, async (agent) => {
      const client = clientFor(agent, { OBSERVAL_A2A_TOKEN_127_0_0_1: "k3y" });
      const done = await settle(client, await client.send({ text: "key" }));
      assert.equal(done.state, "TASK_STATE_COMPLETED");
      const call = agent.requests.find((r) => r.rpcMethod === v.methods.send);
      assert.equal(call?.headers["x-echo-key"], "k3y");
      assert.equal(call?.headers.authorization, undefined);
    });
  });

  Deno.test(`RemoteClient maps a 401 to the variable to set (${v.label})`, async () => {
    const security = { type: "bearer", token: "right" } as const;
    await withAgent(v.start, { securitySchemes: security }, async (agent) => {
      await assert.rejects(clientFor(agent).send({ text: "no token" }), (err: unknown) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "UNAUTHENTICATED");
        assert.match(err.message, /HTTP 401/);
        assert.match(err.message, /OBSERVAL_A2A_TOKEN_127_0_0_1 is not set/);
        assert.match(err.remediation ?? "", /Set OBSERVAL_A2A_TOKEN_127_0_0_1/);
        return true;
      });
      const wrong = clientFor(agent, { OBSERVAL_A2A_TOKEN_127_0_0_1: "wrong" });
      await assert.rejects(wrong.send({ text: "bad token" }), (err: unknown) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "UNAUTHENTICATED");
        assert.match(err.message, /refused the token from OBSERVAL_A2A_TOKEN_127_0_0_1/);
        return true;
      });
    });
  });

  Deno.test(`RemoteClient.get() surfaces task-not-found as -32001 (${v.label})`, async () => {
    await withAgent(v.start, {}, async (agent) => {
      await assert.rejects(clientFor(agent).get("no-such-task"), (err: unknown) => {
        assert.ok(err instanceof RemoteRpcError);
        assert.equal(err.code, "NETWORK");
        assert.equal(err.rpcCode, RPC_TASK_NOT_FOUND);
        assert.match(err.message, /returned an error \(-32001\)/);
        assert.equal(err.resource, agent.rpcUrl);
        return true;
      });
      assert.deepEqual(rpcMethods(agent), [v.methods.get]);
    });
  });
}

Deno.test("RemoteClient v1.0 requests parse as @a2a-js/sdk SendMessageRequest", async () => {
  await withAgent(startV1Agent, {}, async (agent) => {
    const client = clientFor(agent);
    await settle(client, await client.send({ text: "shape" }));
    const body = agent.requests.find((r) => r.rpcMethod === "SendMessage")?.body as {
      id: unknown;
      params: Record<string, unknown>;
    };
    // The SDK's ProtoJSON round trip drops nothing we send, so every field is one it knows.
    assert.deepEqual(
      SendMessageRequest.toJSON(SendMessageRequest.fromJSON(body.params)),
      body.params,
    );
    assert.deepEqual(body.params.configuration, { returnImmediately: true });
    assert.equal(typeof body.id, "string");
  });
});

Deno.test("RemoteClient v0.3 requests carry kind on messages and parts", async () => {
  await withAgent(startV03Agent, {}, async (agent) => {
    const client = clientFor(agent);
    await settle(client, await client.send({ text: "shape" }));
    const body = agent.requests.find((r) => r.rpcMethod === "message/send")?.body as {
      params: { message: Record<string, unknown>; configuration: unknown };
    };
    assert.equal(body.params.message.kind, "message");
    assert.equal(body.params.message.role, "user");
    assert.deepEqual(body.params.message.parts, [{ kind: "text", text: "shape" }]);
    assert.deepEqual(body.params.configuration, { blocking: false });
  });
});

/** Cards served by the SDKs' own card handlers, each demanding one exact header. */
const SDK_CARDS = [
  {
    name: "an @a2a-js/sdk 1.3.0 card that requires bearer (an API key declared first)",
    start: startV1Agent,
    security: { type: "bearer", token: "b-1", decoy: true },
    header: ["authorization", "Bearer b-1"],
    absent: ["x-api-key"],
  },
  {
    name: "an @a2a-js/sdk 0.3.14 card that requires bearer (an API key declared first)",
    start: startV03Agent,
    security: { type: "bearer", token: "b-2", decoy: true },
    header: ["authorization", "Bearer b-2"],
    absent: ["x-api-key"],
  },
  {
    name: "an @a2a-js/sdk 1.3.0 card with its $case form of an API-key scheme",
    start: startV1Agent,
    security: { type: "apiKey", name: "X-Echo-Key", token: "k-3" },
    header: ["x-echo-key", "k-3"],
    absent: ["authorization"],
  },
  {
    name: "an @a2a-js/sdk 0.3.14 card that requires an API key (bearer declared first)",
    start: startV03Agent,
    security: { type: "apiKey", name: "X-Echo-Key", token: "k-4", decoy: true },
    header: ["x-echo-key", "k-4"],
    absent: ["authorization"],
  },
] as const;

for (const c of SDK_CARDS) {
  Deno.test(`RemoteClient sends exactly the header of ${c.name}`, async () => {
    await withAgent(c.start, { securitySchemes: c.security, sdkCard: true }, async (agent) => {
      if (c.start === startV1Agent) {
        // The real SDK writes its oneofs as {scheme: {$case, value}}.
        assert.match(JSON.stringify(agent.card.securitySchemes), /"\$case"/);
      }
      const served = await (await fetch(agent.cardUrl)).json();
      assert.deepEqual(served, agent.card, "the card is the one the SDK's handler serves");
      const client = clientFor(agent, { OBSERVAL_A2A_TOKEN_127_0_0_1: c.security.token });
      const done = await settle(client, await client.send({ text: "auth" }));
      assert.equal(done.state, "TASK_STATE_COMPLETED");
      const calls = agent.requests.filter((r) => r.rpcMethod);
      assert.ok(calls.length >= 2);
      for (const call of calls) {
        assert.equal(call.status, 200);
        assert.equal(call.headers[c.header[0]], c.header[1]);
        for (const name of c.absent) assert.equal(call.headers[name], undefined, name);
      }
    });
  });
}

Deno.test("RemoteClient maps a 401 from a card that declares no scheme without suggesting a token", async () => {
  await withAgent(startV1Agent, {}, async (agent) => {
    // The card declares nothing, yet the endpoint demands a credential.
    const demanding = await startV1Agent({ securitySchemes: { type: "bearer", token: "t" } });
    try {
      const card = parseAgentCard(agent.card);
      const iface = { ...callableInterface(card)!, url: demanding.rpcUrl };
      const client = createRemoteClient({
        iface,
        card,
        env: { OBSERVAL_A2A_TOKEN_127_0_0_1: "t" },
        allowPrivateHosts: ["127.0.0.1"],
      });
      await assert.rejects(client.send({ text: "hi" }), (err: unknown) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "UNAUTHENTICATED");
        assert.match(err.message, /declares no security scheme, so no credential was sent/);
        assert.doesNotMatch(`${err.message} ${err.remediation}`, /OBSERVAL_A2A_TOKEN/);
        return true;
      });
      const sent = demanding.requests.find((r) => r.rpcMethod);
      assert.equal(sent?.headers.authorization, undefined);
    } finally {
      await demanding.close();
    }
  });
});

Deno.test("RemoteClient's 401 says whether a token was sent and from which variable", async () => {
  await withAgent(
    startV03Agent,
    { securitySchemes: { type: "bearer", token: "right" } },
    async (agent) => {
      await assert.rejects(clientFor(agent).send({ text: "none" }), (err: unknown) => {
        assert.ok(err instanceof ObservalError);
        assert.match(err.message, /OBSERVAL_A2A_TOKEN_127_0_0_1 is not set, so no token was sent/);
        return true;
      });
      const wrong = clientFor(agent, { OBSERVAL_A2A_TOKEN_127_0_0_1: "wrong" });
      await assert.rejects(wrong.send({ text: "bad" }), (err: unknown) => {
        assert.ok(err instanceof ObservalError);
        assert.match(
          err.message,
          /refused the token from OBSERVAL_A2A_TOKEN_127_0_0_1 \(HTTP 401\)/,
        );
        return true;
      });
    },
  );
});

Deno.test("RemoteClient sends data parts in each version's wire form", async () => {
  for (const start of [startV1Agent, startV03Agent]) {
    await withAgent(start, {}, async (agent) => {
      const client = clientFor(agent);
      await client.send({
        parts: [{ text: "ok?" }, { data: { callId: "c1", outcome: "proceed_once" } }],
      });
      const body = agent.requests.find((r) => r.rpcMethod)?.body as {
        params: { message: { parts: unknown[] } };
      };
      const data = { callId: "c1", outcome: "proceed_once" };
      assert.deepEqual(
        body.params.message.parts,
        start === startV1Agent
          ? [{ text: "ok?" }, { data }]
          : [{ kind: "text", text: "ok?" }, { kind: "data", data }],
      );
    });
  }
});
