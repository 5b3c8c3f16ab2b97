/** `TaskStore.resolveId()`: a task named by the start of its id, refused when unclear. */
import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import { MAX_PREFIX_CANDIDATES, MIN_TASK_ID_PREFIX } from "../../lib/store/mod.ts";
import { makeTask, openFixture } from "./_helpers.ts";

/** A fresh task id that starts with `prefix`. */
function idStarting(prefix: string): string {
  const id = crypto.randomUUID();
  return prefix + id.slice(prefix.length);
}

Deno.test("resolveId() takes a whole id or a unique prefix and refuses the rest", () => {
  using fx = openFixture();
  const lone = fx.store.insert(
    makeTask({ id: idStarting("0a1b2c"), meta: { targetName: "Lone" } }),
  );
  const twins = ["3f2a0", "3f2a1"].map((p, i) =>
    fx.store.insert(makeTask({
      id: idStarting(p),
      state: i ? "TASK_STATE_INPUT_REQUIRED" : "TASK_STATE_COMPLETED",
      meta: { targetName: `Twin ${i}` },
    }))
  );
  const unknown = crypto.randomUUID();
  const cases: Array<[string, string | { code: string; message: RegExp }]> = [
    [lone.id, lone.id],
    [lone.id.slice(0, MIN_TASK_ID_PREFIX), lone.id],
    [lone.id.slice(0, 13), lone.id],
    [lone.id.slice(0, 35), lone.id],
    [twins[1].id.slice(0, 5), twins[1].id],
    // A whole id is taken as given: whoever looks it up says whether it exists.
    [unknown, unknown],
    ["3f2a", { code: "INVALID_ARGUMENT", message: /"3f2a" is ambiguous: it starts 2 tasks/ }],
    ["0a1", { code: "INVALID_ARGUMENT", message: /too short: give at least 4 characters/ }],
    ["", { code: "INVALID_ARGUMENT", message: /too short/ }],
    ["ffff", { code: "NOT_FOUND", message: /No delegated task with id "ffff"/ }],
    ["0A1B", { code: "NOT_FOUND", message: /No delegated task/ }],
    ["0a1b%", { code: "NOT_FOUND", message: /No delegated task/ }],
    ["../../etc/passwd", { code: "NOT_FOUND", message: /No delegated task/ }],
    [`${lone.id}0`, { code: "NOT_FOUND", message: /No delegated task/ }],
  ];
  for (const [input, expected] of cases) {
    if (typeof expected === "string") {
      assert.equal(fx.store.resolveId(input), expected, input);
      continue;
    }
    assert.throws(
      () => fx.store.resolveId(input),
      (e) =>
        e instanceof ObservalError && e.code === expected.code && expected.message.test(e.message),
      input,
    );
  }
});

Deno.test("resolveId() names the candidates of an ambiguous prefix with their agent and state", () => {
  using fx = openFixture();
  const twins = ["3f2a0", "3f2a1"].map((p, i) =>
    fx.store.insert(makeTask({
      id: idStarting(p),
      state: i ? "TASK_STATE_INPUT_REQUIRED" : "TASK_STATE_COMPLETED",
      meta: { targetName: `Twin ${i}` },
    }))
  );
  const err = (() => {
    try {
      fx.store.resolveId("3f2a");
    } catch (e) {
      return e as ObservalError;
    }
    throw new Error("not refused");
  })();
  assert.match(err.remediation ?? "", /^Give more of the id/);
  assert.ok(err.remediation?.includes(`  ${twins[0].id}  Twin 0  completed`), err.remediation);
  assert.ok(err.remediation?.includes(`  ${twins[1].id}  Twin 1  input required`), err.remediation);
  assert.doesNotMatch(err.remediation ?? "", /TASK_STATE_/);
});

Deno.test("resolveId() names at most five candidates and says there are more", () => {
  using fx = openFixture();
  for (let i = 0; i < MAX_PREFIX_CANDIDATES + 3; i++) {
    fx.store.insert(makeTask({ id: idStarting(`beef${i}`) }));
  }
  assert.throws(
    () => fx.store.resolveId("beef"),
    (e) => {
      const err = e as ObservalError;
      const named = (err.remediation ?? "").split("\n").filter((l) => /^ {2}beef/.test(l));
      return /it starts more than 5 tasks/.test(err.message) &&
        named.length === MAX_PREFIX_CANDIDATES && /\n {2}\.\.\.$/.test(err.remediation ?? "");
    },
  );
  assert.match(fx.store.resolveId("beef3"), /^beef3/);
});
