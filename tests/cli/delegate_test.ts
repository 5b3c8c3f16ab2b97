/**
 * `observal delegate` output and arguments, on a real task store in a temp home: what an
 * agent said is shown safely and readably, `--json` keeps it whole, answers are checked
 * before anything is sent, a damaged store is reported and recovered.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Part, Task, TaskState } from "../../lib/a2a/mod.ts";
import { createContext, systemClock } from "../../lib/core/mod.ts";
import { loadServiceCode } from "../../lib/cli/delegate/_service.ts";
import { DATA_PREVIEW_LINES } from "../../lib/cli/delegate/print.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { cli } from "../support/cli.ts";

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const HOSTILE = "Done\x1b[2J\x1b]0;owned\x07 \x9b1;1H";

interface Home {
  home: string;
  env: Record<string, string>;
  add(options: { state: TaskState; parts?: Part[]; name?: string; artifact?: string }): Task;
  [Symbol.dispose](): void;
}

function tempHome(): Home {
  const home = mkdtempSync(join(tmpdir(), "observal-cli-delegate-"));
  return {
    home,
    env: { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" },
    add({ state, parts, name, artifact }) {
      const id = crypto.randomUUID();
      const task: Task = {
        id,
        contextId: crypto.randomUUID(),
        status: {
          state,
          timestamp: "2026-09-27T10:00:00Z",
          ...(parts ? { message: { messageId: "q1", role: "ROLE_AGENT", parts } } : {}),
        },
        history: [],
        artifacts: artifact
          ? [{ artifactId: "result", name: "result", parts: [{ text: artifact }] }]
          : [],
        metadata: {
          observal: {
            target: "urn:air:test:a2a:agent",
            targetName: name ?? "Test Agent",
            kind: "a2a",
            depth: 0,
            chain: [],
            cwd: home,
            createdAt: "2026-09-27T10:00:00Z",
          },
        },
      };
      using store = openTaskStore({ home, clock: systemClock });
      store.insert(task);
      return task;
    },
    [Symbol.dispose]: () => rmSync(home, { recursive: true, force: true }),
  };
}

Deno.test("delegate status and list escape an agent's control sequences; --json keeps them", async () => {
  using h = tempHome();
  const task = h.add({
    state: "TASK_STATE_COMPLETED",
    parts: [{ text: HOSTILE }],
    name: "Evil\x1b[31m Agent",
    artifact: `answer\x1b[1A\x1b[2Kline two\r\nend`,
  });
  const status = await cli(["delegate", "status", task.id], { env: h.env });
  assert.equal(status.code, 0, status.stderr);
  assert.doesNotMatch(status.stdout, CONTROL);
  assert.match(status.stdout, /Done\\x1b\[2J\\x1b\]0;owned\\x07 \\x9b1;1H/);
  assert.match(status.stdout, /Evil\\x1b\[31m Agent/);
  assert.match(status.stdout, /answer\\x1b\[1A\\x1b\[2Kline two\nend/);
  const list = await cli(["delegate", "list"], { env: h.env, tty: true });
  assert.doesNotMatch(list.stdout, CONTROL);
  assert.match(list.stdout, /Evil\\x1b\[31m Agent/);
  const json = await cli(["delegate", "status", task.id, "--json"], { env: h.env });
  assert.doesNotMatch(json.stdout, CONTROL);
  const back = JSON.parse(json.stdout) as Task;
  assert.equal(back.status.message?.parts[0].text, HOSTILE, "--json keeps the data");
  assert.equal(back.metadata.observal.targetName, "Evil\x1b[31m Agent");
});

Deno.test("delegate status shows a question's data part as indented JSON, bounded; --json whole", async () => {
  using h = tempHome();
  const approval = { tool: "run_shell_command", command: "npm test", options: { cwd: "." } };
  const task = h.add({
    state: "TASK_STATE_INPUT_REQUIRED",
    parts: [{ text: "Allow this tool call?" }, { data: approval }],
  });
  const r = await cli(["delegate", "status", task.id], { env: h.env });
  assert.equal(r.code, 10);
  const expected = [
    "Allow this tool call?",
    "data:",
    "  {",
    '    "tool": "run_shell_command",',
    '    "command": "npm test",',
    '    "options": {',
    '      "cwd": "."',
    "    }",
    "  }",
  ].join("\n");
  assert.ok(r.stdout.includes(`${expected}\n`), r.stdout);
  assert.match(r.stdout, new RegExp(`observal delegate reply ${task.id} --data '<JSON object>'`));

  const big = Object.fromEntries(
    Array.from({ length: 500 }, (_, i) => [`key${i}`, "v".repeat(20)]),
  );
  const large = h.add({ state: "TASK_STATE_INPUT_REQUIRED", parts: [{ data: big }] });
  const shown = await cli(["delegate", "status", large.id], { env: h.env });
  const dataLines = shown.stdout.split("\n").filter((l) => l.startsWith("  "));
  assert.ok(dataLines.length <= DATA_PREVIEW_LINES + 1, `${dataLines.length} lines shown`);
  assert.match(shown.stdout, /… \(\d+ more lines; --json shows all of it\)/);
  const json = await cli(["delegate", "status", large.id, "--json"], { env: h.env });
  assert.deepEqual((JSON.parse(json.stdout) as Task).status.message?.parts[0].data, big);
});

Deno.test("delegate reply checks the answer before anything is sent", async () => {
  using h = tempHome();
  const task = h.add({ state: "TASK_STATE_INPUT_REQUIRED", parts: [{ text: "Which?" }] });
  writeFileSync(join(h.home, "list.json"), "[1, 2]");
  // Sparse: its size says it all, and it is never read.
  writeFileSync(join(h.home, "huge.json"), "");
  truncateSync(join(h.home, "huge.json"), 50 * 1024 * 1024);
  const cases: Array<[string[], RegExp]> = [
    [[], /Missing the answer/],
    [["--data", "{nope"], /--data is not valid JSON/],
    [["--data", "[1, 2]"], /--data must hold a JSON object/],
    [["--data", "{}", "--data-file", "x.json"], /--data or --data-file, not both/],
    [["--data-file", "missing.json"], /Cannot read missing\.json/],
    [["--data-file", "list.json"], /list\.json must hold a JSON object/],
    [
      ["--data-file", "huge.json"],
      /huge\.json is 52428800 bytes; a data answer may hold at most 1048576/,
    ],
  ];
  for (const [flags, message] of cases) {
    const r = await cli(["delegate", "reply", task.id, ...flags], { env: h.env, cwd: h.home });
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  using store = openTaskStore({ home: h.home, clock: systemClock });
  assert.equal(store.require(task.id).status.state, "TASK_STATE_INPUT_REQUIRED");
  assert.equal(store.takeReply(task.id), undefined, "nothing was stored");
});

Deno.test("help exit-codes lists the reply-refused, still-running and interrupted codes", async () => {
  using h = tempHome();
  const r = await cli(["help", "exit-codes"], { env: h.env });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^10 {2}a delegated task is still running .*Ctrl-C/m);
  assert.match(r.stdout, /^11 {2}a reply was refused: another reply or a cancel got there first/m);
  assert.match(r.stdout, /^130 interrupted \(Ctrl-C\) before any task was started/m);
});

Deno.test("delegate cancel of a task that already completed says nothing was canceled", async () => {
  using h = tempHome();
  const task = h.add({ state: "TASK_STATE_COMPLETED", artifact: "done" });
  const r = await cli(["delegate", "cancel", task.id], { env: h.env });
  assert.equal(r.code, 12);
  assert.match(r.stdout, /completed/);
  assert.match(r.stderr, /Nothing to cancel: the task had already completed/);
});

Deno.test("a damaged task store names the file and `delegate recover` rebuilds it", async () => {
  using h = tempHome();
  for (let i = 0; i < 3; i++) h.add({ state: "TASK_STATE_COMPLETED" });
  const path = join(h.home, "delegations", "tasks.db");
  writeFileSync(path, crypto.getRandomValues(new Uint8Array(32 * 1024)));
  const broken = await cli(["delegate", "list"], { env: h.env });
  assert.equal(broken.code, 9);
  assert.match(broken.stderr, new RegExp(`task store ${path} is damaged`));
  assert.match(broken.stderr, /Run `observal delegate recover`/);
  assert.doesNotMatch(broken.stderr, /\n\s+at /, "no stack trace");

  const fixed = await cli(["delegate", "recover"], { env: h.env });
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.match(fixed.stdout, /Kept 3 tasks \(3 from their task folders\); lost 0 tasks/);
  assert.match(fixed.stdout, /moved aside: .*tasks\.db\.damaged-\d{8}T\d{6}Z/);
  const after = await cli(["delegate", "list", "--json"], { env: h.env });
  assert.equal(after.code, 0);
  assert.equal(JSON.parse(after.stdout).total, 3);
  const again = await cli(["delegate", "recover", "--json"], { env: h.env });
  assert.equal(JSON.parse(again.stdout).state, "healthy");
});

for (const [damage, word] of [["deleted", "missing"], ["truncated to 0 bytes", "empty"]]) {
  Deno.test(`delegate list refuses a tasks.db ${damage} and names \`delegate recover\`, which brings every task back`, async () => {
    using h = tempHome();
    const tasks = Array.from(
      { length: 10 },
      (_, i) => h.add({ state: i < 3 ? "TASK_STATE_WORKING" : "TASK_STATE_COMPLETED" }),
    );
    const path = join(h.home, "delegations", "tasks.db");
    for (const suffix of ["-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    if (word === "missing") rmSync(path);
    else Deno.truncateSync(path, 0);
    const refused = await cli(["delegate", "list"], { env: h.env });
    assert.equal(refused.code, 9);
    assert.match(refused.stderr, new RegExp(`tasks\\.db is ${word}, but 10 task folders remain`));
    assert.match(refused.stderr, /Run `observal delegate recover`/);
    const left = word === "missing" ? !existsSync(path) : Deno.statSync(path).size === 0;
    assert.ok(left, "no empty store made in its place");
    const json = await cli(["delegate", "list", "--json"], { env: h.env });
    assert.equal(json.code, 9);
    assert.equal(JSON.parse(json.stderr).error.errorCode, "UNAVAILABLE");

    const r = await cli(["delegate", "recover", "--json"], { env: h.env });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.state, "recovered");
    assert.equal(report.problem, `tasks.db is ${word}`);
    assert.deepEqual([report.kept, report.fromFolders, report.lost], [10, 10, 0]);
    assert.equal(report.movedAside.length, word === "empty" ? 1 : 0);
    const list = await cli(["delegate", "list", "--json"], { env: h.env });
    const page = JSON.parse(list.stdout) as { items: Task[]; total: number };
    assert.equal(page.total, 10);
    assert.deepEqual(page.items.map((t) => t.id), tasks.map((t) => t.id).toReversed());
    const working = await cli(["delegate", "list", "--json", "--state", "working"], {
      env: h.env,
    });
    assert.equal(JSON.parse(working.stdout).total, 3);
  });
}

Deno.test("delegate recover keeps every task of a truncated store", async () => {
  using h = tempHome();
  const tasks = Array.from(
    { length: 60 },
    (_, i) => h.add({ state: "TASK_STATE_COMPLETED", artifact: `result ${i} `.repeat(80) }),
  );
  const path = join(h.home, "delegations", "tasks.db");
  const db = new DatabaseSync(path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  const size = Deno.statSync(path).size;
  Deno.truncateSync(path, Math.floor(size / 2));
  const r = await cli(["delegate", "recover", "--json"], { env: h.env });
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.state, "recovered");
  assert.deepEqual([report.kept, report.lost], [tasks.length, 0], JSON.stringify(report));
  const list = await cli(["delegate", "list", "--json", "--limit", "200"], { env: h.env });
  assert.equal(JSON.parse(list.stdout).total, report.kept);
});

Deno.test("delegate prune removes task folders no stored task owns, never ws/", async () => {
  using h = tempHome();
  const task = h.add({ state: "TASK_STATE_WORKING" });
  const root = join(h.home, "delegations");
  const orphan = join(root, crypto.randomUUID());
  const owned = join(root, task.id);
  const ws = join(root, "ws");
  for (const dir of [orphan, owned, ws]) mkdirSync(dir, { recursive: true });
  const old = new Date(Date.now() - 2 * 86_400_000);
  for (const dir of [orphan, owned, ws]) utimesSync(dir, old, old);
  const r = await cli(["delegate", "prune", "--older-than", "1"], { env: h.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Removed 1 task folder no task owns/);
  assert.equal(existsSync(orphan), false);
  assert.ok(existsSync(owned) && existsSync(ws));
  const json = await cli(["delegate", "prune", "--older-than", "1", "--json"], { env: h.env });
  assert.equal(JSON.parse(json.stdout).orphans, 0);
});

Deno.test("the MCP server's warm-up loads the code of a first call and opens nothing", async () => {
  const home = await Deno.makeTempDir({ prefix: "observal-warm-" });
  try {
    for (
      const env of [{ OBSERVAL_HOME: home }, {
        OBSERVAL_HOME: home,
        OBSERVAL_SERVER_URL: "https://observal.example",
      }]
    ) {
      await loadServiceCode(createContext({ env, cwd: home }));
    }
    assert.deepEqual([...Deno.readDirSync(home)], [], "no store, registry or folder made");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
