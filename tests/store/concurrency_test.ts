/**
 * Several processes share one tasks.db: each runs tests/store/_race_worker.ts, waits for
 * "go", then writes at the same moment as the others.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { systemClock } from "../../lib/core/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { makeTask } from "./_helpers.ts";

const WORKER = fileURLToPath(new URL("./_race_worker.ts", import.meta.url));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Starts every child, waits until each has opened the store, then tells them all to go. */
async function race(home: string, argvs: string[][]): Promise<Outcome[]> {
  const runs = argvs.map((args) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", WORKER, home, ...args],
      env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    const read = async (stream: ReadableStream<Uint8Array>, onText?: (t: string) => void) => {
      const decoder = new TextDecoder();
      let text = "";
      for await (const chunk of stream) {
        text += decoder.decode(chunk, { stream: true });
        onText?.(text);
      }
      return text;
    };
    const outcome = Promise.all([
      child.status,
      read(child.stdout, (t) => t.startsWith("ready\n") && markReady()),
      read(child.stderr),
    ]).then(([status, stdout, stderr]) => ({ code: status.code, stdout, stderr }));
    // A child that dies before "ready" must not leave the race waiting forever.
    void outcome.then(markReady);
    return { child, ready, outcome };
  });
  await Promise.all(runs.map((r) => r.ready));
  await Promise.all(runs.map(async ({ child }) => {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("go\n")).catch(() => {});
    await writer.close().catch(() => {});
  }));
  return await Promise.all(runs.map((r) => r.outcome));
}

function assertClean(outcomes: Outcome[]): void {
  for (const o of outcomes) {
    assert.equal(o.code, 0, o.stderr);
    assert.doesNotMatch(o.stderr, /locked|busy/i);
  }
}

Deno.test("TaskStore survives 20 processes writing to one store at once", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-store-race-"));
  try {
    // The store is created by the children themselves, so migrations race too.
    const outcomes = await race(home, Array.from({ length: 20 }, () => ["lifecycle"]));
    assertClean(outcomes);
    const reports = outcomes.map((o) => JSON.parse(o.stdout.split("\n")[1]));
    using store = openTaskStore({ home, clock: systemClock });
    const page = store.list({ limit: 200 });
    assert.equal(page.total, 20);
    assert.deepEqual(
      page.items.map((t) => t.id).sort(),
      reports.map((r) => r.id).sort(),
    );
    for (const task of page.items) assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    for (const r of reports) assert.deepEqual(r.changed, [true, true]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

Deno.test("TaskStore lets exactly one of two racing processes settle a task", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-store-settle-"));
  try {
    const ids: string[] = [];
    {
      using store = openTaskStore({ home, clock: systemClock });
      for (let i = 0; i < 20; i++) {
        ids.push(store.insert(makeTask({ state: "TASK_STATE_WORKING" })).id);
      }
    }
    // Opposite orders, so the two meet in the middle and each is likely to win some.
    const outcomes = await race(home, [
      ["settle", "TASK_STATE_COMPLETED", ...ids],
      ["settle", "TASK_STATE_CANCELED", ...ids.toReversed()],
    ]);
    assertClean(outcomes);
    type Report = { id: string; changed: boolean; state: string };
    const [done, canceled] = outcomes.map((o) =>
      new Map((JSON.parse(o.stdout.split("\n")[1]) as Report[]).map((r) => [r.id, r]))
    );
    using store = openTaskStore({ home, clock: systemClock });
    for (const id of ids) {
      const a = done.get(id)!;
      const b = canceled.get(id)!;
      assert.equal(a.changed !== b.changed, true, `exactly one winner for ${id}`);
      const winner = a.changed ? "TASK_STATE_COMPLETED" : "TASK_STATE_CANCELED";
      // The loser is handed the task as the winner left it, and the store agrees.
      assert.equal(a.state, winner);
      assert.equal(b.state, winner);
      assert.equal(store.require(id).status.state, winner);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

/** The JSON report line a child printed after "ready". */
function report<T>(o: Outcome): T {
  return JSON.parse(o.stdout.split("\n")[1]) as T;
}

Deno.test("acceptReply() takes exactly one of four racing replies per question", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-store-reply-"));
  try {
    const ids: string[] = [];
    {
      using store = openTaskStore({ home, clock: systemClock });
      for (let i = 0; i < 20; i++) {
        ids.push(store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" })).id);
      }
    }
    // Each child walks the tasks in its own order, so winners are spread out.
    const orders = [ids, ids.toReversed(), [...ids.slice(10), ...ids.slice(0, 10)], [
      ...ids.slice(5),
      ...ids.slice(0, 5),
    ]];
    const outcomes = await race(home, orders.map((order, n) => ["reply", `answer-${n}`, ...order]));
    assertClean(outcomes);
    type Report = { id: string; accepted: boolean; reason?: string };
    const reports = outcomes.map((o) => new Map(report<Report[]>(o).map((r) => [r.id, r])));
    using store = openTaskStore({ home, clock: systemClock });
    const wins = new Set<number>();
    for (const id of ids) {
      const winners = reports.flatMap((m, n) => m.get(id)!.accepted ? [n] : []);
      assert.equal(winners.length, 1, `exactly one reply taken for ${id}`);
      wins.add(winners[0]);
      for (const m of reports) {
        if (!m.get(id)!.accepted) assert.equal(m.get(id)!.reason, "not-waiting");
      }
      // The answer the worker will send is the winner's, and it is there exactly once.
      assert.deepEqual(store.takeReply(id), [{ text: `answer-${winners[0]}` }]);
      assert.equal(store.takeReply(id), undefined);
      assert.equal(store.require(id).status.state, "TASK_STATE_WORKING");
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

Deno.test("acceptReply() and requestCancel() racing on a question: one outcome per task", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-store-reply-cancel-"));
  try {
    const ids: string[] = [];
    {
      using store = openTaskStore({ home, clock: systemClock });
      for (let i = 0; i < 20; i++) {
        ids.push(store.insert(makeTask({ state: "TASK_STATE_INPUT_REQUIRED" })).id);
      }
    }
    const outcomes = await race(home, [["reply", "answer", ...ids], [
      "cancel",
      ...ids.toReversed(),
    ]]);
    assertClean(outcomes);
    const replies = new Map(
      report<{ id: string; accepted: boolean; reason?: string }[]>(outcomes[0]).map((r) => [
        r.id,
        r,
      ]),
    );
    const cancels = new Map(
      report<{ id: string; seen: string }[]>(outcomes[1]).map((r) => [r.id, r]),
    );
    using store = openTaskStore({ home, clock: systemClock });
    for (const id of ids) {
      const reply = replies.get(id)!;
      const cancel = cancels.get(id)!;
      if (reply.accepted) {
        // The reply came first: the cancel found a resumed task, for its worker to stop.
        assert.equal(cancel.seen, "TASK_STATE_WORKING", id);
        assert.deepEqual(store.takeReply(id), [{ text: "answer" }]);
      } else {
        // The cancel claimed the question first: the reply was refused and left nothing.
        assert.equal(cancel.seen, "TASK_STATE_INPUT_REQUIRED", id);
        assert.equal(reply.reason, "canceling", id);
        assert.equal(store.takeReply(id), undefined);
      }
      assert.equal(store.cancelRequested(id), true);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
