/**
 * Push notifications from `observal a2a serve`, driven by @a2a-js/sdk 1.3.0's client: the
 * config methods, delivery of a task's end to a webhook on 127.0.0.1 (allowed through
 * `discovery.a2a_private_hosts`, as agent endpoints are), URLs the SSRF gate refuses, and
 * bounded attempts against a webhook that fails.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { SendMessageRequest, type Task, TaskPushNotificationConfig } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { type LocalPlayground, localPlayground } from "../support/local_delegation.ts";
import { serve, type Served } from "../support/served_agent.ts";

/** Answers only after its marker file appears, so configs can be set while it works. */
const WAITS = `#!/bin/sh
cat > /dev/null
while [ ! -e "$HOME/go" ]; do sleep 0.05; done
printf '{"type":"result","result":"Late.","is_error":false,"session_id":"s2"}\\n'
`;

/** One request the webhook received. */
interface Received {
  path: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A webhook on 127.0.0.1 that records what it gets and answers `answer(path)`. */
function webhook(answer: (path: string) => Response = () => new Response(null, { status: 200 })) {
  const received: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    received.push({ path, headers: req.headers, body: await req.json() });
    return answer(path);
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, received, close: () => server.shutdown() };
}

/** Runs `fn` against a served WAITS Agent whose registry allows 127.0.0.1 as private. */
async function withServed(
  fn: (pg: LocalPlayground, served: Served, client: Client) => Promise<void>,
): Promise<void> {
  const pg = await localPlayground();
  try {
    pg.program("claude", WAITS);
    const allow = await pg.observal([
      "registry",
      "settings",
      "set",
      "discovery.a2a_private_hosts",
      "127.0.0.1",
    ]);
    assert.equal(allow.code, 0, allow.stderr);
    const served = await serve(pg);
    try {
      const client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory()],
        }),
      ).createFromUrl(served.url);
      await fn(pg, served, client);
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
  } finally {
    await pg.close();
  }
}

/** A message answered as soon as its task exists. */
function background(text: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
    configuration: { returnImmediately: true },
  });
}

function config(taskId: string, url: string, extra: Record<string, unknown> = {}) {
  return TaskPushNotificationConfig.fromJSON({ taskId, url, ...extra });
}

/** Lets the WAITS run answer. */
const release = (pg: LocalPlayground) => writeFileSync(join(pg.env.HOME!, "go"), "");

/** Polls until `until` holds, failing after `ms`. */
async function eventually(until: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!until()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The state a v1.0 push body carries, if any. */
function stateOf(body: Record<string, unknown>): string | undefined {
  const update = (body.statusUpdate ?? body.task) as { status?: { state?: string } } | undefined;
  return update?.status?.state;
}

Deno.test("a2a serve: push configs are created, got, listed and deleted; the task's end reaches the webhook with its token", async () => {
  const hook = webhook();
  try {
    await withServed(async (pg, served, client) => {
      const card = await (await fetch(`${served.url}/.well-known/agent-card.json`, {
        headers: { "A2A-Version": "1.0" },
      })).json();
      assert.equal(card.capabilities.pushNotifications, true);

      const task = await client.sendMessage(background("Take your time.")) as Task;
      const created = await client.createTaskPushNotificationConfig(
        config(task.id, `${hook.url}/hook`, {
          token: "task-token-1",
          authentication: { scheme: "Bearer", credentials: "webhook-secret" },
        }),
      );
      assert.ok(created.id, "the server names the config");
      assert.equal(created.url, `${hook.url}/hook`);
      const second = await client.createTaskPushNotificationConfig(
        config(task.id, `${hook.url}/other`, { id: "mine" }),
      );
      assert.equal(second.id, "mine");

      const got = await client.getTaskPushNotificationConfig({
        tenant: "",
        taskId: task.id,
        id: created.id,
      });
      assert.equal(got.token, "task-token-1");
      const listed = await client.listTaskPushNotificationConfig({
        tenant: "",
        taskId: task.id,
        pageSize: 0,
        pageToken: "",
      });
      assert.deepEqual(listed.configs.map((c) => c.id).sort(), [created.id, "mine"].sort());
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "mine" });
      const after = await client.listTaskPushNotificationConfig({
        tenant: "",
        taskId: task.id,
        pageSize: 0,
        pageToken: "",
      });
      assert.deepEqual(after.configs.map((c) => c.id), [created.id]);

      release(pg);
      await eventually(
        () => hook.received.some((r) => stateOf(r.body) === "TASK_STATE_COMPLETED"),
        "the final state at the webhook",
      );
      const last = hook.received.find((r) => stateOf(r.body) === "TASK_STATE_COMPLETED")!;
      assert.equal(last.path, "/hook");
      assert.equal(last.headers.get("x-a2a-notification-token"), "task-token-1");
      assert.equal(last.headers.get("authorization"), "Bearer webhook-secret");
      assert.equal(last.headers.get("content-type"), "application/a2a+json");
      assert.ok(
        !hook.received.some((r) =>
          r.path === "/other" && stateOf(r.body) === "TASK_STATE_COMPLETED"
        ),
        "the deleted config gets nothing after its deletion",
      );
    });
  } finally {
    await hook.close();
  }
});

Deno.test("a2a serve refuses webhooks the SSRF gate refuses, over v1.0 and v0.3, when set and on SendMessage", async () => {
  await withServed(async (_pg, served, client) => {
    const task = await client.sendMessage(background("Take your time.")) as Task;
    const refused = [
      ["http://169.254.169.254/latest/meta-data", /cloud metadata service/],
      ["file:///etc/passwd", /only http\(s\) URLs/],
      ["http://10.0.0.5/hook", /private, loopback or reserved/],
      ["http://hooks.example.com/a2a", /plain http/],
      ["https://user:pw@hooks.example.com/a2a", /user name or password/],
    ] as const;
    for (const [url, why] of refused) {
      await assert.rejects(
        client.createTaskPushNotificationConfig(config(task.id, url)),
        (err: Error) => err instanceof RequestMalformedError && why.test(err.message),
        url,
      );
    }
    const listed = await client.listTaskPushNotificationConfig({
      tenant: "",
      taskId: task.id,
      pageSize: 0,
      pageToken: "",
    });
    assert.equal(listed.configs.length, 0, "nothing refused is kept");

    // v0.3's method name answers the same.
    const legacy = await (await fetch(`${served.url}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tasks/pushNotificationConfig/set",
        params: {
          taskId: task.id,
          pushNotificationConfig: { url: "http://169.254.169.254/" },
        },
      }),
    })).json();
    assert.equal(legacy.error?.code, -32602, JSON.stringify(legacy));
    assert.match(legacy.error.message, /cloud metadata service/);

    // A config given with the message is checked before the run starts.
    const request = background("Never runs.");
    request.configuration!.taskPushNotificationConfig = config("", "http://169.254.169.254/");
    await assert.rejects(client.sendMessage(request), /cloud metadata service/);
  });
});

Deno.test("a2a serve gives a failing webhook 3 attempts per event, follows no redirect, and the task still ends", async () => {
  const hook = webhook((path) =>
    path === "/down"
      ? new Response(null, { status: 503 })
      : path === "/moved"
      ? new Response(null, { status: 302, headers: { location: "/elsewhere" } })
      : new Response(null, { status: 200 })
  );
  try {
    await withServed(async (pg, _served, client) => {
      const task = await client.sendMessage(background("Take your time.")) as Task;
      for (const path of ["/down", "/moved"]) {
        await client.createTaskPushNotificationConfig(config(task.id, `${hook.url}${path}`));
      }
      release(pg);
      const finals = (path: string) =>
        hook.received.filter((r) => r.path === path && stateOf(r.body) === "TASK_STATE_COMPLETED");
      await eventually(() => finals("/down").length === 3, "3 attempts of the final state");
      // Each event is tried 3 times in all, with no 4th after the backoff has passed.
      await new Promise((res) => setTimeout(res, 3000));
      assert.equal(finals("/down").length, 3);
      const attempts = new Map<string, number>();
      for (const r of hook.received.filter((r) => r.path === "/down")) {
        const key = JSON.stringify(r.body);
        attempts.set(key, (attempts.get(key) ?? 0) + 1);
      }
      assert.deepEqual(new Set(attempts.values()), new Set([3]), "3 attempts per event");
      assert.equal(finals("/moved").length, 1, "a redirect is an answer, not retried");
      assert.ok(
        hook.received.every((r) => r.path !== "/elsewhere"),
        "the redirect is not followed",
      );
      const done = await client.getTask({ tenant: "", id: task.id, historyLength: 0 });
      assert.equal(done.status?.state, 3, "the task completed regardless");
    });
  } finally {
    await hook.close();
  }
});
