/**
 * Every delegate command that takes a task id takes its first characters too: a unique
 * prefix of at least four, refused when it names several tasks (naming them) or none.
 */
import assert from "node:assert/strict";
import type { Task } from "../../lib/a2a/mod.ts";
import { idStarting, taskHome } from "./_delegate_home.ts";

/** Each command with the arguments it needs after the task id; all leave settled tasks be. */
const COMMANDS: string[][] = [
  ["status"],
  ["logs"],
  ["cancel"],
  ["reply", "an answer"],
];

Deno.test("delegate commands take a unique task id prefix", async () => {
  using h = taskHome();
  const task = h.add({ id: idStarting("5eed1"), state: "TASK_STATE_CANCELED" });
  h.write(task.id, "worker.log", "task canceled\n");
  for (const [command, ...rest] of COMMANDS) {
    for (const given of [task.id, task.id.slice(0, 4), task.id.slice(0, 9)]) {
      const r = await h.observal(["delegate", command, given, ...rest, "--json"]);
      const label = `${command} ${given}`;
      if (command === "reply") {
        // Found, then refused for what it is: a remote task that no longer waits.
        assert.equal(r.code, 6, `${label}: ${r.stderr}`);
        assert.match(JSON.parse(r.stderr).error.message, new RegExp(`Task ${task.id} is canceled`));
        continue;
      }
      // A canceled task: status says it ended unsuccessfully; cancel has nothing to do.
      assert.equal(r.code, command === "status" ? 3 : 0, `${label}: ${r.stderr}`);
      const body = JSON.parse(r.stdout);
      if (command === "logs") assert.match(body.items[0].path, new RegExp(task.id));
      else assert.equal((body as Task).id, task.id, label);
    }
  }
});

Deno.test("delegate commands refuse an ambiguous, unknown or too short task id prefix", async () => {
  using h = taskHome();
  const twins = [
    h.add({ id: idStarting("abcd0"), name: "Reviewer", state: "TASK_STATE_COMPLETED" }),
    h.add({ id: idStarting("abcd1"), name: "Writer", state: "TASK_STATE_INPUT_REQUIRED" }),
  ];
  const cases: Array<[string, number, RegExp]> = [
    ["abcd", 2, /Task id "abcd" is ambiguous: it starts 2 tasks/],
    ["abc", 2, /Task id "abc" is too short: give at least 4 characters/],
    ["ffff0", 5, /No delegated task with id "ffff0"/],
    ["not-an-id", 5, /No delegated task with id "not-an-id"/],
  ];
  for (const [command, ...rest] of COMMANDS) {
    for (const [given, code, message] of cases) {
      const r = await h.observal(["delegate", command, given, ...rest]);
      const label = `${command} ${given}`;
      assert.equal(r.code, code, `${label}: ${r.stderr}`);
      assert.match(r.stderr, message, label);
      if (given === "abcd") {
        // The candidates, with their agent and state in words, to pick from.
        assert.match(r.stderr, new RegExp(`${twins[0].id} {2}Reviewer {2}completed`), label);
        assert.match(r.stderr, new RegExp(`${twins[1].id} {2}Writer {2}input required`), label);
      }
      assert.doesNotMatch(r.stderr, /TASK_STATE_/, label);
    }
  }
});
