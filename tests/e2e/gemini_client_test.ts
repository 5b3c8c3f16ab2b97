/**
 * Gemini CLI (pinned, from npm) as the A2A client of a served Agent: a user-level remote
 * subagent points at `observal a2a serve`, the scripted model calls Gemini's `invoke_agent`
 * tool, Gemini delegates over A2A v0.3, the served Agent runs (a stand-in harness program)
 * and its answer reaches Gemini's model in the next request. The model server, the served
 * Agent, a recording proxy in front of it and Gemini share a loopback-only network
 * namespace where the machine allows one.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { describeA2aTraffic, startA2aRecorder } from "../support/gemini_a2a.ts";
import { ensureHarnessCli, harnessTestEnv } from "../support/harness_clis.ts";
import { localPlayground, treeOf } from "../support/local_delegation.ts";
import { type RecordedRequest, scriptText } from "../support/model_server.ts";
import { startModelServerInNetns } from "../support/netns.ts";
import { serve } from "../support/served_agent.ts";

/** Gemini's name for the remote subagent. */
const AGENT = "fixer";
/** What Gemini's model asks the served Agent to do. */
const BRIEF = "Check the parser for off-by-one bugs and report.";
/** Unique per run, so only this run's served Agent can have said it. */
const ANSWER = `No off-by-one bugs in the parser (checked ${crypto.randomUUID().slice(0, 8)}).`;
const HEARD = "The fixer agent said: ";

/** Answers as `claude -p --output-format json` does. */
const STAND_IN = `#!/bin/sh
cat > /dev/null
printf '%s\\n' '${JSON.stringify({ type: "result", result: ANSWER, is_error: false })}'
`;

async function drain(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text;
}

function killGroup(pid: number): void {
  try {
    Deno.kill(-pid, "SIGKILL");
  } catch { /* the group is gone */ }
}

/** The function responses to `invoke_agent` that a Gemini request carries, as JSON text. */
function invokeResponses(q: RecordedRequest): string[] {
  const contents = (q.body as { contents?: { parts?: Record<string, unknown>[] }[] })?.contents;
  return (contents ?? []).flatMap((c) => c.parts ?? []).flatMap((p) => {
    const r = p.functionResponse as { name?: string; response?: unknown } | undefined;
    return r?.name === "invoke_agent" ? [JSON.stringify(r.response)] : [];
  });
}

Deno.test("Gemini CLI delegates to a served Agent through invoke_agent; the Agent's answer reaches Gemini's model", async () => {
  const cli = await ensureHarnessCli("gemini-cli");
  const model = await startModelServerInNetns();
  const pg = await localPlayground();
  try {
    pg.program("claude", STAND_IN);
    const before = treeOf(pg.repo);
    const served = await serve(pg, [], { enter: model.enter });
    try {
      const recorder = await startA2aRecorder({ enter: model.enter, target: served.url });
      try {
        const home = join(pg.root, "gemini-home");
        const env = harnessTestEnv("gemini-cli", { home, modelUrl: model.url });
        // A user-level remote subagent: the card comes through the recorder, which names
        // itself as the endpoint, so every A2A call is recorded.
        mkdirSync(join(home, ".gemini", "agents"), { recursive: true });
        writeFileSync(
          join(home, ".gemini", "agents", `${AGENT}.md`),
          `---\nkind: remote\nname: ${AGENT}\nagent_card_url: ${recorder.cardUrl}\n---\n`,
        );
        const workspace = join(pg.root, "client");
        mkdirSync(workspace);
        const prompt = `Have the ${AGENT} agent check the parser. ` + scriptText([
          { call: { tool: "invoke_agent", args: { agent_name: AGENT, prompt: BRIEF } } },
          { echo: HEARD },
        ]);
        // Its own process group (setsid), so whatever Gemini leaves behind is killed with it.
        const argv = [
          "setsid",
          ...model.enter,
          cli.bin,
          "-p",
          prompt,
          "--output-format",
          "json",
          "--approval-mode",
          "yolo",
          "--skip-trust",
        ];
        const child = new Deno.Command(argv[0], {
          args: argv.slice(1),
          cwd: workspace,
          env,
          clearEnv: true,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const stdout = drain(child.stdout);
        const stderr = drain(child.stderr);
        const timer = setTimeout(() => killGroup(child.pid), 180_000);
        const { code } = await child.status;
        clearTimeout(timer);
        killGroup(child.pid);

        const requests = model.requests().filter((q) => q.wire === "gemini");
        const detail = async () =>
          `exit ${code}\nstdout:\n${(await stdout).slice(-3000)}\nstderr:\n${
            (await stderr).slice(-3000)
          }\nmodel: ${requests.map((q) => q.reply).join(", ")}\nA2A:\n${
            describeA2aTraffic(recorder.records())
          }\na2a serve stderr:\n${served.stderr().slice(-2000)}`;

        // Gemini exits 0 whatever the remote did: the model's next request is the proof.
        const call = requests.findIndex((q) => q.reply === "tool:invoke_agent");
        assert.ok(call >= 0, `the model called invoke_agent\n${await detail()}`);
        const next = requests.slice(call + 1).find((q) => invokeResponses(q).length > 0);
        assert.ok(next, `a request carried invoke_agent's response\n${await detail()}`);
        assert.ok(
          invokeResponses(next).some((r) => r.includes(ANSWER)),
          `the served Agent's answer is the function response: ${
            invokeResponses(next)
          }\n${await detail()}`,
        );
        assert.equal(code, 0, await detail());
        // And Gemini's own answer, the model's last turn, repeats it.
        let response = "";
        try {
          response = JSON.parse(await stdout).response;
        } catch { /* not JSON: the assertion below says so */ }
        assert.ok(response.startsWith(HEARD) && response.includes(ANSWER), await detail());

        // Gemini spoke v0.3 and sent the model's brief.
        const calls = recorder.records().filter((r) => r.kind === "request" && r.method !== "GET");
        assert.deepEqual(calls.map((r) => r.method), ["message/stream"], await detail());
        assert.ok(JSON.stringify(calls[0].body).includes(BRIEF), await detail());
        assert.ok(model.isolated || Deno.build.os !== "linux", "Gemini ran in a network namespace");
      } finally {
        await recorder.close();
      }
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
    // The run was an ordinary delegated task of the served home, and left the repository
    // as it was.
    const list = await pg.json(["delegate", "list"]);
    const tasks = list.body.items as Task[];
    assert.deepEqual(tasks.map((t) => t.status.state), ["TASK_STATE_COMPLETED"]);
    assert.deepEqual(treeOf(pg.repo), before);
  } finally {
    await pg.close();
    await model.close();
  }
});
