/**
 * Child process for concurrency_test.ts. Waits for "go" on stdin so every child starts
 * writing at the same moment, then prints one JSON line with what it saw.
 *
 *   _race_worker.ts <home> lifecycle                   insert a task, WORKING, COMPLETED
 *   _race_worker.ts <home> settle <state> <id>...      settle each task with <state>
 *   _race_worker.ts <home> reply <text> <id>...        reply <text> to each waiting task
 *   _race_worker.ts <home> cancel <id>...              request a cancel of each task
 */
import process from "node:process";
import type { TaskState } from "../../lib/a2a/mod.ts";
import { systemClock } from "../../lib/core/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { makeTask, withState } from "./_helpers.ts";

async function waitForGo(): Promise<void> {
  let seen = "";
  for await (const chunk of process.stdin) {
    seen += String(chunk);
    if (seen.includes("go")) return;
  }
}

const [home, mode, ...rest] = process.argv.slice(2);
const store = openTaskStore({ home, clock: systemClock });
process.stdout.write("ready\n");
await waitForGo();
try {
  if (mode === "lifecycle") {
    const task = store.insert(makeTask({ meta: { childSessionId: `s-${process.pid}` } }));
    const working = store.update(task.id, (t) => withState(t, "TASK_STATE_WORKING"));
    const done = store.update(task.id, (t) => withState(t, "TASK_STATE_COMPLETED"));
    const out = { id: task.id, changed: [working.changed, done.changed] };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } else if (mode === "settle") {
    const [state, ...ids] = rest;
    const results = ids.map((id) => {
      const r = store.update(id, (t) => withState(t, state as TaskState));
      return { id, changed: r.changed, state: r.task.status.state };
    });
    process.stdout.write(`${JSON.stringify(results)}\n`);
  } else if (mode === "reply") {
    const [text, ...ids] = rest;
    const results = ids.map((id) => {
      const r = store.acceptReply(id, [{ text }], (t) => withState(t, "TASK_STATE_WORKING"));
      return { id, accepted: r.accepted, reason: r.accepted ? undefined : r.reason };
    });
    process.stdout.write(`${JSON.stringify(results)}\n`);
  } else if (mode === "cancel") {
    const results = rest.map((id) => ({ id, seen: store.requestCancel(id).status.state }));
    process.stdout.write(`${JSON.stringify(results)}\n`);
  } else {
    throw new Error(`Unknown mode ${mode}`);
  }
} finally {
  store.close();
}
