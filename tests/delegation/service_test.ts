/**
 * DelegationService: replies and cancels as one atomic step each, workers that cannot
 * start, and waits that Ctrl-C stops. Tasks live in a real store; starts resolve agents in
 * a real embedded registry; where a worker runs, it is a real detached process talking to
 * a real A2A agent on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Part, Task } from "../../lib/a2a/mod.ts";
import { createContext, ObservalError } from "../../lib/core/mod.ts";
import {
  detachedLauncher,
  type LaunchWorker,
  REPLY_REFUSED_EXIT,
  ReplyRefusedError,
} from "../../lib/delegation/mod.ts";
import { INPUT_QUESTION } from "../support/a2a_agents.ts";
import { type Playground, playground } from "../support/delegation.ts";

const CALLER = { depth: 0, maxDepth: 2, chain: [] };

/** A launcher that starts nothing and records what it was asked to start. */
function recordingLauncher(): LaunchWorker & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign((taskId: string) => {
    calls.push(taskId);
    return 0;
  }, { calls });
}

/** A remote task waiting for input, stored directly. */
function waitingTask(pg: Playground, store: { insert(t: Task): Task }): Task {
  const id = crypto.randomUUID();
  const contextId = crypto.randomUUID();
  return store.insert({
    id,
    contextId,
    status: {
      state: "TASK_STATE_INPUT_REQUIRED",
      timestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      message: {
        messageId: "question-1",
        role: "ROLE_AGENT",
        parts: [{ text: "Approve?" }, { data: { tool: "shell", command: "ls" } }],
      },
    },
    history: [{ messageId: "brief", role: "ROLE_USER", parts: [{ text: "Do it" }] }],
    metadata: {
      observal: {
        target: pg.identifier,
        kind: "a2a",
        depth: 0,
        chain: [],
        cwd: pg.home,
        createdAt: "2026-09-27T10:00:00Z",
        remoteTaskId: "remote-1",
      },
    },
  });
}

/** A pid that surely belongs to no process now. */
function deadPid(): number {
  const child = spawnSync("true");
  return child.pid!;
}

function isRefused(reason: "answered" | "canceled") {
  return (err: unknown) => {
    assert.ok(err instanceof ReplyRefusedError, `expected a refusal, got ${err}`);
    assert.equal(err.reason, reason);
    assert.equal(err.exitCode, REPLY_REFUSED_EXIT);
    assert.match(err.message, /was not sent/);
    return true;
  };
}

Deno.test("reply() answers with text and data in one step: resumed, stored, launched once", async () => {
  const pg = await playground();
  const launch = recordingLauncher();
  const { service, store, close } = pg.service({ launch });
  try {
    const task = waitingTask(pg, store);
    const parts: Part[] = [{ text: "yes" }, { data: { approved: true } }];
    const resumed = await service.reply(task.id, parts, { waitSeconds: 0 });
    assert.equal(resumed.status.state, "TASK_STATE_WORKING");
    assert.deepEqual(resumed.history?.map((m) => m.messageId).slice(0, 2), ["brief", "question-1"]);
    assert.deepEqual(resumed.history?.at(-1)?.parts, parts);
    assert.deepEqual(launch.calls, [task.id]);
    assert.deepEqual(store.takeReply(task.id), parts, "the worker will send text and data");
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("reply() refuses a second answer to the same question with its own exit code", async () => {
  const pg = await playground();
  const launch = recordingLauncher();
  const { service, store, close } = pg.service({ launch });
  try {
    const task = waitingTask(pg, store);
    // Both callers began before either reply was taken.
    const since = new Date(Date.now() - 1000);
    await service.reply(task.id, "first", { since });
    await assert.rejects(service.reply(task.id, "second", { since }), isRefused("answered"));
    assert.deepEqual(launch.calls, [task.id], "one worker, for the first answer");
    assert.deepEqual(store.takeReply(task.id), [{ text: "first" }]);
    // While the agent works on the first answer, any other answer lost the race.
    await assert.rejects(service.reply(task.id, "meanwhile"), isRefused("answered"));
    // Once the task is over, a caller who began later simply finds no question.
    store.update(task.id, (t) => ({ ...t, status: { state: "TASK_STATE_COMPLETED" } }));
    await assert.rejects(service.reply(task.id, "later"), (err) => {
      assert.ok(err instanceof ObservalError && !(err instanceof ReplyRefusedError));
      assert.equal(err.exitCode, 6);
      assert.match(err.message, /waiting for input/);
      return true;
    });
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("reply() is refused once a cancel has claimed the question", async () => {
  const pg = await playground();
  const launch = recordingLauncher();
  const { service, store, close } = pg.service({ launch });
  try {
    const task = waitingTask(pg, store);
    store.requestCancel(task.id);
    await assert.rejects(service.reply(task.id, "too late"), isRefused("canceled"));
    assert.deepEqual(launch.calls, []);
    assert.equal(store.takeReply(task.id), undefined);
    await assert.rejects(service.reply(task.id, "   "), /The reply is empty/);
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("a resumed task is not failed by the previous worker's stale pid while its worker starts", async () => {
  const pg = await playground();
  const { service, store, close } = pg.service({
    launch: (taskId) => {
      // A status in another process, between the reply and the new worker's start.
      seen.push(service.get(taskId).status.state);
      return 0;
    },
  });
  const seen: string[] = [];
  try {
    const task = waitingTask(pg, store);
    // The worker that asked the question has exited; its pid is still on record.
    const dead = deadPid();
    store.setWorkerPid(task.id, dead);
    const dir = store.taskDir(task.id, { create: true });
    writeFileSync(join(dir, "worker.pid"), `${dead}\n`);
    const resumed = await service.reply(task.id, "go on", { waitSeconds: 0 });
    assert.deepEqual(seen, ["TASK_STATE_WORKING"]);
    assert.equal(resumed.status.state, "TASK_STATE_WORKING");
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("start() with a launcher that throws: the task is failed and the error says why and what to do", async () => {
  const pg = await playground();
  const { service, store, close } = pg.service({
    launch: () => {
      throw Object.assign(new Error("spawn EAGAIN"), { code: "EAGAIN" });
    },
  });
  try {
    await assert.rejects(service.start(pg.identifier, "Hi", { caller: CALLER }), (err) => {
      assert.ok(err instanceof ObservalError);
      assert.equal(err.exitCode, 9);
      assert.match(err.message, /worker for task \S+ could not be started: spawn EAGAIN/);
      assert.match(err.remediation ?? "", /marked failed.*full disk/);
      return true;
    });
    const { items } = store.list();
    assert.equal(items.length, 1);
    assert.equal(items[0].status.state, "TASK_STATE_FAILED");
    assert.match(JSON.stringify(items[0].status.message), /could not be started: spawn EAGAIN/);
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("start() where the worker's log cannot be opened: the task is failed, nothing runs", async () => {
  const pg = await playground();
  const real = detachedLauncher(createContext({ env: pg.env, cwd: pg.home }));
  const { service, store, close } = pg.service({
    launch: (taskId, dir, perms) => {
      // The log's place is taken by a folder, as on a home that was tampered with.
      rmSync(join(dir, "worker.log"), { force: true });
      mkdirSync(join(dir, "worker.log"));
      return real(taskId, dir, perms);
    },
  });
  try {
    await assert.rejects(
      service.start(pg.identifier, "Hi", { caller: CALLER, waitSeconds: 5 }),
      /could not be started: EISDIR/,
    );
    const [task] = store.list().items;
    assert.equal(task.status.state, "TASK_STATE_FAILED");
    assert.equal(store.workerPid(task.id), 0, "no worker was recorded");
    assert.equal(pg.agent.requests.filter((r) => r.rpcMethod).length, 0);
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("start() interrupted before the task exists leaves no task and no folder behind", async () => {
  const pg = await playground();
  const launch = recordingLauncher();
  const { service, store, close } = pg.service({ launch });
  try {
    const stop = new AbortController();
    stop.abort(new DOMException("Interrupted", "AbortError"));
    await assert.rejects(
      service.start(pg.identifier, "Hi", { caller: CALLER, signal: stop.signal }),
      (err) => err instanceof Error && err.name === "AbortError",
    );
    assert.equal(store.list().total, 0);
    assert.deepEqual(launch.calls, []);
    const root = join(pg.home, "delegations");
    const folders = existsSync(root)
      ? readdirSync(root).filter((n) => /^[0-9a-f-]{36}$/.test(n))
      : [];
    assert.deepEqual(folders, []);
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("wait() ends as soon as its signal aborts, returning the task still running", async () => {
  const pg = await playground();
  const { service, store, close } = pg.service({ launch: recordingLauncher() });
  try {
    const task = waitingTask(pg, store);
    await service.reply(task.id, "go", { waitSeconds: 0 });
    const stop = new AbortController();
    const started = performance.now();
    setTimeout(() => stop.abort(), 100);
    const seen = await service.wait(task.id, 600, { signal: stop.signal });
    assert.equal(seen.status.state, "TASK_STATE_WORKING");
    assert.ok(performance.now() - started < 5000, "returned on the abort, not the deadline");
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("cancel() of a waiting task claims it at once: a reply meanwhile is refused, the agent is told", async () => {
  const pg = await playground({ behaviour: "input" });
  const { service, store, close } = pg.service();
  try {
    const asked = await service.start(pg.identifier, "Notes", { caller: CALLER, waitSeconds: 60 });
    assert.equal(asked.status.state, "TASK_STATE_INPUT_REQUIRED");
    assert.match(JSON.stringify(asked.status.message), new RegExp(INPUT_QUESTION));
    const canceling = service.cancel(asked.id);
    // The claim is made before cancel() first waits on the network.
    const refused = await service.reply(asked.id, "Developers").then(() => undefined, (e) => e);
    const canceled = await canceling;
    // Checked after the cancel settled, so a failure here never leaves it running.
    isRefused("canceled")(refused);
    assert.equal(canceled.status.state, "TASK_STATE_CANCELED");
    assert.deepEqual(pg.agent.canceled, [asked.metadata.observal.remoteTaskId]);
    const sent = pg.agent.requests.filter((r) =>
      JSON.stringify(r.body ?? "").includes("Developers")
    );
    assert.equal(sent.length, 0, "the refused reply never reached the agent");
    assert.equal(store.takeReply(asked.id), undefined);
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("a cancel before a reply's worker starts: the reply is not sent and the agent is told", async () => {
  const pg = await playground({ behaviour: "input" });
  const real = detachedLauncher(createContext({ env: pg.env, cwd: pg.home }));
  let cancelFirst = false;
  const { service, store, close } = pg.service({
    launch: (taskId, dir, perms) => {
      if (cancelFirst) store.requestCancel(taskId);
      return real(taskId, dir, perms);
    },
  });
  try {
    const asked = await service.start(pg.identifier, "Notes", { caller: CALLER, waitSeconds: 60 });
    assert.equal(asked.status.state, "TASK_STATE_INPUT_REQUIRED");
    cancelFirst = true;
    const after = await service.reply(asked.id, "Developers", { waitSeconds: 60 });
    assert.equal(after.status.state, "TASK_STATE_CANCELED", JSON.stringify(after.status));
    assert.deepEqual(pg.agent.canceled, [asked.metadata.observal.remoteTaskId]);
    const sent = pg.agent.requests.filter((r) =>
      JSON.stringify(r.body ?? "").includes("Developers")
    );
    assert.equal(sent.length, 0, "the reply was dropped, not sent after the cancel");
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("cancel() of a running task that then stops for input still ends canceled; no reply gets in", async () => {
  const pg = await playground();
  const { service, store, close } = pg.service({ launch: recordingLauncher() });
  try {
    const task = waitingTask(pg, store);
    await service.reply(task.id, "go on", { waitSeconds: 0 });
    // cancel() makes its request and starts waiting for the worker before it yields.
    const canceling = service.cancel(task.id);
    // The worker (played here) sends the answer, the agent asks again before the worker
    // looks for the request, and the worker clears the request as it ends.
    assert.deepEqual(store.takeReply(task.id), [{ text: "go on" }]);
    store.update(task.id, (t) => ({
      ...t,
      status: {
        state: "TASK_STATE_INPUT_REQUIRED",
        message: { messageId: "question-2", role: "ROLE_AGENT", parts: [{ text: "More?" }] },
      },
    }));
    store.clearCancel(task.id);
    const late = await service.reply(task.id, "late").then(() => undefined, (e) => e);
    const canceled = await canceling;
    isRefused("canceled")(late);
    assert.equal(canceled.status.state, "TASK_STATE_CANCELED", JSON.stringify(canceled.status));
    assert.equal(store.takeReply(task.id), undefined);
  } finally {
    close();
    await pg.close();
  }
});

Deno.test("runRemote() handed over before it sent anything returns at once: the worker sends it", async () => {
  const pg = await playground({ behaviour: "complete" });
  const { service, store, close } = pg.service({ launch: recordingLauncher() });
  const registry = pg.registry();
  try {
    const task = await service.start(pg.identifier, "Not yet", { caller: CALLER, waitSeconds: 0 });
    const { runRemote } = await import("../../lib/runner/remote/mod.ts");
    const ran = await runRemote(
      { ctx: createContext({ env: pg.env, cwd: pg.home }), store, registry: () => registry },
      task,
      { handover: AbortSignal.abort() },
    );
    assert.equal(ran.status.state, "TASK_STATE_SUBMITTED");
    assert.equal(ran.metadata.observal.remoteTaskId, undefined);
    assert.deepEqual(pg.agent.requests.filter((r) => r.rpcMethod), [], "nothing was sent");
  } finally {
    registry.close();
    close();
    await pg.close();
  }
});
