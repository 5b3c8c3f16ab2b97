/**
 * What a served Agent's executor reads from an A2A message (its text, its files, its
 * conversation) and the task and status events it publishes.
 * @module
 */
import { Message as SdkMessage, Task as SdkTask, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import { AgentEvent, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import type { ReceivedFile } from "../a2a/mod.ts";
import type { Task } from "../a2a/tasks/mod.ts";

/** The text of a message's text parts. */
export function textOf(message: RequestContext["userMessage"]): string {
  return message.parts
    .flatMap((p) => p.content?.$case === "text" ? [p.content.value] : [])
    .join("\n")
    .trim();
}

/** The message's file parts. */
export function filesOf(message: RequestContext["userMessage"]): ReceivedFile[] {
  return message.parts.flatMap((p) =>
    p.content?.$case === "raw"
      ? [{ bytes: p.content.value, mediaType: p.mediaType || undefined, filename: p.filename }]
      : []
  );
}

/** The message as a task's history keeps it: its file parts (a repository state) left out. */
function keptMessage(
  message: RequestContext["userMessage"],
  taskId: string,
  contextId: string,
) {
  const json = SdkMessage.toJSON(message) as { parts?: Array<Record<string, unknown>> };
  return { ...json, parts: (json.parts ?? []).filter((p) => !("raw" in p)), taskId, contextId };
}

/**
 * A stored task's status as the A2A client sees it (no local metadata), stamped when it is
 * published: the store keeps whole seconds, and ListTasks sorts and filters by this
 * timestamp, so tasks changed within one second must still come in order.
 */
export function statusEvent(taskId: string, contextId: string, task: Task) {
  const status = { ...task.status, timestamp: new Date().toISOString() };
  if (status.message) status.message = { ...status.message, taskId, contextId };
  return AgentEvent.statusUpdate(
    TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status }),
  );
}

/** A status of our own making (queueing, refusals), with an agent message. */
function ownStatus(
  taskId: string,
  contextId: string,
  state: Task["status"]["state"],
  text: string,
) {
  return {
    state,
    timestamp: new Date().toISOString(),
    message: {
      messageId: crypto.randomUUID(),
      role: "ROLE_AGENT",
      taskId,
      contextId,
      parts: [{ text }],
    },
  };
}

/** An event that moves a task to a status of our own making. */
export function ownStatusEvent(...args: Parameters<typeof ownStatus>) {
  const [taskId, contextId] = args;
  return AgentEvent.statusUpdate(
    TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: ownStatus(...args) }),
  );
}

/**
 * A conversation's key: its contextId, and who calls (with registry keys each user has
 * their own conversations: another's contextId starts a new one).
 */
export function conversationKey(request: RequestContext): string {
  return `${request.context?.user?.userName ?? ""}\n${request.contextId}`;
}

/** The text of a task's artifact named `name` ("" when there is none). */
export function artifactText(task: Task, name: string): string {
  const artifact = task.artifacts?.find((a) => a.name === name);
  return (artifact?.parts ?? []).flatMap((p) => typeof p.text === "string" ? [p.text] : [])
    .join("\n");
}

/** The task as first shown: SUBMITTED, or already REJECTED with the reason. */
export function firstTask(request: RequestContext, state: Task["status"]["state"], text?: string) {
  const { taskId, contextId } = request;
  return AgentEvent.task(SdkTask.fromJSON({
    id: taskId,
    contextId,
    status: text
      ? ownStatus(taskId, contextId, state, text)
      : { state, timestamp: new Date().toISOString() },
    // Same id as the message: the SDK then keeps this copy, without the megabytes.
    history: [keptMessage(request.userMessage, taskId, contextId)],
  }));
}

/** Ends the task in a status of our own making. */
export function endWith(
  bus: ExecutionEventBus,
  request: RequestContext,
  state: Task["status"]["state"],
  text: string,
): void {
  bus.publish(ownStatusEvent(request.taskId, request.contextId, state, text));
  bus.finished();
}
