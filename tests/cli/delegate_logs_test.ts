/**
 * `observal delegate logs`: the end of a task's logs, bounded however large they are, and a
 * failed task that names the log to read.
 */
import assert from "node:assert/strict";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { MAX_TAIL_BYTES, readTail } from "../../lib/cli/delegate/_tail.ts";
import { ListEnvelopeSchema } from "../../lib/cli/list_envelope.ts";
import { systemClock } from "../../lib/core/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { playground } from "../support/delegation.ts";
import { FAILURE_TEXT } from "../support/a2a_agents.ts";
import { localPlayground } from "../support/local_delegation.ts";
import { taskHome } from "./_delegate_home.ts";

interface LogItem {
  name: string;
  path: string;
  bytes: number;
  lines: number;
  whole: boolean;
  tail: string;
}

function logItems(stdout: string): LogItem[] {
  return ListEnvelopeSchema.parse(JSON.parse(stdout)).items as LogItem[];
}

Deno.test("readTail() returns the last lines of a file, and says when it is all of it", () => {
  using h = taskHome();
  const task = h.add();
  const cases: Array<[string, number, { text: string; lines: number; whole: boolean }]> = [
    ["", 5, { text: "", lines: 0, whole: true }],
    ["one\n", 5, { text: "one", lines: 1, whole: true }],
    ["one\ntwo\nthree\n", 2, { text: "two\nthree", lines: 2, whole: false }],
    ["one\ntwo\nthree", 2, { text: "two\nthree", lines: 2, whole: false }],
    ["one\ntwo\nthree\n", 3, { text: "one\ntwo\nthree", lines: 3, whole: true }],
    ["one\n\n\nfour\n", 3, { text: "\n\nfour", lines: 3, whole: false }],
    ["a\r\nb\r\n", 1, { text: "b\r", lines: 1, whole: false }],
  ];
  for (const [content, lines, expected] of cases) {
    const path = h.write(task.id, "worker.log", content);
    const tail = readTail(path, lines);
    assert.deepEqual(
      { text: tail.text, lines: tail.lines, whole: tail.whole },
      expected,
      JSON.stringify(content),
    );
    assert.equal(tail.bytes, new TextEncoder().encode(content).length);
  }
});

Deno.test("delegate logs reads a huge log from its end, never more than its byte cap", async () => {
  using h = taskHome();
  const task = h.add();
  // 6 GiB, almost all of it a hole: reading it whole would take far too long (or fail).
  const path = join(h.dir(task.id), "worker.log");
  const fd = openSync(path, "w");
  const end = 6 * 1024 ** 3;
  const tail = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n") + "\n";
  const bytes = new TextEncoder().encode(tail);
  writeSync(fd, bytes, 0, bytes.length, end - bytes.length);
  closeSync(fd);
  const shown = await h.observal(["delegate", "logs", task.id.slice(0, 6), "--lines", "3"]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout, `==> ${path} <== (last 3 lines)\nline 97\nline 98\nline 99\n`);

  // One line longer than the cap: shown cut, and no more than the cap.
  h.write(task.id, "stdout.log", `start${"x".repeat(MAX_TAIL_BYTES * 4)}end\n`);
  const json = await h.observal(["delegate", "logs", task.id, "--json", "--lines", "10000"]);
  const [worker, stdout] = logItems(json.stdout);
  assert.equal(worker.bytes, end);
  assert.equal(worker.lines, 100);
  assert.equal(worker.whole, false);
  assert.equal(stdout.name, "stdout");
  assert.match(stdout.tail, /^…x+end$/);
  assert.ok(stdout.tail.length <= MAX_TAIL_BYTES + 1, `${stdout.tail.length} characters`);
  const human = await h.observal(["delegate", "logs", task.id]);
  assert.match(human.stdout, new RegExp(`==> .*stdout\\.log <== \\(the last 256 KiB\\)\\n…x`));
});

Deno.test("delegate logs says so for a task without logs, and escapes what a log holds", async () => {
  using h = taskHome();
  const bare = h.add();
  const none = await h.observal(["delegate", "logs", bare.id]);
  assert.equal(none.code, 0, none.stderr);
  assert.equal(none.stdout, `Task ${bare.id} has no logs.\n`);
  const json = await h.observal(["delegate", "logs", bare.id, "--json"]);
  assert.deepEqual(JSON.parse(json.stdout), { items: [], total: 0 });

  const noisy = h.add();
  h.write(noisy.id, "worker.log", "ok\x1b[2J\x1b]0;owned\x07\n");
  const shown = await h.observal(["delegate", "logs", noisy.id]);
  assert.match(shown.stdout, /ok\\x1b\[2J\\x1b\]0;owned\\x07\n/);
  const empty = h.add();
  h.write(empty.id, "worker.log", "");
  assert.match(
    (await h.observal(["delegate", "logs", empty.id])).stdout,
    /worker\.log <== \(empty\)\n$/,
  );
});

Deno.test("a remote task's logs: its worker's log; its failure names that log", async () => {
  const pg = await playground({ behaviour: "fail" });
  try {
    const run = await pg.json(["delegate", "run", pg.identifier, "please fail", "--wait", "60"]);
    assert.equal(run.code, 3, run.stderr);
    const task = run.body as unknown as Task;
    const log = join(pg.home, "delegations", task.id, "worker.log");
    // The agent's own words stay its status line; the log is recorded beside them.
    assert.equal(task.metadata.observal.logPath, log);
    const human = await pg.observal(["delegate", "status", task.id.slice(0, 8)]);
    assert.equal(human.code, 3);
    assert.match(human.stdout, new RegExp(`${FAILURE_TEXT.replace(".", "\\.")}\n\nLog: ${log}\n`));
    assert.match(human.stdout, new RegExp(`Show its logs: observal delegate logs ${task.id}\n`));
    assert.match(human.stdout, / {2}failed {2}/);

    // The worker writes its closing line just after settling the task, so a caller that saw
    // the failure may read the log a moment before that line is there.
    const closing = new RegExp(`task ${task.id} failed`);
    let items = logItems((await pg.observal(["delegate", "logs", task.id, "--json"])).stdout);
    for (let i = 0; i < 100 && !closing.test(items[0]?.tail ?? ""); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      items = logItems((await pg.observal(["delegate", "logs", task.id, "--json"])).stdout);
    }
    assert.deepEqual(items.map((i) => [i.name, i.path]), [["worker", log]]);
    assert.match(items[0].tail, closing);
  } finally {
    await pg.close();
  }
});

Deno.test("a task whose worker died fails with a message that names the worker's log", async () => {
  using h = taskHome();
  const task = h.add({ state: "TASK_STATE_WORKING" });
  const log = h.write(task.id, "worker.log", "the last thing it said\n");
  const gone = new Deno.Command("true").spawn();
  await gone.status;
  {
    using store = openTaskStore({ home: h.home, clock: systemClock });
    store.setWorkerPid(task.id, gone.pid);
  }
  const r = await h.observal(["delegate", "status", task.id]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(`The delegation worker stopped unexpectedly\\. See ${log}\\.\n`),
  );
  // Named once: the status line says it already.
  assert.doesNotMatch(r.stdout, /^Log: /m);
  const json = JSON.parse((await h.observal(["delegate", "status", task.id, "--json"])).stdout);
  assert.equal((json as Task).metadata.observal.logPath, log);
});

/** A stand-in harness that says a little on stdout, complains on stderr and fails. */
const FAILING_CLAUDE = `#!/bin/sh
cat > /dev/null
i=0
while [ $i -lt 120 ]; do echo "progress $i"; i=$((i + 1)); done
echo "the model is unreachable" >&2
exit 1
`;

Deno.test("a local task's logs: the worker's and its harness's stdout and stderr", async () => {
  const pg = await localPlayground();
  try {
    pg.program("claude", FAILING_CLAUDE);
    const run = await pg.json(
      ["delegate", "run", pg.identifier, "--harness", "claude-code", "--wait", "60", "--", "Fix"],
    );
    assert.equal(run.code, 3, run.stderr);
    const task = run.body as unknown as Task;
    const dir = join(pg.home, "delegations", task.id);
    const stderr = join(dir, "stderr.log");
    assert.equal(task.metadata.observal.logPath, stderr);
    assert.match(
      task.status.message?.parts[0].text ?? "",
      new RegExp(`the model is unreachable\\. See ${stderr}\\.$`),
    );

    const logs = await pg.json(["delegate", "logs", task.id, "--lines", "2"]);
    assert.equal(logs.code, 0, logs.stderr);
    const items = logItems(JSON.stringify(logs.body));
    assert.deepEqual(items.map((i) => i.name), ["worker", "stdout", "stderr"]);
    const [, out, err] = items;
    assert.deepEqual([out.path, out.tail, out.lines, out.whole], [
      join(dir, "stdout.log"),
      "progress 118\nprogress 119",
      2,
      false,
    ]);
    assert.deepEqual([err.tail, err.whole], ["the model is unreachable", true]);
    const human = await pg.observal(["delegate", "logs", task.id.slice(0, 4), "-n", "1"]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(
      human.stdout,
      new RegExp(`==> ${dir}/stdout\\.log <== \\(last 1 line\\)\nprogress 119\n`),
    );
    assert.match(human.stdout, /stderr\.log <== \(all 1 line\)\nthe model is unreachable\n$/);
  } finally {
    await pg.close();
  }
});
