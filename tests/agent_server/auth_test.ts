/**
 * `observal a2a serve --registry-keys` as its own process: callers sign in with their API
 * key for the playground's embedded registry (or for an `observal registry serve` the
 * server is configured with), each within its own request budget and seeing only its own
 * tasks; anything the registry does not vouch for is refused.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { type LocalPlayground, localPlayground } from "../support/local_delegation.ts";
import { serve } from "../support/served_agent.ts";
import { spawnObserval } from "../support/process.ts";

/** Edits the copy and answers as `claude -p --output-format json` does. */
const EDITS = `#!/bin/sh
cat > /dev/null
printf 'three\\n' >> edit.txt
printf '{"type":"result","result":"Added a line.","is_error":false,"session_id":"s1"}\\n'
`;

/** A new registry user's API key, issued by the CLI. */
async function userKey(pg: LocalPlayground, handle: string, role = "user"): Promise<string> {
  const made = await pg.json(["registry", "user", "add", handle, "--role", role]);
  assert.equal(made.code, 0, made.stderr);
  const key = String(made.body.apiKey);
  assert.match(key, /^obs_/);
  return key;
}

/** One v1.0 JSON-RPC GetTask, with `authorization` when given. */
async function getTask(url: string, id: string, authorization?: string) {
  const res = await fetch(`${url}/`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "A2A-Version": "1.0",
      ...authorization ? { authorization } : {},
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** Asserts a 401 that names the scheme and says, as JSON-RPC, what to send. */
function assertRefused(answer: Awaited<ReturnType<typeof getTask>>, what: string) {
  assert.equal(answer.status, 401, what);
  assert.match(answer.headers.get("www-authenticate") ?? "", /^Bearer realm=/, what);
  assert.equal(answer.body.jsonrpc, "2.0");
  assert.equal(answer.body.error.code, -32600, what);
  assert.match(answer.body.error.message, /API key for the Observal registry/, what);
}

function message(text: string) {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
  });
}

Deno.test("a2a serve --registry-keys: a user's key gets the run, within its own budget and tasks; other keys, revoked ones and none are refused", async () => {
  const pg = await localPlayground();
  pg.program("claude", EDITS);
  const amy = await userKey(pg, "amy");
  const bob = await userKey(pg, "bob");
  const carol = await userKey(pg, "carol");
  const token = "s3cret-token-of-32-characters-xx";
  const tokenFile = join(pg.root, "token");
  writeFileSync(tokenFile, token, { mode: 0o600 });
  const served = await serve(pg, [
    "--registry-keys",
    "--token-file",
    tokenFile,
    "--rate-limit",
    "3",
  ]);
  try {
    // (e) The card is public and declares the bearer scheme.
    const card = await (await fetch(`${served.url}/.well-known/agent-card.json`, {
      headers: { "A2A-Version": "1.0" },
    })).json();
    assert.deepEqual(card.securitySchemes, {
      bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } },
    });
    assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);

    // (a) The SDK's client with amy's key gets the run (her 1st request).
    const withKey: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${amy}`);
      return fetch(input, { ...init, headers });
    };
    const client = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })],
      }),
    ).createFromUrl(served.url);
    const task = await client.sendMessage(message("Add a line.")) as Task;
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(task.status));
    assert.match(served.stderr(), /SendMessage from amy \(user [0-9a-f-]{36}\)/);
    assert.ok(!served.stderr().includes(amy), "the key is never logged");

    // Her task is hers: bob cannot read it.
    const own = await getTask(served.url, task.id, `Bearer ${amy}`);
    assert.equal(own.status, 200);
    assert.equal(own.body.result.id, task.id);
    const other = await getTask(served.url, task.id, `Bearer ${bob}`);
    assert.equal(other.status, 200);
    assert.equal(other.body.error.code, -32001, JSON.stringify(other.body));

    // (c) Past her budget (3 a minute) amy waits; bob and the token's holders do not.
    assert.equal((await getTask(served.url, task.id, `Bearer ${amy}`)).status, 200);
    const over = await getTask(served.url, task.id, `Bearer ${amy}`);
    assert.equal(over.status, 429);
    const retry = Number(over.headers.get("retry-after"));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After: ${retry}`);
    assert.equal(over.body.error.code, -32000);
    assert.match(over.body.error.message, /at most 3 a minute.*retry in \d+ s/);
    assert.equal((await getTask(served.url, task.id, `Bearer ${bob}`)).status, 200);
    for (let i = 0; i < 3; i++) {
      assert.equal((await getTask(served.url, "x", `Bearer ${token}`)).status, 200);
    }
    const tokenOver = await getTask(served.url, "x", `Bearer ${token}`);
    assert.equal(tokenOver.status, 429);
    assert.match(tokenOver.body.error.message, /from token-file/);

    // (b) No key, a malformed header, a wrong key, a revoked key.
    assertRefused(await getTask(served.url, "x"), "no key");
    assertRefused(await getTask(served.url, "x", amy), "no scheme");
    assertRefused(await getTask(served.url, "x", `Bearer obs_${"A".repeat(43)}`), "wrong key");
    assert.equal((await getTask(served.url, "x", `Bearer ${carol}`)).status, 200);
    const db = new DatabaseSync(join(pg.home, "registry.db"));
    try {
      db.prepare("UPDATE api_keys SET revoked_at = ? WHERE prefix = ?").run(
        new Date().toISOString(),
        carol.slice(0, 8),
      );
    } finally {
      db.close();
    }
    assertRefused(await getTask(served.url, "x", `Bearer ${carol}`), "revoked key");

    // Guessing spends the key's failure budget (10 a minute), then is refused outright.
    const guess = `Bearer obs_${"B".repeat(43)}`;
    for (let i = 0; i < 10; i++) assertRefused(await getTask(served.url, "x", guess), "guess");
    const locked = await getTask(served.url, "x", guess);
    assert.equal(locked.status, 429);
    assert.match(locked.body.error.message, /failed sign-ins with this key/);
  } finally {
    assert.equal(await served.stop(), 0, served.stderr());
    await pg.close();
  }
});

Deno.test("a2a serve --registry-keys with a remote registry: keys are checked by its /api/v1/me; while it is down, unknown keys get 503", async () => {
  const pg = await localPlayground();
  const amy = await userKey(pg, "amy");
  const bob = await userKey(pg, "bob");
  // The server's own key, to read the Agent; callers' keys are checked apart from it.
  const ops = await userKey(pg, "ops", "admin");
  const registry = spawnObserval(["registry", "serve", "--port", "0"], {
    OBSERVAL_HOME: pg.home,
    HOME: pg.root,
  });
  let registryStopped = false;
  try {
    const url = /^listening (http:\S+)$/.exec(await registry.firstLine)?.[1];
    assert.ok(url, registry.stderr());
    const served = await serve({
      ...pg,
      env: { ...pg.env, OBSERVAL_SERVER_URL: url, OBSERVAL_API_KEY: ops },
    }, [
      "--registry-keys",
    ]);
    try {
      const accepted = await getTask(served.url, "x", `Bearer ${amy}`);
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.equal(accepted.body.error.code, -32001);
      assertRefused(await getTask(served.url, "x", `Bearer obs_${"C".repeat(43)}`), "wrong key");

      assert.equal(await registry.stop(), 0, registry.stderr());
      registryStopped = true;
      const down = await getTask(served.url, "x", `Bearer ${bob}`);
      assert.equal(down.status, 503, JSON.stringify(down.body));
      assert.equal(down.headers.get("retry-after"), "10");
      assert.equal(down.body.error.code, -32000);
      assert.match(down.body.error.message, /registry could not check your API key/);
      assert.ok(!down.body.error.message.includes(url), "the registry's address is not shown");
      assert.match(served.stderr(), /Cannot check an API key with the registry/);
      // amy's key was vouched for moments ago: that word is kept a short while.
      assert.equal((await getTask(served.url, "x", `Bearer ${amy}`)).status, 200);
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
  } finally {
    if (!registryStopped) await registry.stop();
    await pg.close();
  }
});

Deno.test("a2a serve --registry-keys may listen beyond loopback; without any auth it may not", async () => {
  const pg = await localPlayground();
  try {
    const open = await pg.observal(["a2a", "serve", "--agent", pg.identifier, "--host", "0.0.0.0"]);
    assert.equal(open.code, 2, open.stderr);
    assert.match(open.stderr, /--token-file FILE or --registry-keys/);
    const served = await serve(pg, ["--registry-keys", "--host", "0.0.0.0"]);
    try {
      const port = new URL(served.url).port;
      assertRefused(await getTask(`http://127.0.0.1:${port}`, "x"), "no key");
      assert.match(served.stderr(), /Warning: serving plain HTTP on 0\.0\.0\.0/);
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
  } finally {
    await pg.close();
  }
});
