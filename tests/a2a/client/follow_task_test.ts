import assert from "node:assert/strict";
import {
  callableInterface,
  DEFAULT_REMOTE_LIMITS,
  parseAgentCard,
  partsText,
  type RemoteLimits,
  RemoteRefusalError,
  type RemoteSnapshot,
  TransientRemoteError,
} from "../../../lib/a2a/mod.ts";
import {
  createRemoteClient,
  followRemoteTask,
  type FollowTiming,
  type RemoteClient,
} from "../../../lib/a2a/client/mod.ts";
import { systemClock } from "../../../lib/core/mod.ts";
import {
  type HostileAgent,
  type HostileMode,
  type HostileOptions,
  startHostileAgent,
} from "../../support/hostile_agent.ts";

async function withHostile(
  mode: HostileMode,
  options: HostileOptions,
  fn: (agent: HostileAgent, client: RemoteClient) => Promise<void>,
  limits?: Partial<RemoteLimits>,
): Promise<void> {
  const agent = await startHostileAgent(mode, options);
  try {
    const card = parseAgentCard(
      await (await fetch(agent.cardUrl)).json(),
    );
    const iface = callableInterface(card);
    assert.ok(iface);
    const client = createRemoteClient({
      iface,
      card,
      env: {},
      allowPrivateHosts: ["127.0.0.1"],
      limits: { ...DEFAULT_REMOTE_LIMITS, ...limits },
    });
    await fn(agent, client);
  } finally {
    await agent.close();
  }
}

function follow(
  client: RemoteClient,
  options: { timeoutMs?: number; timing?: FollowTiming; seen?: RemoteSnapshot[] } = {},
): Promise<RemoteSnapshot> {
  return followRemoteTask({
    client,
    input: { text: "Do the thing" },
    timeoutMs: options.timeoutMs ?? 20_000,
    clock: systemClock,
    onSnapshot: (snap) => options.seen?.push(snap),
    timing: { firstPollMs: 10, maxPollMs: 50, firstRetryMs: 10, ...options.timing },
  });
}

function artifactText(snap: RemoteSnapshot): string {
  return (snap.artifacts ?? []).map((a) => partsText(a.parts)).join("\n");
}

Deno.test("followRemoteTask() keeps a silent stream open and checks the task beside it", async () => {
  await withHostile("silent-stream", { workingChecks: 2 }, async (agent, client) => {
    const last = await follow(client, { timing: { streamCheckMs: 150 } });
    assert.equal(last.state, "TASK_STATE_COMPLETED");
    assert.equal(artifactText(last), "done after silence");
    assert.deepEqual(agent.rpcMethods(), [
      "SendStreamingMessage",
      "GetTask",
      "GetTask",
      "GetTask",
    ]);
    const gets = agent.requests.filter((r) => r.rpcMethod === "GetTask");
    assert.ok(gets.every((r) => r.openStreams === 1), "the stream stayed open at every check");
    // Silence is not a reason to hang up: the stream closed only once the task was done.
    await waitFor(() => agent.streamsClosedAt.length === 1);
    assert.ok(agent.streamsClosedAt[0] >= gets.at(-1)!.at, `${agent.streamsClosedAt}`);
  });
});

Deno.test("followRemoteTask() falls back to polling when the stream breaks", async () => {
  for (const protocol of ["1.0", "0.3"] as const) {
    await withHostile("broken-stream", { protocol }, async (agent, client) => {
      const last = await follow(client);
      assert.equal(last.state, "TASK_STATE_COMPLETED");
      const methods = agent.rpcMethods();
      assert.equal(methods[0], protocol === "1.0" ? "SendStreamingMessage" : "message/stream");
      assert.ok(methods.length >= 2, `${methods}`);
      assert.ok(
        methods.slice(1).every((m) => m === (protocol === "1.0" ? "GetTask" : "tasks/get")),
      );
    });
  }
});

Deno.test("followRemoteTask() stops a stream at the deadline even while it keeps talking", async () => {
  await withHostile("stream-past-deadline", {}, async (agent, client) => {
    const started = Date.now();
    await assert.rejects(follow(client, { timeoutMs: 400 }), (err: unknown) => {
      assert.ok(err instanceof RemoteRefusalError, String(err));
      assert.equal(err.reason, "deadline");
      assert.match(err.message, /Timed out after 0.4 seconds/);
      assert.match(err.remediation ?? "", /--timeout/);
      return true;
    });
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    await waitFor(() => agent.streamsClosedAt.length === 1);
  });
});

Deno.test("followRemoteTask() retries HTTP 503 while polling, then completes", async () => {
  await withHostile("flaky-polling", { failures: 3 }, async (agent, client) => {
    const last = await follow(client);
    assert.equal(last.state, "TASK_STATE_COMPLETED");
    assert.equal(artifactText(last), "recovered");
    assert.deepEqual(agent.rpcMethods(), [
      "SendMessage",
      "GetTask",
      "GetTask",
      "GetTask",
      "GetTask",
    ]);
  });
});

Deno.test("followRemoteTask() checks a task the send left unfinished at once, not after a pause", async () => {
  await withHostile("flaky-polling", { failures: 0 }, async (agent, client) => {
    // A first pause of a minute would run past the deadline: the first check has none.
    const last = await follow(client, { timeoutMs: 10_000, timing: { firstPollMs: 60_000 } });
    assert.equal(last.state, "TASK_STATE_COMPLETED");
    assert.deepEqual(agent.rpcMethods(), ["SendMessage", "GetTask"]);
  });
});

Deno.test("followRemoteTask() with `follow` and no input sends nothing and follows that task", async () => {
  await withHostile("flaky-polling", { failures: 0 }, async (agent, client) => {
    const sent = await client.send({ text: "Do the thing" });
    assert.ok(sent.taskId);
    const last = await followRemoteTask({
      client,
      follow: sent.taskId,
      timeoutMs: 10_000,
      clock: systemClock,
      onSnapshot: () => {},
      timing: { firstPollMs: 10, maxPollMs: 50 },
    });
    assert.equal(last.state, "TASK_STATE_COMPLETED");
    assert.equal(last.taskId, sent.taskId);
    // The one SendMessage is the one above: taking over never sends again.
    assert.deepEqual(agent.rpcMethods(), ["SendMessage", "GetTask"]);
  });
});

Deno.test("followRemoteTask() gives up on transient failures after retryForMs", async () => {
  await withHostile("flaky-polling", { failures: 1000 }, async (agent, client) => {
    await assert.rejects(
      follow(client, { timing: { retryForMs: 200 } }),
      (err: unknown) => err instanceof TransientRemoteError && /HTTP 503/.test(err.message),
    );
    const gets = agent.rpcMethods().filter((m) => m === "GetTask").length;
    assert.ok(gets >= 2 && gets < 20, `${gets} GetTask calls`);
  });
});

Deno.test("followRemoteTask() refuses an answer about another task, naming both", async () => {
  await withHostile("changing-task-id", {}, async (_agent, client) => {
    await assert.rejects(follow(client), (err: unknown) => {
      assert.ok(err instanceof RemoteRefusalError);
      assert.equal(err.reason, "identity");
      assert.match(err.message, /task "other-[^"]+" while following task "task-[^"]+"/);
      return true;
    });
  });
});

Deno.test("followRemoteTask() refuses an unknown state, naming it", async () => {
  for (const protocol of ["1.0", "0.3"] as const) {
    await withHostile("unknown-state", { protocol }, async (_agent, client) => {
      await assert.rejects(follow(client), (err: unknown) => {
        assert.ok(err instanceof RemoteRefusalError);
        assert.equal(err.reason, "state");
        assert.match(err.message, protocol === "1.0" ? /"TASK_STATE_PAUSED"/ : /"paused"/);
        return true;
      });
    });
  }
});

Deno.test("followRemoteTask() stops streamed artifacts at the artifact count limit", async () => {
  await withHostile("many-artifacts", {}, async (_agent, client) => {
    const seen: RemoteSnapshot[] = [];
    await assert.rejects(follow(client, { seen }), (err: unknown) => {
      assert.ok(err instanceof RemoteRefusalError);
      assert.equal(err.variable, "OBSERVAL_A2A_MAX_ARTIFACTS");
      assert.match(err.message, /more than 1000 artifacts.*OBSERVAL_A2A_MAX_ARTIFACTS/);
      assert.match(err.remediation ?? "", /set OBSERVAL_A2A_MAX_ARTIFACTS to a larger value/);
      return true;
    });
    assert.ok((seen.at(-1)?.artifacts?.length ?? 0) <= 1000);
  });
});

Deno.test("followRemoteTask() keeps the chatty agent's messages in order, data parts included", async () => {
  for (const protocol of ["1.0", "0.3"] as const) {
    await withHostile("chatty-input", { protocol }, async (_agent, client) => {
      const last = await follow(client);
      assert.equal(last.state, "TASK_STATE_INPUT_REQUIRED");
      assert.equal(last.message, undefined);
      assert.deepEqual(last.messages.map((m) => m.parts), [
        [{ text: "Looking at the code." }],
        [{
          data: {
            callId: "call-1",
            name: "read_file",
            args: { path: "src/main.ts" },
            status: "awaiting_approval",
          },
        }],
        [{ text: "The answer is 42." }],
      ]);
    });
  }
});

Deno.test("followRemoteTask() treats the question a reply answers as not yet answered", async () => {
  const question = { messageId: "q1", role: "ROLE_AGENT" as const, parts: [{ text: "Who?" }] };
  const views: RemoteSnapshot[] = [
    {
      taskId: "t",
      state: "TASK_STATE_INPUT_REQUIRED",
      message: question,
      messages: [],
      direct: false,
    },
    {
      taskId: "t",
      state: "TASK_STATE_INPUT_REQUIRED",
      timestamp: "T1",
      messages: [],
      direct: false,
    },
    { taskId: "t", state: "TASK_STATE_WORKING", messages: [], direct: false },
    {
      taskId: "t",
      state: "TASK_STATE_INPUT_REQUIRED",
      timestamp: "T2",
      messages: [],
      direct: false,
    },
  ];
  let gets = 0;
  const client: RemoteClient = {
    version: "1.0",
    streaming: false,
    send: () => Promise.resolve(views[0]),
    get: () => Promise.resolve(views[Math.min(++gets, views.length - 1)]),
    cancel: () => Promise.reject(new Error("unused")),
    stream: () => {
      throw new Error("unused");
    },
  };
  const seen: RemoteSnapshot[] = [];
  const last = await followRemoteTask({
    client,
    input: { text: "Engineers", taskId: "t" },
    timeoutMs: 5000,
    clock: systemClock,
    answered: { messageId: "q1", timestamp: "T1" },
    onSnapshot: (snap) => seen.push(snap),
    timing: { firstPollMs: 1, maxPollMs: 1 },
  });
  assert.equal(last.timestamp, "T2", "the new question ends the turn");
  assert.deepEqual(seen.map((s) => s.state), [
    "TASK_STATE_WORKING",
    "TASK_STATE_WORKING",
    "TASK_STATE_WORKING",
    "TASK_STATE_INPUT_REQUIRED",
  ]);
  assert.equal(seen[0].message, undefined, "the old question is not shown again");
});

Deno.test("RemoteClient refuses an endless JSON body at the response limit", async () => {
  await withHostile("endless-json", {}, async (_agent, client) => {
    const started = Date.now();
    await assert.rejects(client.send({ text: "hi" }), (err: unknown) => {
      assert.ok(err instanceof RemoteRefusalError, String(err));
      assert.equal(err.variable, "OBSERVAL_A2A_MAX_RESPONSE_BYTES");
      assert.match(err.message, /JSON-RPC response larger than 1 MiB/);
      return true;
    });
    assert.ok(Date.now() - started < 5000);
  }, { maxResponseBytes: 1024 * 1024 });
});

Deno.test("RemoteClient refuses a huge Content-Length before reading the body", async () => {
  await withHostile("huge-content-length", {}, async (_agent, client) => {
    await assert.rejects(
      client.send({ text: "hi" }),
      (err: unknown) =>
        err instanceof RemoteRefusalError && err.variable === "OBSERVAL_A2A_MAX_RESPONSE_BYTES",
    );
  });
});

Deno.test("RemoteClient refuses an SSE line that never ends at the event limit", async () => {
  await withHostile("endless-sse-line", {}, async (_agent, client) => {
    const started = Date.now();
    await assert.rejects(
      (async () => {
        for await (const _ of client.stream({ text: "hi" })) { /* nothing arrives */ }
      })(),
      (err: unknown) => {
        assert.ok(err instanceof RemoteRefusalError, String(err));
        assert.equal(err.variable, "OBSERVAL_A2A_MAX_EVENT_BYTES");
        assert.match(err.message, /stream event or line larger than 2 MiB/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 5000);
  }, { maxEventBytes: 2 * 1024 * 1024 });
});

Deno.test("RemoteClient refuses one artifact past the artifact byte limit", async () => {
  await withHostile("huge-artifact", {}, async (_agent, client) => {
    const sent = await client.send({ text: "hi" });
    await assert.rejects(client.get(sent.taskId!), (err: unknown) => {
      assert.ok(err instanceof RemoteRefusalError);
      assert.equal(err.variable, "OBSERVAL_A2A_MAX_ARTIFACT_BYTES");
      assert.match(err.message, /artifacts larger than 4 MiB in all/);
      return true;
    });
  });
});

/** Waits for a condition the server side reaches on its own (a socket's close event). */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(done(), "the condition was never reached");
}
