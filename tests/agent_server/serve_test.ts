/**
 * `observal a2a serve` as its own process, called by the A2A SDKs' own clients
 * (@a2a-js/sdk 1.3.0 for v1.0, 0.3.14 for v0.3): each message runs the registry Agent
 * through a harness program in a fresh copy of the served repository, and the answer and
 * the patch come back as artifacts; the served repository is never changed.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ListTasksRequest, type Task, TaskState } from "@a2a-js/sdk";
import { v03Message, v1Message } from "../support/a2a_message.ts";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { ClientFactory as V03ClientFactory } from "a2a-sdk-v03/client";
import type { Task as V03Task } from "a2a-sdk-v03";
import {
  agentYaml,
  type LocalPlayground,
  localPlayground,
  treeOf,
} from "../support/local_delegation.ts";
import { createContext } from "../../lib/core/mod.ts";
import { openRegistryClient } from "../../lib/cli/open_registry_client.ts";
import { callerHome, serve, withServed } from "../support/served_agent.ts";

/** Edits the copy and answers as `claude -p --output-format json` does. */
const EDITS = `#!/bin/sh
cat > /dev/null
printf 'three\\n' >> edit.txt
printf '{"type":"result","result":"Added a line.","is_error":false,"session_id":"s1"}\\n'
`;

/** Answers only after its marker file appears, so a test can cancel it while it works. */
const WAITS = `#!/bin/sh
cat > /dev/null
while [ ! -e "$HOME/go" ]; do sleep 0.05; done
printf '{"type":"result","result":"Late.","is_error":false,"session_id":"s2"}\\n'
`;

const message = (text: string) => v1Message(text);
/** A message sent with returnImmediately: the answer is the task as soon as it exists. */
const background = (text: string) => v1Message(text, { returnImmediately: true });

/** The pids of the harness program (the stand-in script itself) still running. */
function running(pg: LocalPlayground): string {
  const pattern = `^/bin/sh ${join(pg.bin, "claude")}`;
  return spawnSync("pgrep", ["-f", pattern], { encoding: "utf8" }).stdout.trim();
}

/** The states a task ends in. */
const FINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** The text of a task's status message. */
function statusText(task: Task): string {
  return (task.status?.message?.parts ?? [])
    .flatMap((p) => p.content?.$case === "text" ? [p.content.value] : [])
    .join(" ");
}

function texts(task: Task, name: string): string[] {
  return (task.artifacts ?? []).filter((a) => a.name === name).flatMap((a) =>
    a.parts.flatMap((p) => p.content?.$case === "text" ? [p.content.value] : [])
  );
}

Deno.test("a2a serve: a v1.0 client's message runs the Agent; the answer and the patch come back, the repository stays as it was", async () => {
  await withServed(EDITS, async (pg, served) => {
    const before = treeOf(pg.repo);
    const card = await (await fetch(`${served.url}/.well-known/agent-card.json`, {
      headers: { "A2A-Version": "1.0" },
    })).json();
    assert.equal(card.name, "fixer");
    assert.equal(card.version, "1.0.0");
    assert.deepEqual(
      card.supportedInterfaces.map((i: { protocolVersion: string }) => i.protocolVersion),
      ["1.0", "0.3"],
    );
    assert.equal(card.url, undefined, "a v1.0 request gets the plain v1.0 card");

    const client = await new ClientFactory().createFromUrl(served.url);
    const task = await client.sendMessage(message("Add a third line to edit.txt.")) as Task;
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(task.status));
    assert.deepEqual(texts(task, "result"), ["Added a line."]);
    const [patch] = texts(task, "changes.patch");
    assert.match(patch, /^\+three$/m);
    const again = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    assert.equal(again.status?.state, TaskState.TASK_STATE_COMPLETED);
    // The run is an ordinary delegated task of this home.
    const list = await pg.json(["delegate", "list"]);
    assert.equal((list.body.items as unknown[]).length, 1);
    assert.deepEqual(treeOf(pg.repo), before);
  });
});

Deno.test("a2a serve: SendStreamingMessage streams the task, its progress, the artifacts and the end", async () => {
  await withServed(EDITS, async (_pg, served) => {
    const client = await new ClientFactory().createFromUrl(served.url);
    const kinds: string[] = [];
    const states: string[] = [];
    for await (const event of client.sendMessageStream(message("Add a line."))) {
      const payload = event.payload;
      if (!payload) continue;
      kinds.push(payload.$case);
      const status = payload.$case === "task" || payload.$case === "statusUpdate"
        ? payload.value.status
        : undefined;
      if (status) states.push(TaskState[status.state]);
    }
    assert.equal(kinds[0], "task");
    assert.equal(states.at(-1), "TASK_STATE_COMPLETED", JSON.stringify(states));
    assert.ok(states.includes("TASK_STATE_WORKING"), JSON.stringify(states));
    assert.equal(kinds.filter((k) => k === "artifactUpdate").length, 2, JSON.stringify(kinds));
  });
});

Deno.test("a2a serve: a v0.3 client (@a2a-js/sdk 0.3.14) gets the same run in v0.3 shapes", async () => {
  await withServed(EDITS, async (_pg, served) => {
    const hybrid = await (await fetch(`${served.url}/.well-known/agent-card.json`)).json();
    assert.equal(hybrid.protocolVersion, "0.3.0");
    assert.equal(hybrid.url, `${served.url}/`);
    const client = await new V03ClientFactory().createFromUrl(served.url);
    const task = await client.sendMessage(v03Message("Add a third line.")) as V03Task;
    assert.equal(task.kind, "task");
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    const patch = task.artifacts?.find((a) => a.name === "changes.patch");
    assert.ok(patch, JSON.stringify(task.artifacts));
    const part = patch.parts[0];
    assert.ok(part.kind === "text" && /^\+three$/m.test(part.text));
  });
});

/** Lets every WAITS run of `pg` answer. */
const release = (pg: LocalPlayground) => writeFileSync(join(pg.env.HOME!, "go"), "");

Deno.test("a2a serve: a v1.0 client gets, lists and resubscribes to a task that is still running", async () => {
  await withServed(WAITS, async (pg, served) => {
    const client = await new ClientFactory().createFromUrl(served.url);
    const started = await client.sendMessage(background("Take your time.")) as Task;
    const got = await client.getTask({ tenant: "", id: started.id, historyLength: 1 });
    assert.equal(got.id, started.id);
    assert.ok(
      [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(got.status!.state),
      TaskState[got.status!.state],
    );
    assert.equal(got.history.length, 1, "historyLength 1 keeps the brief");
    const listed = await client.listTasks(ListTasksRequest.fromJSON({}));
    assert.deepEqual(listed.tasks.map((t) => t.id), [started.id]);
    const states: string[] = [];
    for await (const event of client.resubscribeTask({ tenant: "", id: started.id })) {
      const payload = event.payload;
      if (payload?.$case === "task" || payload?.$case === "statusUpdate") {
        states.push(TaskState[payload.value.status!.state]);
      }
      // Subscribed first, then the run may end: the end must reach this stream.
      if (states.length === 1) release(pg);
    }
    assert.equal(states.at(-1), "TASK_STATE_COMPLETED", JSON.stringify(states));
    const done = await client.getTask({ tenant: "", id: started.id, historyLength: 0 });
    assert.deepEqual(texts(done, "result"), ["Late."]);
    const over = await client.listTasks(
      ListTasksRequest.fromJSON({ status: "TASK_STATE_WORKING" }),
    );
    assert.equal(over.tasks.length, 0, "no task is working any more");
  });
});

Deno.test("a2a serve: a v0.3 client gets and resubscribes to a task that is still running, and cancels another", async () => {
  await withServed(WAITS, async (pg, served) => {
    const client = await new V03ClientFactory().createFromUrl(served.url);
    const send = (text: string) =>
      client.sendMessage(v03Message(text, { blocking: false })) as Promise<V03Task>;
    const started = await send("Take your time.");
    assert.equal(started.kind, "task");
    const got = await client.getTask({ id: started.id });
    assert.ok(["submitted", "working"].includes(got.status.state), got.status.state);
    const states: string[] = [];
    for await (const event of client.resubscribeTask({ id: started.id })) {
      if (event.kind === "task" || event.kind === "status-update") states.push(event.status.state);
      if (states.length === 1) release(pg);
    }
    assert.equal(states.at(-1), "completed", JSON.stringify(states));
    const done = await client.getTask({ id: started.id });
    assert.ok(done.artifacts?.some((a) => a.name === "result"), JSON.stringify(done.artifacts));
    // The marker is there now, so make the next run wait again before canceling it.
    rmSync(join(pg.env.HOME!, "go"));
    const other = await send("Another.");
    const canceled = await client.cancelTask({ id: other.id });
    assert.equal(canceled.status.state, "canceled");
    assert.equal(running(pg), "", "no harness program is left");
  });
});

Deno.test("a2a serve --max-wait 1: a blocking send whose run outlasts the bound answers WORKING after it, in both versions; the run goes on to COMPLETED", async () => {
  await withServed(WAITS, async (pg, served) => {
    const client = await new ClientFactory().createFromUrl(served.url);
    const legacy = await new V03ClientFactory().createFromUrl(served.url);
    const began = Date.now();
    // Blocking, as the SDK's clients send by default.
    const held = await client.sendMessage(message("Take your time.")) as Task;
    const waited = Date.now() - began;
    assert.ok(waited >= 1000, `it waited for the run first: ${waited} ms`);
    assert.ok(
      [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(held.status!.state),
      TaskState[held.status!.state],
    );
    const brief = held.history[0]?.parts[0]?.content;
    assert.equal(brief?.$case === "text" && brief.value, "Take your time.", "with its history");
    const old = await legacy.sendMessage(v03Message("Also take your time.")) as V03Task;
    assert.equal(old.kind, "task");
    assert.ok(["submitted", "working"].includes(old.status.state), old.status.state);
    release(pg);
    // Followed as after returnImmediately: GetTask until it ends.
    for (const id of [held.id, old.id]) {
      let done = await client.getTask({ tenant: "", id, historyLength: 0 });
      while (!FINAL.has(done.status!.state)) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        done = await client.getTask({ tenant: "", id, historyLength: 0 });
      }
      assert.equal(TaskState[done.status!.state], "TASK_STATE_COMPLETED");
      assert.deepEqual(texts(done, "result"), ["Late."]);
    }
  }, ["--max-wait", "1"]);
});

Deno.test("a2a serve: CancelTask ends a run that is working, and the child with it", async () => {
  await withServed(WAITS, async (pg, served) => {
    const client = await new ClientFactory().createFromUrl(served.url);
    const started = await client.sendMessage(background("Take your time.")) as Task;
    assert.ok(started.id);
    // Working: the harness program runs.
    const harness = () => running(pg);
    const deadline = Date.now() + 30_000;
    while (harness() === "") {
      assert.ok(Date.now() < deadline, "the harness program never started");
      await new Promise((r) => setTimeout(r, 50));
    }
    const canceled = await client.cancelTask(
      { tenant: "", id: started.id, metadata: undefined },
      // A lost cancel would leave this waiting for a run that never ends.
      { signal: AbortSignal.timeout(30_000) },
    );
    assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
    const list = await pg.json(["delegate", "list"]);
    assert.match(JSON.stringify(list.body), /CANCELED/);
    assert.equal(harness(), "", "the harness program was ended with its task");
  });
});

Deno.test("a2a serve: a CancelTask sent at once, while the run is being set up, is not lost", async () => {
  await withServed(WAITS, async (pg, served) => {
    const client = await new ClientFactory().createFromUrl(served.url);
    for (let round = 0; round < 3; round++) {
      const started = await client.sendMessage(background("Take your time.")) as Task;
      const canceled = await client.cancelTask(
        { tenant: "", id: started.id, metadata: undefined },
        // A lost cancel would leave this waiting for a run that never ends.
        { signal: AbortSignal.timeout(30_000) },
      );
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED, `round ${round}`);
    }
    const list = await pg.json(["delegate", "list"]);
    for (const t of list.body.items as Array<{ status: { state: string } }>) {
      assert.equal(t.status.state, "TASK_STATE_CANCELED");
    }
    assert.equal(running(pg), "", "no harness program is left");
  });
});

Deno.test("a2a serve --max-concurrent 1: the next messages wait in SUBMITTED with their place in line; past the line's end they are rejected", async () => {
  await withServed(WAITS, async (pg, served) => {
    const client = await new ClientFactory().createFromUrl(served.url);
    const first = await client.sendMessage(background("First.")) as Task;
    const waiting: Task[] = [];
    for (let i = 0; i < 8; i++) {
      waiting.push(await client.sendMessage(background(`Next ${i}.`)) as Task);
    }
    const over = await client.sendMessage(message("One too many.")) as Task;
    assert.equal(over.status?.state, TaskState.TASK_STATE_REJECTED);
    assert.match(statusText(over), /busy: 8 messages already wait/);
    const second = await client.getTask({ tenant: "", id: waiting[0].id, historyLength: 0 });
    assert.equal(second.status?.state, TaskState.TASK_STATE_SUBMITTED);
    assert.match(statusText(second), /number 1 in line/);
    const last = await client.getTask({ tenant: "", id: waiting[7].id, historyLength: 0 });
    assert.match(statusText(last), /number 8 in line/);
    // One run at a time: only the first has a delegated task.
    const list = await pg.json(["delegate", "list"]);
    assert.equal((list.body.items as unknown[]).length, 1);
    // Canceling the first lets the next one start.
    await client.cancelTask({ tenant: "", id: first.id, metadata: undefined }, {
      signal: AbortSignal.timeout(30_000),
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const next = await client.getTask({ tenant: "", id: waiting[0].id, historyLength: 0 });
      if (next.status?.state === TaskState.TASK_STATE_WORKING) break;
      assert.ok(Date.now() < deadline, statusText(next));
      await new Promise((r) => setTimeout(r, 100));
    }
  }, ["--max-concurrent", "1"]);
});

Deno.test("a2a serve answers bad requests with the spec's JSON-RPC errors", async () => {
  await withServed(undefined, async (_pg, served) => {
    const post = async (body: string, version = "1.0") => {
      const res = await fetch(`${served.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": version },
        body,
      });
      return { status: res.status, body: await res.json() };
    };
    const rpc = (method: string, params: unknown, id: unknown = 1) =>
      JSON.stringify({ jsonrpc: "2.0", id, method, params });
    const cases: Array<[string, string, number]> = [
      ["not JSON", "{", -32700],
      ["no jsonrpc version", JSON.stringify({ id: 1, method: "GetTask" }), -32600],
      ["an object as id", rpc("SendMessage", {}, { bad: "type" }), -32600],
      ["an unknown method", rpc("SendMessageXXX", {}), -32601],
      ["a negative historyLength", rpc("ListTasks", { historyLength: -1 }), -32602],
      ["a timestamp that is none", rpc("ListTasks", { statusTimestampAfter: "-1" }), -32602],
      ["a page of 1000", rpc("ListTasks", { pageSize: 1000 }), -32602],
      ["an unknown task", rpc("GetTask", { id: "nope" }), -32001],
    ];
    for (const [what, body, code] of cases) {
      const r = await post(body);
      assert.equal(r.body.error?.code, code, `${what}: ${JSON.stringify(r.body)}`);
    }
    const huge = await post(rpc("SendMessage", { pad: "x".repeat(2 * 1024 * 1024) }));
    assert.equal(huge.status, 413);
    assert.equal(huge.body.error.code, -32600);
    const v03 = await post(rpc("tasks/get", { id: "nope" }), "0.3");
    assert.equal(v03.body.error.code, -32001, JSON.stringify(v03.body));
    const unsupported = await post(rpc("GetTask", { id: "x" }), "2.0");
    assert.equal(unsupported.body.error.code, -32009, JSON.stringify(unsupported.body));
  });
});

/** The resident memory of process `pid`, in KiB. */
function rssKiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
}

Deno.test("a2a serve: 1000 sends at once get one run, a line of 8 and clear rejections; memory stays bounded", async () => {
  await withServed(WAITS, async (_pg, served) => {
    const pid = served.child.pid!;
    const send = (i: number) =>
      fetch(`${served.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i,
          method: "SendMessage",
          params: {
            message: { messageId: `m${i}`, role: "ROLE_USER", parts: [{ text: `Job ${i}.` }] },
            configuration: { returnImmediately: true },
          },
        }),
      }).then((r) => r.json());
    // Warm the server up first, so the comparison is with a server that has answered.
    await send(-1);
    const before = rssKiB(pid);
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => send(i)));
    const after = rssKiB(pid);
    const states = new Map<string, number>();
    for (const a of answers) {
      const state = a.result?.task?.status?.state ?? `error ${a.error?.code}`;
      states.set(state, (states.get(state) ?? 0) + 1);
    }
    // The warm-up holds the one run slot: all 1000 wait in line (8) or are turned away.
    assert.deepEqual(Object.fromEntries(states), {
      TASK_STATE_SUBMITTED: 8,
      TASK_STATE_REJECTED: 992,
    });
    console.log(`1000 sends: RSS ${before >> 10} -> ${after >> 10} MiB`);
    // 1000 open connections and 1000 tasks in memory: about 100 MiB (a body each at the
    // 1 MiB cap, not taken, would be a GiB).
    assert.ok(after - before < 256 * 1024, `RSS grew from ${before} to ${after} KiB`);
    const busy = answers.find((a) => a.result?.task?.status?.state === "TASK_STATE_REJECTED");
    assert.match(busy.result.task.status.message.parts[0].text, /busy: 8 messages already wait/);
    const card = await fetch(`${served.url}/.well-known/agent-card.json`);
    assert.equal(card.status, 200, "still answering");
    await card.body?.cancel();
  }, ["--max-concurrent", "1"]);
});

Deno.test("a2a serve --token-file: the card declares bearer auth; requests without the token get 401, the SDK client with it gets the run", async () => {
  const pg = await localPlayground();
  pg.program("claude", EDITS);
  const token = "s3cret-token-of-32-characters-xx";
  const file = join(pg.root, "token");
  writeFileSync(file, `${token}\n`, { mode: 0o644 });
  const open = await pg.observal(["a2a", "serve", "--agent", pg.identifier, "--token-file", file]);
  assert.equal(open.code, 2, open.stderr);
  assert.match(open.stderr, /can be read by others.*\n.*chmod 600/s);
  chmodSync(file, 0o600);
  const served = await serve(pg, ["--token-file", file]);
  try {
    const v1 = await (await fetch(`${served.url}/.well-known/agent-card.json`, {
      headers: { "A2A-Version": "1.0" },
    })).json();
    assert.deepEqual(v1.securitySchemes, {
      bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } },
    });
    assert.deepEqual(v1.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);
    const v03 = await (await fetch(`${served.url}/.well-known/agent-card.json`)).json();
    assert.deepEqual(v03.securitySchemes, { bearer: { type: "http", scheme: "bearer" } });
    assert.deepEqual(v03.security, [{ bearer: [] }]);
    for (const authorization of [undefined, "Bearer wrong-token-wrong-token-xx", token]) {
      const res = await fetch(`${served.url}/`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "A2A-Version": "1.0",
          ...authorization ? { authorization } : {},
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
      });
      assert.equal(res.status, 401, `Authorization: ${authorization}`);
      assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
      await res.body?.cancel();
    }
    const withToken: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    const client = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })],
      }),
    ).createFromUrl(served.url);
    const task = await client.sendMessage(message("Add a line.")) as Task;
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(task.status));
  } finally {
    assert.equal(await served.stop(), 0, served.stderr());
    await pg.close();
  }
});

Deno.test("a2a serve: another observal imports the served card and delegates to it; the patch comes back", async () => {
  await withServed(EDITS, async (_pg, served) => {
    const caller = await callerHome(served);
    try {
      const run = await caller.run([
        "delegate",
        "run",
        caller.id,
        "Add a line.",
        "--wait",
        "60",
        "--json",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const task = JSON.parse(run.stdout);
      assert.equal(task.status.state, "TASK_STATE_COMPLETED");
      const patch = task.artifacts.find((a: { name?: string }) => a.name === "changes.patch");
      assert.match(patch.parts[0].text, /^\+three$/m);
    } finally {
      caller.close();
    }
  });
});

Deno.test("a2a serve refuses an address other machines reach, and a name the registry lacks", async () => {
  const pg = await localPlayground();
  try {
    const open = await pg.observal(["a2a", "serve", "--agent", pg.identifier, "--host", "0.0.0.0"]);
    assert.equal(open.code, 2, open.stderr);
    assert.match(open.stderr, /--token-file/);
    const missing = await pg.observal(["a2a", "serve", "--agent", "nobody", "--port", "0"]);
    assert.equal(missing.code, 5, missing.stderr);
    assert.match(missing.stderr, /No agent "nobody"/);
  } finally {
    await pg.close();
  }
});

Deno.test("doctor says which approved registry Agents a2a serve can serve here", async () => {
  const pg = await localPlayground();
  try {
    const check = async (path: string) => {
      const r = await pg.observal(["doctor", "--json"], { env: { PATH: path } });
      const body = JSON.parse(r.stdout) as { checks: { check: string; detail: string }[] };
      return body.checks.find((c) => c.check === "a2a serve")?.detail ?? "";
    };
    // Only the system's folders: no harness of the Agent's is installed.
    assert.match(await check("/usr/bin:/bin"), /can serve 0 of 1 .*; not: fixer \(/);
    pg.program("claude", EDITS);
    assert.match(await check(`${pg.bin}:/usr/bin:/bin`), /can serve 1 of 1 approved .*: fixer$/);
    // doctor asked the harness program its version in the caller's folder, not elsewhere.
    assert.match(readFileSync(join(pg.repo, "edit.txt"), "utf8"), /\nthree\n$/);
  } finally {
    await pg.close();
  }
});

Deno.test("a2a serve keeps serving the approved version while a newer one waits for review", async () => {
  await withServed(EDITS, async (pg, served) => {
    const admin = openRegistryClient(createContext({ env: pg.env, cwd: pg.repo }));
    try {
      const newer = await admin.publishAgent({
        yaml: agentYaml().replace("version: 1.0.0", "version: 1.1.0"),
        visibility: "public",
      });
      assert.equal(newer["obs:lifecycle"], "pending");
    } finally {
      admin.close();
    }
    // `delegate run` now refuses the Agent; the server runs the version it was started with.
    const direct = await pg.json(["delegate", "run", pg.identifier, "Hi.", "--wait", "0"]);
    assert.notEqual(direct.code, 0);
    const client = await new ClientFactory().createFromUrl(served.url);
    const task = await client.sendMessage(message("Add a line.")) as Task;
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, statusText(task));
    const list = await pg.json(["delegate", "list"]);
    const [run] = list.body.items as Array<{ metadata: { observal: Record<string, string> } }>;
    assert.equal(run.metadata.observal.version, "1.0.0");
    assert.equal(run.metadata.observal.digest, pg.digest);
    const card = await (await fetch(`${served.url}/.well-known/agent-card.json`, {
      headers: { "A2A-Version": "1.0" },
    })).json();
    assert.equal(card.version, "1.0.0");
  });
});
