/**
 * `observal delegate list` and `find`: one list envelope under --json, `--state` checked and
 * filtered, states in words for people.
 */
import assert from "node:assert/strict";
import type { Task, TaskState } from "../../lib/a2a/mod.ts";
import { ListEnvelopeSchema } from "../../lib/cli/list_envelope.ts";
import { taskHome } from "./_delegate_home.ts";

Deno.test("delegate list --json prints the list envelope, empty and not", async () => {
  using h = taskHome();
  const empty = await h.observal(["delegate", "list", "--json"]);
  assert.equal(empty.code, 0, empty.stderr);
  assert.deepEqual(ListEnvelopeSchema.parse(JSON.parse(empty.stdout)), { items: [], total: 0 });

  const tasks = Array.from({ length: 3 }, () => h.add());
  const some = await h.observal(["delegate", "list", "--json", "--limit", "2"]);
  const body = ListEnvelopeSchema.parse(JSON.parse(some.stdout));
  assert.equal(body.total, 3);
  // Items are whole tasks, as `status --json` prints them: `id` and `status.state`.
  const items = body.items as Task[];
  assert.deepEqual(items.map((t) => t.id), [tasks[2].id, tasks[1].id]);
  const status = await h.observal(["delegate", "status", tasks[2].id, "--json"]);
  assert.deepEqual(JSON.parse(status.stdout), items[0]);
});

Deno.test("delegate list --state filters by one or several states and refuses others", async () => {
  using h = taskHome();
  const states: TaskState[] = [
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_WORKING",
    "TASK_STATE_FAILED",
  ];
  const tasks = states.map((state) => h.add({ state }));
  const ids = (...picked: number[]) => picked.map((i) => tasks[i].id);
  const cases: Array<[string, string[] | RegExp]> = [
    ["failed", ids(4, 1)],
    ["input-required", ids(2)],
    ["failed,working", ids(4, 3, 1)],
    ["completed, input-required", ids(2, 0)],
    ["canceled", []],
    ["done", /--state cannot be "done"/],
    ["failed,input_required", /--state cannot be "input_required"/],
    ["FAILED", /--state cannot be "FAILED"/],
    [",", /--state cannot be ","/],
  ];
  for (const [flag, expected] of cases) {
    const r = await h.observal(["delegate", "list", "--state", flag, "--json"]);
    if (expected instanceof RegExp) {
      assert.equal(r.code, 2, flag);
      const error = JSON.parse(r.stderr).error;
      assert.match(error.message, expected, flag);
      assert.match(
        error.remediation,
        /submitted, working, input-required, auth-required, completed, failed, canceled, rejected/,
      );
      continue;
    }
    assert.equal(r.code, 0, `${flag}: ${r.stderr}`);
    const body = ListEnvelopeSchema.parse(JSON.parse(r.stdout));
    assert.deepEqual((body.items as Task[]).map((t) => t.id), expected, flag);
    assert.equal(body.total, expected.length, flag);
  }
  const none = await h.observal(["delegate", "list", "--state", "rejected"]);
  assert.equal(none.code, 0);
  assert.equal(none.stdout, "No delegated task is in that state.\n");
});

Deno.test("delegate list shows states in words, never as enum names", async () => {
  using h = taskHome();
  for (const state of ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"] as const) {
    h.add({ state });
  }
  const r = await h.observal(["delegate", "list"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /input required/);
  assert.match(r.stdout, /auth required/);
  assert.doesNotMatch(r.stdout, /TASK_STATE_|input-required/);
});

Deno.test("delegate find --json prints the list envelope when nothing matches", async () => {
  using h = taskHome();
  const r = await h.observal(["delegate", "find", "write", "release", "notes", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ListEnvelopeSchema.parse(JSON.parse(r.stdout)), { items: [], total: 0 });
});

Deno.test("delegate list names who started each task: the delegating agent or harness, else -", async () => {
  using h = taskHome();
  h.add({ meta: { parentHarness: "claude-code" } });
  h.add({ meta: { parentHarness: "codex", parentAgentId: "9f1c2d" } });
  h.add();
  const r = await h.observal(["delegate", "list"]);
  assert.equal(r.code, 0, r.stderr);
  const [header, ...rows] = r.stdout.trim().split("\n");
  assert.match(header, /\bBY$/);
  const by = rows.map((row) => row.split(/\s{2,}/).at(-1)).sort();
  assert.deepEqual(by, ["-", "agent 9f1c2d", "claude-code"]);
});
