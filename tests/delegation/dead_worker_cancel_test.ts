/**
 * A remote task whose worker dies is settled by whoever looks next, and its agent, still
 * working on it, is told to cancel it exactly once, before that command exits.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { createContext } from "../../lib/core/mod.ts";
import { openRegistryClient } from "../../lib/cli/open_registry_client.ts";
import { readPid, workerAlive } from "../../lib/delegation/mod.ts";
import { cancelDeadWorkersRemote } from "../../lib/delegation/_dead_worker_cancel.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { playground } from "../support/delegation.ts";

/** Resolves once the killed worker is gone (no longer a live process for the task). */
async function gone(pid: number, id: string, dir: string): Promise<void> {
  for (let i = 0; i < 600 && workerAlive(pid, id, dir); i++) {
    await new Promise((res) => setTimeout(res, 25));
  }
  assert.equal(workerAlive(pid, id, dir), false, `worker ${pid} still alive`);
}

Deno.test("kill -9 of a remote task's worker: the agent receives exactly one CancelTask", async () => {
  const pg = await playground({ behaviour: "slow" });
  try {
    const started = await pg.json(["delegate", "run", pg.identifier, "Long job", "--wait", "0"]);
    const id = String(started.body.id);
    const remote = await pg.untilRemote(id);
    const dir = join(pg.home, "delegations", id);
    const pid = readPid(dir);
    assert.ok(pid !== undefined);
    Deno.kill(pid, "SIGKILL");
    await gone(pid, id, dir);
    const cancels = () => pg.agent.requests.filter((r) => r.rpcMethod === "CancelTask");
    assert.equal(cancels().length, 0, "nobody has settled it yet");

    // Two callers look at once: one settles the task and tells the agent, before it exits.
    const looks = await Promise.all([
      pg.json(["delegate", "status", id]),
      pg.json(["delegate", "status", id]),
    ]);
    for (const look of looks) {
      assert.equal(look.code, 3, look.stderr);
      const task = look.body as unknown as Task;
      assert.equal(task.status.state, "TASK_STATE_FAILED");
      assert.match(JSON.stringify(task.status.message), /stopped unexpectedly/);
    }
    assert.equal(cancels().length, 1, "the settling command waited for its one cancel");
    assert.deepEqual(cancels()[0].body, {
      jsonrpc: "2.0",
      id: (cancels()[0].body as { id: unknown }).id,
      method: "CancelTask",
      params: { id: remote.metadata.observal.remoteTaskId },
    });
    assert.deepEqual(pg.agent.canceled, [remote.metadata.observal.remoteTaskId]);

    // Later looks and a reconcile find it settled: nothing more is sent.
    assert.equal((await pg.observal(["reconcile"])).code, 0);
    assert.equal((await pg.json(["delegate", "status", id])).code, 3);
    assert.equal(cancels().length, 1);
    const log = readFileSync(join(dir, "worker.log"), "utf8");
    assert.match(log, /stopped: asking the remote agent to cancel/);
    assert.doesNotMatch(log, /was not told|did not (answer|take)/);
  } finally {
    await pg.close();
  }
});

Deno.test("cancelDeadWorkersRemote() stops waiting at its bound when nobody answers, and logs it", async () => {
  // A registry that takes the connection and never answers.
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer(() => {/* never answers */});
  server.on("connection", (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const home = mkdtempSync(join(tmpdir(), "observal-dead-cancel-"));
  const ctx = createContext({
    env: { OBSERVAL_HOME: home, HOME: home, OBSERVAL_SERVER_URL: `http://127.0.0.1:${port}` },
    cwd: home,
  });
  const store = openTaskStore({ home, clock: ctx.clock });
  const registry = openRegistryClient(ctx);
  try {
    const task = store.insert({
      id: crypto.randomUUID(),
      contextId: crypto.randomUUID(),
      status: { state: "TASK_STATE_FAILED" },
      metadata: {
        observal: {
          target: "urn:air:registry.example:a2a:slow",
          kind: "a2a",
          depth: 0,
          chain: [],
          cwd: home,
          createdAt: "2026-09-27T10:00:00Z",
          remoteTaskId: "remote-1",
        },
      },
    });
    await cancelDeadWorkersRemote({ ctx, store, registry: () => registry }, task, 300);
    const log = readFileSync(join(store.taskDir(task.id), "worker.log"), "utf8");
    assert.match(log, /asking the remote agent to cancel remote-1/);
    assert.match(log, /did not answer the cancel within 0\.3 s/);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
    registry.close();
    store.close();
    rmSync(home, { recursive: true, force: true });
  }
});
