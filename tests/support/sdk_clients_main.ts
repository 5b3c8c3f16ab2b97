/**
 * The A2A SDKs' own clients against a served Agent, as a program, so a test can run them
 * inside a network namespace: @a2a-js/sdk 1.3.0 (v1.0) and 0.3.14 (v0.3) each send,
 * stream, get, list (v1.0 only: v0.3 has no tasks/list), resubscribe and cancel. It prints
 * one JSON object with what each step saw; the test asserts on it.
 *
 * Usage: deno run -A sdk_clients_main.ts <quick agent URL> <slow agent URL> <brief>
 * (the quick Agent answers at once; the slow one works until canceled).
 */
import { ListTasksRequest, type Task, TaskState } from "@a2a-js/sdk";
import { v1Message } from "./a2a_message.ts";
import { ClientFactory } from "@a2a-js/sdk/client";
import { ClientFactory as V03ClientFactory } from "a2a-sdk-v03/client";
import type { Task as V03Task } from "a2a-sdk-v03";

const [quickUrl, slowUrl, brief] = Deno.args;

const v1Texts = (task: Task, name: string) =>
  (task.artifacts ?? []).filter((a) => a.name === name).flatMap((a) =>
    a.parts.flatMap((p) => p.content?.$case === "text" ? [p.content.value] : [])
  ).join("");

async function v1(): Promise<Record<string, unknown>> {
  const quick = await new ClientFactory().createFromUrl(quickUrl);
  const slow = await new ClientFactory().createFromUrl(slowUrl);
  const sent = await quick.sendMessage(v1Message(brief)) as Task;
  const streamed: string[] = [];
  let streamedId = "";
  for await (const event of quick.sendMessageStream(v1Message(brief))) {
    const p = event.payload;
    if (p?.$case === "task") streamedId = p.value.id;
    const status = p?.$case === "task" || p?.$case === "statusUpdate" ? p.value.status : undefined;
    if (status) streamed.push(TaskState[status.state]);
  }
  const got = await quick.getTask({ tenant: "", id: sent.id, historyLength: 1 });
  const listed = await quick.listTasks(ListTasksRequest.fromJSON({ pageSize: 10 }));
  // The slow Agent's task: resubscribed while it works, canceled, and the stream ends.
  const started = await slow.sendMessage(v1Message(brief, { returnImmediately: true })) as Task;
  const resubscribed: string[] = [];
  for await (const event of slow.resubscribeTask({ tenant: "", id: started.id })) {
    const p = event.payload;
    const status = p?.$case === "task" || p?.$case === "statusUpdate" ? p.value.status : undefined;
    // From the first WORKING on (the run is under way), then cancel it once.
    if (!status || (resubscribed.length === 0 && status.state !== TaskState.TASK_STATE_WORKING)) {
      continue;
    }
    resubscribed.push(TaskState[status.state]);
    if (resubscribed.length === 1) {
      await slow.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    }
  }
  const canceled = await slow.getTask({ tenant: "", id: started.id, historyLength: 0 });
  return {
    sent: {
      state: TaskState[sent.status!.state],
      result: v1Texts(sent, "result"),
      patch: v1Texts(sent, "changes.patch"),
    },
    streamed: { id: streamedId, states: streamed },
    got: { state: TaskState[got.status!.state], history: got.history.length },
    listed: listed.tasks.map((t) => t.id),
    resubscribed,
    canceled: TaskState[canceled.status!.state],
  };
}

async function v03(): Promise<Record<string, unknown>> {
  const quick = await new V03ClientFactory().createFromUrl(quickUrl);
  const slow = await new V03ClientFactory().createFromUrl(slowUrl);
  const message = (blocking = true) => ({
    message: {
      kind: "message" as const,
      messageId: crypto.randomUUID(),
      role: "user" as const,
      parts: [{ kind: "text" as const, text: brief }],
    },
    configuration: { blocking },
  });
  const sent = await quick.sendMessage(message()) as V03Task;
  const streamed: string[] = [];
  for await (const event of quick.sendMessageStream(message())) {
    if (event.kind === "task" || event.kind === "status-update") streamed.push(event.status.state);
  }
  const got = await quick.getTask({ id: sent.id });
  const started = await slow.sendMessage(message(false)) as V03Task;
  const resubscribed: string[] = [];
  for await (const event of slow.resubscribeTask({ id: started.id })) {
    if (event.kind !== "task" && event.kind !== "status-update") continue;
    if (resubscribed.length === 0 && event.status.state !== "working") continue;
    resubscribed.push(event.status.state);
    if (resubscribed.length === 1) await slow.cancelTask({ id: started.id });
  }
  const canceled = await slow.getTask({ id: started.id });
  const text = (name: string) =>
    (sent.artifacts ?? []).filter((a) => a.name === name).flatMap((a) =>
      a.parts.flatMap((p) => p.kind === "text" ? [p.text] : [])
    ).join("");
  return {
    sent: { state: sent.status.state, result: text("result"), patch: text("changes.patch") },
    streamed,
    got: got.status.state,
    resubscribed,
    canceled: canceled.status.state,
  };
}

console.log(JSON.stringify({ v1: await v1(), v03: await v03() }));
