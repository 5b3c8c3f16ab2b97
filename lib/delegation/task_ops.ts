/** Small, shared task edits: messages, and settling a task with a status line. */
import { randomUUID } from "node:crypto";
import { type Context, isoSeconds } from "../core/mod.ts";
import type { Message, Task, TaskState } from "../a2a/mod.ts";
import type { TaskStore } from "../store/mod.ts";

export function userMessage(text: string, taskId: string, contextId: string): Message {
  return { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }], taskId, contextId };
}

export function agentMessage(text: string, taskId: string, contextId: string): Message {
  return { messageId: randomUUID(), role: "ROLE_AGENT", parts: [{ text }], taskId, contextId };
}

/** Sets a new state with a status line; a task that already settled is left as it is. */
export function settle(
  store: TaskStore,
  id: string,
  state: TaskState,
  text: string,
  ctx: Pick<Context, "clock">,
): Task {
  return store.update(id, (t) => ({
    ...t,
    status: {
      state,
      timestamp: isoSeconds(ctx.clock.now()),
      message: agentMessage(text, t.id, t.contextId),
    },
  })).task;
}
