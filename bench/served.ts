/**
 * What serving a registry Agent over A2A costs over running it locally: the same Agent, the
 * same stand-in harness (it edits one file and answers at once; a language model cannot run
 * here) and the same small repository, with the sandbox on. Rows, medians of interleaved
 * rounds:
 *
 * - local: the real `observal delegate run` command, from process start to exit;
 * - served: a blocking SendMessage from the A2A SDK's client to a running `observal a2a
 *   serve`, until the completed task (answer and patch) is back, as a ratio to local;
 * - first event: a SendStreamingMessage until its first event (the task, SUBMITTED) and
 *   until the first WORKING status.
 *
 *   deno run -A bench/served.ts [--runs 9]
 */
import { type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { localPlayground } from "../tests/support/local_delegation.ts";
import { median, runsFlag, STAND_IN, timedDelegateRun } from "./_local_run.ts";
import { v1Message } from "../tests/support/a2a_message.ts";
import { serve } from "../tests/support/served_agent.ts";

const runs = runsFlag();

const pg = await localPlayground();
pg.program("claude", STAND_IN);

const message = (text: string) => v1Message(text);

const server = await serve(pg, ["--sandbox", "on"]);
try {
  const client = await new ClientFactory().createFromUrl(server.url);

  const served = async (): Promise<number> => {
    const t = performance.now();
    const task = await client.sendMessage(message("Edit it.")) as Task;
    const ms = performance.now() - t;
    const state = task.status?.state;
    if (state !== TaskState.TASK_STATE_COMPLETED) {
      throw new Error(`served run ended ${state === undefined ? "?" : TaskState[state]}`);
    }
    if (!task.artifacts?.some((a) => a.name === "changes.patch")) throw new Error("no patch");
    return ms;
  };
  const streamed = async (): Promise<[number, number]> => {
    const t = performance.now();
    let firstEvent = 0;
    let working = 0;
    for await (const event of client.sendMessageStream(message("Edit it."))) {
      const now = performance.now() - t;
      firstEvent ||= now;
      const payload = event.payload;
      const status = payload?.$case === "task" || payload?.$case === "statusUpdate"
        ? payload.value.status
        : undefined;
      if (status?.state === TaskState.TASK_STATE_WORKING) working ||= now;
    }
    return [firstEvent, working];
  };

  // Warm-up: the sandbox probe's cache, Deno's module cache, the server's first run.
  timedDelegateRun(pg, "on");
  await served();
  await streamed();
  const rows = { local: [] as number[], served: [] as number[], first: [] as number[] };
  const working: number[] = [];
  for (let i = 0; i < runs; i++) {
    rows.local.push(timedDelegateRun(pg, "on"));
    rows.served.push(await served());
    const [f, w] = await streamed();
    rows.first.push(f);
    working.push(w);
  }
  const l = median(rows.local);
  const s = median(rows.served);
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`served Agent against a local run (${runs} interleaved rounds, medians, sandbox on)`);
  console.log(`  local: delegate run, process start to exit   ${fmt(l)}`);
  console.log(`  served: SendMessage to the completed task    ${fmt(s)}  ${(s / l).toFixed(2)}x`);
  console.log(`  SendStreamingMessage to its first event      ${fmt(median(rows.first))}`);
  console.log(`  SendStreamingMessage to the first WORKING    ${fmt(median(working))}`);
} finally {
  const code = await server.stop();
  if (code !== 0) console.error(`a2a serve exited ${code}: ${server.stderr()}`);
  await pg.close();
}
