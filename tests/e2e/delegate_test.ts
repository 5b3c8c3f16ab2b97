/**
 * `observal delegate` against real A2A agents (@a2a-js/sdk 1.3.0 for v1.0, 0.3.14 for
 * v0.3) on 127.0.0.1, imported and approved through the embedded registry. Every task runs
 * in a real detached worker process.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { createContext, systemClock } from "../../lib/core/mod.ts";
import { detachedLauncher } from "../../lib/delegation/mod.ts";
import { openRegistry, registryPath } from "../../lib/server/mod.ts";
import { FAILURE_TEXT, INPUT_QUESTION } from "../support/a2a_agents.ts";
import { playground } from "../support/delegation.ts";

const PROTOCOLS = ["1.0", "0.3"] as const;

function text(task: Task): string {
  return (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? "")).join("\n");
}

function rpcMethods(requests: Array<{ rpcMethod?: string }>): string[] {
  return requests.map((r) => r.rpcMethod).filter((m): m is string => Boolean(m));
}

for (const protocol of PROTOCOLS) {
  Deno.test(`delegate run (A2A ${protocol}): completes with the agent's artifacts`, async () => {
    const pg = await playground({ protocol, behaviour: "complete" });
    try {
      const r = await pg.json([
        "delegate",
        "run",
        pg.identifier,
        "Summarise the release",
        "--wait",
        "60",
      ]);
      assert.equal(r.code, 0, r.stderr);
      const task = r.body as unknown as Task;
      assert.equal(task.status.state, "TASK_STATE_COMPLETED");
      assert.match(text(task), /echo:Summarise the release/);
      assert.equal(task.metadata.observal.kind, "a2a");
      assert.equal(task.metadata.observal.target, pg.identifier);
      assert.ok(task.metadata.observal.remoteTaskId);
      const human = await pg.observal(["delegate", "status", task.id]);
      assert.equal(human.code, 0);
      assert.match(human.stdout, /completed/);
      assert.match(human.stdout, /echo:Summarise the release/);
      const list = await pg.observal(["delegate", "list"]);
      assert.ok(list.stdout.includes(task.id), "list prints ids that status accepts");
      const lock = readFileSync(join(pg.home, "capability_lock.jsonl"), "utf8").trim().split("\n");
      assert.equal(lock.length, 1);
      const line = JSON.parse(lock[0]);
      assert.equal(line.kind, "external");
      assert.equal(line.mode, "delegated");
      assert.equal(line.identifier, pg.identifier);
      assert.equal(line.extra.task_id, task.id);
    } finally {
      await pg.close();
    }
  });

  Deno.test(`delegate run (A2A ${protocol}): asks for input, takes a reply, completes`, async () => {
    const pg = await playground({ protocol, behaviour: "input" });
    try {
      const first = await pg.json([
        "delegate",
        "run",
        pg.identifier,
        "Write notes",
        "--wait",
        "60",
      ]);
      assert.equal(first.code, 10);
      const task = first.body as unknown as Task;
      assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
      assert.match(JSON.stringify(task.status.message), new RegExp(INPUT_QUESTION));
      const human = await pg.observal(["delegate", "status", task.id]);
      assert.match(human.stdout, /delegate reply/);
      const done = await pg.json(["delegate", "reply", task.id, "Developers", "--wait", "60"]);
      assert.equal(done.code, 0, done.stderr);
      const after = done.body as unknown as Task;
      assert.equal(after.status.state, "TASK_STATE_COMPLETED");
      assert.match(text(after), /Write notes/);
      assert.match(text(after), /Developers/);
      assert.deepEqual(
        after.history?.map((m) => m.role),
        ["ROLE_USER", "ROLE_AGENT", "ROLE_USER"],
        "the question and the reply are in the history",
      );
      const again = await pg.observal(["delegate", "reply", task.id, "more"]);
      assert.equal(again.code, 6);
      assert.match(again.stderr, /waiting for input/);
    } finally {
      await pg.close();
    }
  });

  Deno.test(`delegate run (A2A ${protocol}): a failing agent fails the task`, async () => {
    const pg = await playground({ protocol, behaviour: "fail" });
    try {
      const r = await pg.json(["delegate", "run", pg.identifier, "Break", "--wait", "60"]);
      assert.equal(r.code, 3);
      const task = r.body as unknown as Task;
      assert.equal(task.status.state, "TASK_STATE_FAILED");
      assert.match(JSON.stringify(task.status.message), new RegExp(FAILURE_TEXT));
    } finally {
      await pg.close();
    }
  });

  Deno.test(`delegate cancel (A2A ${protocol}): a long task is canceled and the agent is told`, async () => {
    const pg = await playground({ protocol, behaviour: "slow" });
    try {
      const r = await pg.json(["delegate", "run", pg.identifier, "Take your time", "--wait", "0"]);
      assert.equal(r.code, 10);
      const id = String(r.body.id);
      const task = await pg.untilRemote(id);
      const c = await pg.json(["delegate", "cancel", id]);
      assert.equal(c.code, 0, c.stderr);
      assert.equal((c.body as unknown as Task).status.state, "TASK_STATE_CANCELED");
      assert.deepEqual(pg.agent.canceled, [task.metadata.observal.remoteTaskId]);
      assert.match(JSON.stringify(c.body), /Canceled by the caller/);
    } finally {
      await pg.close();
    }
  });

  Deno.test(`delegate run (A2A ${protocol}): a direct message answer completes the task`, async () => {
    const pg = await playground({ protocol, behaviour: "message" });
    try {
      const r = await pg.json(["delegate", "run", pg.identifier, "Just answer", "--wait", "60"]);
      assert.equal(r.code, 0, r.stderr);
      const task = r.body as unknown as Task;
      assert.equal(task.status.state, "TASK_STATE_COMPLETED");
      assert.equal(task.artifacts?.[0].name, "result");
      assert.match(text(task), /echo:Just answer/);
    } finally {
      await pg.close();
    }
  });

  Deno.test(`delegate run (A2A ${protocol}): a streaming agent is followed without polling`, async () => {
    const pg = await playground({ protocol, behaviour: "complete", streaming: true });
    try {
      const r = await pg.json(["delegate", "run", pg.identifier, "Stream it", "--wait", "60"]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal((r.body as unknown as Task).status.state, "TASK_STATE_COMPLETED");
      const methods = rpcMethods(pg.agent.requests);
      const stream = protocol === "1.0" ? "SendStreamingMessage" : "message/stream";
      assert.deepEqual(methods, [stream], `only the stream was used: ${methods}`);
    } finally {
      await pg.close();
    }
  });
}

Deno.test("delegate run: a bearer token from the host-named variable is sent", async () => {
  const pg = await playground({ securitySchemes: { type: "bearer", token: "s3cret" } });
  try {
    const without = await pg.json(["delegate", "run", pg.identifier, "Hi", "--wait", "60"]);
    assert.equal(without.code, 3);
    assert.match(JSON.stringify(without.body.status), /OBSERVAL_A2A_TOKEN_127_0_0_1/);
    const r = await pg.json(["delegate", "run", pg.identifier, "Hi", "--wait", "60"], {
      OBSERVAL_A2A_TOKEN_127_0_0_1: "s3cret",
    });
    assert.equal(r.code, 0, JSON.stringify(r.body.status));
    const authed = pg.agent.requests.filter((q) => q.rpcMethod && q.headers.authorization);
    assert.ok(authed.length > 0);
    assert.ok(authed.every((q) => q.headers.authorization === "Bearer s3cret"));
  } finally {
    await pg.close();
  }
});

Deno.test("delegate run: an apiKey scheme gets the token in its header", async () => {
  const pg = await playground({
    securitySchemes: { type: "apiKey", name: "X-Agent-Key", token: "k-123" },
  });
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Hi", "--wait", "60"], {
      OBSERVAL_A2A_TOKEN_127_0_0_1: "k-123",
    });
    assert.equal(r.code, 0, JSON.stringify(r.body.status));
    const rpc = pg.agent.requests.filter((q) => q.rpcMethod);
    assert.ok(rpc.length > 0);
    for (const q of rpc) {
      assert.equal(q.headers["x-agent-key"], "k-123");
      assert.equal(q.headers.authorization, undefined);
    }
  } finally {
    await pg.close();
  }
});

for (
  const c of [
    {
      name: "a 1.3.0 card that requires bearer",
      protocol: "1.0",
      security: { type: "bearer", token: "b-1", decoy: true },
      header: ["authorization", "Bearer b-1"],
      absent: "x-api-key",
    },
    {
      name: "a 0.3.14 card that requires bearer",
      protocol: "0.3",
      security: { type: "bearer", token: "b-2", decoy: true },
      header: ["authorization", "Bearer b-2"],
      absent: "x-api-key",
    },
    {
      name: "a 1.3.0 card with a $case API-key scheme",
      protocol: "1.0",
      security: { type: "apiKey", name: "X-Agent-Key", token: "k-3" },
      header: ["x-agent-key", "k-3"],
      absent: "authorization",
    },
  ] as const
) {
  Deno.test(`delegate run: the token goes in exactly the header of ${c.name}`, async () => {
    const pg = await playground({
      protocol: c.protocol,
      securitySchemes: c.security,
      sdkCard: true,
    });
    try {
      const r = await pg.json(["delegate", "run", pg.identifier, "Hi", "--wait", "60"], {
        OBSERVAL_A2A_TOKEN_127_0_0_1: c.security.token,
      });
      assert.equal(r.code, 0, JSON.stringify(r.body.status));
      const rpc = pg.agent.requests.filter((q) => q.rpcMethod);
      assert.ok(rpc.length > 0);
      for (const q of rpc) {
        assert.equal(q.headers[c.header[0]], c.header[1]);
        assert.equal(q.headers[c.absent], undefined);
      }
    } finally {
      await pg.close();
    }
  });
}

Deno.test("delegate run: a token is never sent over plain http to a non-loopback name", async () => {
  const pg = await playground({
    securitySchemes: { type: "bearer", token: "s3cret" },
    cardOverride: (card) =>
      JSON.parse(JSON.stringify(card).replaceAll("http://127.0.0.1:", "http://agent.test:")),
    // Import lets a plain-http endpoint in only from an allowlisted host; the token rule
    // must still keep the token off the wire when the worker calls it.
    privateHosts: "127.0.0.1,agent.test",
  });
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Hi", "--wait", "60"], {
      OBSERVAL_A2A_TOKEN_AGENT_TEST: "s3cret",
    });
    assert.equal(r.code, 3);
    assert.match(JSON.stringify(r.body.status), /plain http/i);
    assert.equal(rpcMethods(pg.agent.requests).length, 0, "nothing was sent");
  } finally {
    await pg.close();
  }
});

Deno.test("delegate run: approval withdrawn before the worker starts → rejected, nothing sent", async () => {
  const pg = await playground({ behaviour: "complete" });
  try {
    const realLaunch = detachedLauncher(createContext({ env: pg.env, cwd: pg.home }));
    const { service, close } = pg.service({
      launch: (taskId, dir, perms) => {
        // A reviewer withdraws approval after the guards passed, before the worker runs.
        // The registry's own connection carries the SQL functions its triggers call.
        const registry = openRegistry({
          path: registryPath(pg.home),
          clock: systemClock,
          delegationCommand: ["observal", "delegate", "mcp"],
        });
        registry.db.prepare("UPDATE entries SET lifecycle = 'rejected' WHERE identifier = ?")
          .run(pg.identifier);
        registry.close();
        return realLaunch(taskId, dir, perms);
      },
    });
    try {
      const task = await service.start(pg.identifier, "Do it", {
        caller: { depth: 0, maxDepth: 2, chain: [] },
        waitSeconds: 60,
      });
      assert.equal(task.status.state, "TASK_STATE_REJECTED", JSON.stringify(task.status));
      assert.match(JSON.stringify(task.status.message), /no longer approved/);
      assert.equal(rpcMethods(pg.agent.requests).length, 0, "nothing was sent to the agent");
    } finally {
      close();
    }
  } finally {
    await pg.close();
  }
});

Deno.test("delegate run on a terminal shows a live progress line, then clears it", async () => {
  const pg = await playground({ behaviour: "complete", name: "Progress Agent" });
  try {
    const { cli } = await import("../support/cli.ts");
    const r = await cli(["delegate", "run", pg.identifier, "Hi", "--wait", "60"], {
      env: pg.env,
      cwd: pg.home,
      tty: true,
    });
    assert.equal(r.code, 0, r.stderr);
    // deno-lint-ignore no-control-regex
    assert.match(r.stderr, /\r\x1b\[2K. Progress Agent: (submitted|working|completed) · \d+s/);
    assert.ok(r.stderr.endsWith("\r\x1b[2K"), "the line is cleared before the result");
    assert.match(r.stdout, /Progress Agent {2}completed/);
    const piped = await pg.observal(["delegate", "run", pg.identifier, "Hi", "--wait", "60"]);
    assert.equal(piped.stderr, "", "no progress noise in a pipe");
  } finally {
    await pg.close();
  }
});

Deno.test("delegate prune removes settled tasks older than the cut-off", async () => {
  const pg = await playground({ behaviour: "complete" });
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Hi", "--wait", "60"]);
    assert.equal(r.code, 0);
    const keep = await pg.json(["delegate", "prune", "--older-than", "1"]);
    assert.equal(keep.body.removed, 0);
    const all = await pg.json(["delegate", "prune", "--older-than", "0"]);
    assert.equal(all.body.removed, 1);
    assert.equal((await pg.json(["delegate", "list"])).body.total, 0);
    const gone = await pg.observal(["delegate", "status", String(r.body.id)]);
    assert.equal(gone.code, 5);
  } finally {
    await pg.close();
  }
});
