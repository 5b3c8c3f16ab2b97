/**
 * `observal delegate cancel` on a task that has already ended: nothing to cancel, said in
 * words, with an exit code of its own (0 when it was already canceled).
 */
import assert from "node:assert/strict";
import type { Task, TaskState } from "../../lib/a2a/mod.ts";
import { TASK_EXIT } from "../../lib/cli/delegate/task_exit.ts";
import { MAIN } from "../support/process.ts";
import { playground } from "../support/delegation.ts";
import { taskHome } from "./_delegate_home.ts";

Deno.test("delegate cancel on a settled task says there was nothing to cancel", async () => {
  using h = taskHome();
  const cases: Array<[TaskState, number, RegExp]> = [
    ["TASK_STATE_CANCELED", 0, /^The task was already canceled; nothing more to do\.\n$/],
    ["TASK_STATE_COMPLETED", 12, /^Nothing to cancel: the task had already completed\.\n$/],
    ["TASK_STATE_FAILED", 12, /^Nothing to cancel: the task had already failed\.\n$/],
    ["TASK_STATE_REJECTED", 12, /^Nothing to cancel: the task had already been rejected\.\n$/],
  ];
  assert.equal(TASK_EXIT.nothingToCancel, 12);
  const codes = await h.observal(["help", "exit-codes"]);
  assert.match(
    codes.stdout,
    /^12 {2}nothing to cancel: the task had already completed, failed or been/m,
  );
  for (const [state, code, message] of cases) {
    const task = h.add({ state });
    const r = await h.observal(["delegate", "cancel", task.id]);
    assert.equal(r.code, code, `${state}: ${r.stderr}`);
    assert.match(r.stderr, message, state);
    assert.match(
      r.stdout,
      new RegExp(`Test Agent {2}${state.slice(11).toLowerCase()} {2}${task.id}`),
    );
    // Under --json the task as it stands, the same exit code, and nothing on stderr.
    const json = await h.observal(["delegate", "cancel", task.id, "--json"]);
    assert.equal(json.code, code, state);
    assert.equal((JSON.parse(json.stdout) as Task).status.state, state);
    assert.equal(json.stderr, "");
  }
});

Deno.test("delegate cancel exits 12 from a real process for a completed task, 0 for a running one", async () => {
  const pg = await playground({ behaviour: "slow" });
  try {
    const env = pg.env as Record<string, string>;
    const run = async (args: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, ...args],
        env,
        cwd: pg.home,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
    };
    const started = await pg.json(["delegate", "run", pg.identifier, "take your time", "-w", "0"]);
    const id = String(started.body.id);
    await pg.untilRemote(id);
    const first = await run(["delegate", "cancel", id.slice(0, 6)]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, "");
    const again = await run(["delegate", "cancel", id.slice(0, 6)]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /already canceled/);

    const done = await playground({ behaviour: "complete" });
    try {
      const ran = await done.json(["delegate", "run", done.identifier, "hello", "-w", "60"]);
      assert.equal(ran.code, 0, ran.stderr);
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "delegate", "cancel", String(ran.body.id)],
        env: done.env as Record<string, string>,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 12);
      assert.match(new TextDecoder().decode(out.stderr), /Nothing to cancel: .*completed/);
    } finally {
      await done.close();
    }
  } finally {
    await pg.close();
  }
});
