/** Small, shared task edits: messages, and settling a task with a status line. */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Context, isoSeconds } from "../core/mod.ts";
import type { Message, Task, TaskState } from "../a2a/mod.ts";
import type { TaskStore } from "../store/mod.ts";

export function userMessage(text: string, taskId: string, contextId: string): Message {
  return { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }], taskId, contextId };
}

export function agentMessage(text: string, taskId: string, contextId: string): Message {
  return { messageId: randomUUID(), role: "ROLE_AGENT", parts: [{ text }], taskId, contextId };
}

/** Tells waiters in other processes that the task changed (they watch its folder). */
export function markChanged(store: TaskStore, task: Task): Task {
  try {
    writeFileSync(
      join(store.taskDir(task.id, { create: true }), "state"),
      `${task.status.state}\n`,
    );
  } catch { /* waiters still poll */ }
  return task;
}

/** Sets a new state with a status line; a task that already settled is left as it is. */
export function settle(
  store: TaskStore,
  id: string,
  state: TaskState,
  text: string,
  ctx: Pick<Context, "clock">,
): Task {
  const { task } = store.update(id, (t) => ({
    ...t,
    status: {
      state,
      timestamp: isoSeconds(ctx.clock.now()),
      message: agentMessage(text, t.id, t.contextId),
    },
  }));
  return markChanged(store, task);
}
