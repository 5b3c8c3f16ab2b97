/**
 * One A2A conversation with a served Agent, as a program, so a test can hold it inside a
 * network namespace: each brief is streamed in turn in the first task's `contextId`. It
 * prints a JSON array, one entry per brief: the final state, the `result` and
 * `changes.patch` texts, and every status text the stream carried.
 *
 * Usage: deno run -A conversation_client_main.ts <agent URL> <brief> [<brief> ...]
 */
import { TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { v1Message } from "./a2a_message.ts";

const [url, ...briefs] = Deno.args;
const client = await new ClientFactory().createFromUrl(url);
const out: Array<Record<string, unknown>> = [];
let contextId: string | undefined;
for (const brief of briefs) {
  const said: string[] = [];
  let id = "";
  for await (const event of client.sendMessageStream(v1Message(brief, { contextId }))) {
    const p = event.payload;
    if (p?.$case === "task") id = p.value.id;
    const status = p?.$case === "task" || p?.$case === "statusUpdate" ? p.value.status : undefined;
    for (const part of status?.message?.parts ?? []) {
      if (part.content?.$case === "text") said.push(part.content.value);
    }
  }
  const task = await client.getTask({ tenant: "", id, historyLength: 0 });
  contextId ??= task.contextId;
  const text = (name: string) =>
    (task.artifacts ?? []).filter((a) => a.name === name).flatMap((a) =>
      a.parts.flatMap((p) => p.content?.$case === "text" ? [p.content.value] : [])
    ).join("");
  out.push({
    state: TaskState[task.status?.state ?? 0],
    result: text("result"),
    patch: text("changes.patch"),
    said,
  });
}
console.log(JSON.stringify(out));
