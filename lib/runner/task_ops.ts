/** Small, shared task edits: messages, and settling a task with a status line. */
import { join, overwriteText, readText, writeText } from "../core/system/mod.ts";
import { type Context, isoSeconds } from "../core/mod.ts";
import type { Message, Task, TaskState } from "../a2a/tasks/mod.ts";
import type { TaskStore } from "../store/mod.ts";

export function userMessage(text: string, taskId: string, contextId: string): Message {
  return textMessage("ROLE_USER", text, taskId, contextId);
}

export function agentMessage(text: string, taskId: string, contextId: string): Message {
  return textMessage("ROLE_AGENT", text, taskId, contextId);
}

function textMessage(
  role: Message["role"],
  text: string,
  taskId: string,
  contextId: string,
): Message {
  return { messageId: crypto.randomUUID(), role, parts: [{ text }], taskId, contextId };
}

/** The `state` file's length: every state's name fits, so each rewrite is one length. */
const STATE_FILE_BYTES = 32;

/**
 * Tells waiters in other processes that the task changed (they watch its folder): its
 * `state` file is rewritten in place, padded to one length, as it changes a dozen times a run.
 */
export function markChanged(store: TaskStore, task: Task): Task {
  try {
    overwriteText(
      join(store.taskDir(task.id, { create: true }), "state"),
      `${task.status.state.padEnd(STATE_FILE_BYTES - 1)}\n`,
      0o600,
    );
  } catch { /* waiters still poll */ }
  return task;
}

/**
 * A failure's status line that names the log to read next: `<text> See <log>.` (once: a
 * text that names it already is kept as it is).
 */
export function namingLog(text: string, log: string): string {
  const said = text.trim();
  if (said.includes(log)) return said;
  return `${said.replace(/\.?$/, ".")} See ${log}.`;
}

/**
 * Sets a new state with a status line; a task that already settled is left as it is. With
 * `options.log` (a failure's), the line ends by naming that log and the task records it as
 * `metadata.observal.logPath`.
 */
export function settle(
  store: TaskStore,
  id: string,
  state: TaskState,
  text: string,
  ctx: Pick<Context, "clock">,
  options: { log?: string } = {},
): Task {
  const { log } = options;
  const { task } = store.update(id, (t) => ({
    ...t,
    status: {
      state,
      timestamp: isoSeconds(ctx.clock.now()),
      message: agentMessage(log ? namingLog(text, log) : text, t.id, t.contextId),
    },
    ...(log
      ? { metadata: { ...t.metadata, observal: { ...t.metadata.observal, logPath: log } } }
      : {}),
  }));
  return markChanged(store, task);
}

/**
 * A task folder's file holding the brief a new session needs when the session a follow-up
 * meant to resume has gone by the time its run starts (its own brief assumes the session).
 */
const NEW_SESSION_BRIEF_FILE = "new-session-brief.txt";

/** Keeps the brief a new session would need, in the task's folder. */
export function saveNewSessionBrief(taskDir: string, brief: string): void {
  writeText(join(taskDir, NEW_SESSION_BRIEF_FILE), brief);
}

/** The brief kept by {@linkcode saveNewSessionBrief}. */
export function readNewSessionBrief(taskDir: string): string {
  return readText(join(taskDir, NEW_SESSION_BRIEF_FILE));
}
