/**
 * A local run that must let its task go: before the child starts (a run here whose wait
 * ended while the copy was made) nothing is left running or on disk, the task is left
 * unsettled, and a later run (the worker's) does the whole task; with the child running,
 * the record it leaves is checked against the task before a worker follows it. The
 * stand-in harness notes each start, so a second child would show.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isFinal } from "../../lib/a2a/mod.ts";
import { pidExists } from "../../lib/process/mod.ts";
import { runLocal } from "../../lib/runner/local/mod.ts";
import { countingClaude, localPlayground } from "../support/local_delegation.ts";

/** The playground with a counting stand-in, a task store and a service that starts no worker. */
async function setup(gated: boolean, launched: string[] = []) {
  const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: "off" } });
  pg.program("claude", countingClaude({ gated }));
  const starts = join(pg.root, "starts");
  const gate = join(pg.root, "gate");
  // No worker: the test runs the task itself.
  const launch = (id: string) => (launched.push(id), 0);
  const parts = pg.service({ env: { STARTS: starts, GATE: gate }, launch });
  const { ctx, store, registry, service } = parts;
  return {
    pg,
    starts,
    store,
    deps: { ctx, store, registry },
    start: () =>
      service.start(pg.identifier, "Edit it", {
        caller: service.caller(),
        harness: "claude-code",
        waitSeconds: 0,
      }),
    workspaces() {
      const ws = join(pg.home, "delegations", "ws");
      return existsSync(ws) ? readdirSync(ws) : [];
    },
    async close() {
      parts.close();
      await pg.close();
    },
  };
}

Deno.test("runLocal() told to let go before its child starts leaves nothing behind, and the next run does the task once", async () => {
  const launched: string[] = [];
  const s = await setup(false, launched);
  const { deps, store, starts } = s;
  try {
    const task = await s.start();
    assert.deepEqual(launched, [task.id]);
    const handover = new AbortController();
    handover.abort();
    const left = await runLocal(deps, store.require(task.id), { handover: handover.signal });
    assert.ok(!isFinal(left.status.state), left.status.state);
    assert.ok(!existsSync(starts), "no child was started");
    assert.deepEqual(s.workspaces(), [], "no copy is left");

    const done = await runLocal(deps, store.require(task.id));
    assert.equal(done.status.state, "TASK_STATE_COMPLETED", JSON.stringify(done.status));
    assert.equal(readFileSync(starts, "utf8").trim().split("\n").length, 1, "one child");
    assert.match(readFileSync(join(store.taskDir(task.id), "changes.patch"), "utf8"), /^\+four$/m);
    assert.deepEqual(s.workspaces(), []);
  } finally {
    await s.close();
  }
});

Deno.test("a handover record the child rewrote is refused: its child is stopped, nothing named in it is read or signalled", async () => {
  const s = await setup(true);
  const { deps, store } = s;
  const secret = join(s.pg.root, "secret.txt");
  writeFileSync(secret, "do not read me\n");
  const bystander = new Deno.Command("sleep", { args: ["30"] }).spawn();
  try {
    const task = await s.start();
    const handover = new AbortController();
    const running = runLocal(deps, store.require(task.id), { handover: handover.signal });
    for (let i = 0; i < 300 && !store.require(task.id).metadata.observal.childStartTime; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    handover.abort();
    const left = await running;
    assert.ok(!isFinal(left.status.state), left.status.state);
    const record = join(store.taskDir(task.id), "child.json");
    const handed = JSON.parse(readFileSync(record, "utf8"));
    const child = handed.child.pid as number;
    // What a child could write there: another process to follow, a file to read as its answer.
    handed.child.pid = bystander.pid;
    handed.run.plan.outputFile = secret;
    writeFileSync(record, JSON.stringify(handed));

    const done = await runLocal(deps, store.require(task.id));
    assert.equal(done.status.state, "TASK_STATE_FAILED");
    const said = done.status.message?.parts[0]?.text ?? "";
    assert.match(said, /does not match the task \(the child, the copy\)/);
    assert.doesNotMatch(JSON.stringify(done), /do not read me/);
    assert.ok(pidExists(bystander.pid), "the process named in the record is left alone");
    for (let i = 0; i < 100 && pidExists(child); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(!pidExists(child), "the task's own child is stopped");
    assert.deepEqual(s.workspaces(), [], "the copy is removed");
  } finally {
    bystander.kill("SIGKILL");
    await bystander.status;
    await s.close();
  }
});
