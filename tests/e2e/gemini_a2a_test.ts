/**
 * `observal delegate` against a real third-party A2A agent nobody here wrote: Google's
 * Gemini CLI A2A server (pinned, from npm), driven by the scripted model server. The agent,
 * the model server, a recording proxy and every observal process (CLI and workers) share a
 * loopback-only network namespace, so nothing can leave the machine.
 *
 * This agent never completes a task: each turn streams its text in `working` status
 * updates and ends with an `input-required` update that carries no message. The caller
 * must still see what the agent said, and a turn whose model call is silent for longer
 * than a minute must not be cut, since the agent aborts any run whose connection closes.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message, Task } from "../../lib/a2a/mod.ts";
import { readPid, workerAlive } from "../../lib/delegation/mod.ts";
import {
  type A2aRecord,
  describeA2aTraffic,
  startA2aRecorder,
  startGeminiA2aAgent,
} from "../support/gemini_a2a.ts";
import { type ScriptStep, scriptText } from "../support/model_server.ts";
import { startModelServerInNetns } from "../support/netns.ts";
import { MAIN } from "../support/process.ts";

const ANSWER_1 = "The parser notes are in notes.txt: three fixes, one new flag.";
const ANSWER_2 = "Added a migration section: rename --strict to --check.";
const ANSWER_LATE = "After a long think: the cache is safe to drop.";
const NOTES = "Parser release notes\n";

const BRIEF_1 = "Write release notes for the parser into notes.txt, then summarise them. " +
  scriptText([{ write: { path: "notes.txt", content: NOTES } }, { say: ANSWER_1 }]);
const BRIEF_2 = "Add a migration section. " + scriptText([{ say: ANSWER_2 }]);
/** Longer than the 60 s a silent stream may last today. */
const SILENCE_MS = 75_000;
const SILENT_STEPS: ScriptStep[] = [{ sleep: SILENCE_MS }, { say: ANSWER_LATE }];
const BRIEF_SILENT = "Think hard about whether the cache can go. " + scriptText(SILENT_STEPS);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => p.text ?? "").join("\n");
}

/** The text of a recorded event's status message (the brief also echoes the answer). */
function statusText(record: A2aRecord): string {
  const result = (record.body as { result?: { status?: { message?: unknown } } })?.result;
  const parts = (result?.status?.message as { parts?: { text?: string }[] } | undefined)?.parts;
  return (parts ?? []).map((p) => p.text ?? "").join("\n");
}

/** The texts of a task's history, in order, with who said each. */
function historyTexts(task: Task): string[] {
  return (task.history ?? []).map((m) => `${m.role}: ${textOf(m)}`).filter((t) =>
    !t.endsWith(": ")
  );
}

Deno.test("delegate against the Gemini CLI A2A server: run, reply, cancel, and a 75 s silent turn", async (t) => {
  const model = await startModelServerInNetns();
  const root = mkdtempSync(join(tmpdir(), "observal-gemini-a2a-"));
  const home = join(root, "observal-home");
  let agent: Awaited<ReturnType<typeof startGeminiA2aAgent>> | undefined;
  let recorder: Awaited<ReturnType<typeof startA2aRecorder>> | undefined;
  const env: Record<string, string> = {
    OBSERVAL_HOME: home,
    HOME: home,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
  };
  const observal = async (argv: string[]): Promise<Run> => {
    const cmd = [...model.enter, Deno.execPath(), "run", "-A", MAIN, ...argv];
    const out = await new Deno.Command(cmd[0], {
      args: cmd.slice(1),
      cwd: root,
      env,
      clearEnv: true,
      stdin: "null",
    }).output();
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
  };
  const json = async (argv: string[]): Promise<{ run: Run; body: Record<string, unknown> }> => {
    const run = await observal([...argv, "--json"]);
    try {
      return { run, body: JSON.parse(run.stdout || "{}") };
    } catch {
      throw new Error(`not JSON (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
    }
  };
  const records = (): A2aRecord[] => recorder?.records() ?? [];
  const taskLog = (id: string) => {
    try {
      return readFileSync(join(home, "delegations", id, "worker.log"), "utf8").slice(-3000);
    } catch {
      return "";
    }
  };
  /** What a failed assertion needs: the command's output, the A2A traffic, the worker log. */
  const detail = (run: Run | undefined, id = "") =>
    `${
      run ? `exit ${run.code}\nstdout:\n${run.stdout.slice(-3000)}\nstderr:\n${run.stderr}\n` : ""
    }` +
    `A2A traffic through the recorder:\n${describeA2aTraffic(records())}\n` +
    (id ? `worker.log:\n${taskLog(id)}\n` : "");

  let finished = false;
  try {
    assert.ok(
      model.isolated,
      "this test needs a loopback-only network namespace (unshare -n, nsenter, setpriv)",
    );
    agent = await startGeminiA2aAgent({
      enter: model.enter,
      modelUrl: model.url,
      root,
      // The namespace is private, so the agent's usual port is free.
      port: 41242,
    });
    recorder = await startA2aRecorder({ enter: model.enter, target: agent.url });

    let identifier = "";
    await t.step("its card imports and is approved", async () => {
      const set = await observal([
        "registry",
        "settings",
        "set",
        "discovery.a2a_private_hosts",
        "127.0.0.1",
      ]);
      assert.equal(set.code, 0, detail(set));
      const submit = await json([
        "registry",
        "a2a",
        "submit",
        recorder!.cardUrl,
        "--visibility",
        "public",
      ]);
      assert.equal(submit.run.code, 0, detail(submit.run));
      identifier = String(submit.body.identifier);
      assert.equal(submit.body.displayName, "Gemini SDLC Agent");
      const review = await json([
        "registry",
        "a2a",
        "review",
        identifier,
        "--approve",
        "--digest",
        String(submit.body["obs:artifactDigest"]),
      ]);
      assert.equal(review.run.code, 0, detail(review.run));
      assert.equal(review.body["obs:lifecycle"], "approved");
      const pinned = review.body["obs:a2aInterface"] as { url?: string } | undefined;
      assert.equal(pinned?.url, `${recorder!.url}/`, "the endpoint is the card's own url");
    });
    assert.ok(identifier, "the card was imported");

    // The silent turn runs in the background while the others go on, so the test waits
    // out the silence once.
    const silent = await json(["delegate", "run", identifier, BRIEF_SILENT, "--wait", "0"]);
    assert.equal(silent.run.code, 10, detail(silent.run));
    const silentId = String(silent.body.id);
    const silentStarted = Date.now();

    let taskId = "";
    await t.step("delegate run shows the model's answer", async () => {
      const run = await observal(["delegate", "run", identifier, BRIEF_1, "--wait", "120"]);
      taskId = run.stdout.match(/[0-9a-f]{8}-[0-9a-f-]{27}/)?.[0] ?? "";
      // The agent works in its own folder: the scripted write really ran there.
      assert.equal(readFileSync(join(agent!.workspace, "notes.txt"), "utf8"), NOTES);
      assert.equal(run.code, 10, `the turn ends waiting for input\n${detail(run, taskId)}`);
      assert.match(run.stdout, /input required/, detail(run, taskId));
      assert.ok(run.stdout.includes(ANSWER_1), `the answer is shown\n${detail(run, taskId)}`);
      assert.match(run.stdout, /observal delegate reply/);
      const status = await json(["delegate", "status", taskId]);
      const task = status.body as unknown as Task;
      assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
      assert.ok(
        textOf(task.status.message).includes(ANSWER_1),
        `--json carries the answer as the status text\n${detail(status.run, taskId)}`,
      );
      const said = historyTexts(task);
      assert.ok(
        said.some((s) => s.startsWith("ROLE_AGENT") && s.includes(ANSWER_1)),
        `the answer is kept in the history:\n${said.join("\n")}`,
      );
    });
    if (!taskId) throw new Error("delegate run printed no task id");

    await t.step(
      "delegate reply continues the conversation and shows the next answer",
      async () => {
        const before = (await json(["delegate", "status", taskId])).body as unknown as Task;
        const remoteId = before.metadata.observal.remoteTaskId;
        assert.ok(remoteId, "the task reached the agent");
        const reply = await observal(["delegate", "reply", taskId, BRIEF_2, "--wait", "120"]);
        assert.equal(reply.code, 10, detail(reply, taskId));
        assert.ok(
          reply.stdout.includes(ANSWER_2),
          `the next answer is shown\n${detail(reply, taskId)}`,
        );
        // One conversation: the reply went to the same remote task, and the model saw the
        // first turn when it wrote the second answer.
        const sent = records().filter((r) =>
          r.kind === "request" && r.method === "message/stream" &&
          JSON.stringify(r.body).includes("Add a migration section")
        );
        assert.equal(sent.length, 1, detail(reply, taskId));
        const message =
          (sent[0].body as { params: { message: { taskId?: string } } }).params.message;
        assert.equal(message.taskId, remoteId);
        const second = model.requests().find((q) =>
          q.wire === "gemini" && JSON.stringify(q.body).includes("Add a migration section")
        );
        assert.ok(second, "the reply reached the model");
        const contents =
          (second.body as { contents: { role: string; parts: { text?: string }[] }[] })
            .contents;
        assert.ok(
          contents.some((c) => c.role === "model" && c.parts.some((p) => p.text === ANSWER_1)),
          "the model saw its first answer",
        );
        const after = (await json(["delegate", "status", taskId])).body as unknown as Task;
        assert.ok(textOf(after.status.message).includes(ANSWER_2), detail(undefined, taskId));
        const said = historyTexts(after);
        const at = (needle: string, role: string) =>
          said.findIndex((s) => s.startsWith(role) && s.includes(needle));
        const order = [
          at("Write release notes", "ROLE_USER"),
          at(ANSWER_1, "ROLE_AGENT"),
          at("Add a migration section", "ROLE_USER"),
          at(ANSWER_2, "ROLE_AGENT"),
        ];
        assert.ok(
          order.every((i, n) => i >= 0 && (n === 0 || i > order[n - 1])),
          `brief, answer, reply, answer are kept in order (${order}):\n${said.join("\n")}`,
        );
      },
    );

    await t.step("delegate cancel cancels the task at the agent", async () => {
      const before = (await json(["delegate", "status", taskId])).body as unknown as Task;
      const remoteId = before.metadata.observal.remoteTaskId;
      const cancel = await json(["delegate", "cancel", taskId]);
      assert.equal(cancel.run.code, 0, detail(cancel.run, taskId));
      const task = cancel.body as unknown as Task;
      assert.equal(task.status.state, "TASK_STATE_CANCELED");
      assert.doesNotMatch(textOf(task.status.message), /not (told|confirm)/i);
      // The agent itself says the task is canceled.
      const sent = records().find((r) =>
        r.kind === "request" && r.method === "tasks/cancel" &&
        (r.body as { params?: { id?: string } }).params?.id === remoteId
      );
      assert.ok(sent, `observal sent tasks/cancel for ${remoteId}\n${detail(cancel.run)}`);
      const answer = records().find((r) => r.exchange === sent.exchange && r.kind === "response");
      const state = (answer?.body as { result?: { status?: { state?: string } } })?.result?.status
        ?.state;
      assert.equal(state, "canceled", detail(cancel.run));
    });

    await t.step("a turn whose model call is silent for 75 s still completes", async () => {
      const left = Math.ceil((SILENCE_MS - (Date.now() - silentStarted)) / 1000);
      const status = await json(["delegate", "status", silentId, "--wait", String(left + 90)]);
      const task = status.body as unknown as Task;
      const remoteId = task.metadata?.observal?.remoteTaskId;
      const stream = records().find((r) =>
        r.kind === "request" && r.method === "message/stream" &&
        JSON.stringify(r.body).includes("Think hard")
      );
      assert.ok(stream, detail(status.run, silentId));
      const mine = records().filter((r) => r.exchange === stream.exchange);
      const texts = mine.filter((r) => r.kind === "event" && statusText(r).includes(ANSWER_LATE));
      const closedEarly = mine.some((r) => r.kind === "client-closed");
      assert.ok(
        !closedEarly && texts.length === 1,
        `the stream stayed open until the agent answered\n${detail(status.run, silentId)}`,
      );
      // The silence really happened: the answer came 75 s after the turn started.
      const working = mine.find((r) => r.kind === "event");
      assert.ok(working && texts[0].at - working.at >= SILENCE_MS - 1000);
      assert.ok(
        !agent!.log().includes(`Task ${remoteId} execution aborted`),
        "the agent did not abort the run",
      );
      assert.equal(status.run.code, 10, detail(status.run, silentId));
      assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
      assert.ok(
        textOf(task.status.message).includes(ANSWER_LATE),
        `the late answer reaches the caller\n${detail(status.run, silentId)}`,
      );
    });
    finished = true;
  } finally {
    // Every task here has stopped by now, but a worker may still be writing its last log
    // line; it must exit on its own (no orphans) before the home goes away.
    const tasksDir = join(home, "delegations");
    const ids = existsSync(tasksDir)
      ? readdirSync(tasksDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) =>
        e.name
      )
      : [];
    const deadline = Date.now() + 30_000;
    const orphans: string[] = [];
    for (const id of ids) {
      const pid = readPid(join(tasksDir, id));
      while (pid !== undefined && workerAlive(pid, id, join(tasksDir, id))) {
        if (Date.now() > deadline) {
          orphans.push(`${id} (pid ${pid})`);
          try {
            Deno.kill(pid, "SIGKILL");
          } catch { /* gone */ }
          break;
        }
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    await recorder?.close();
    await agent?.close();
    await model.close();
    // OBSERVAL_TEST_A2A_TRACE=<file> keeps the A2A traffic (<file>) and the raw records
    // (<file>.jsonl) for whoever checks a change of the remote client against this agent.
    const trace = Deno.env.get("OBSERVAL_TEST_A2A_TRACE");
    if (trace) {
      Deno.writeTextFileSync(trace, describeA2aTraffic(records()) + "\n");
      Deno.writeTextFileSync(
        `${trace}.jsonl`,
        records().map((r) => JSON.stringify(r)).join("\n") + "\n",
      );
    }
    rmSync(root, { recursive: true, force: true });
    if (finished) assert.deepEqual(orphans, [], "every worker exits on its own");
  }
});
