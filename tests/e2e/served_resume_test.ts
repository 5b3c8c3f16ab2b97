/**
 * `observal a2a serve` with a real Claude Code (pinned, from npm) and the scripted model,
 * inside a loopback-only network namespace where the machine allows it: a follow-up in the
 * same `contextId` resumes the first run's Claude Code session (the model's next request
 * carries the first request and answer as turns of its own conversation, not as a recalled
 * summary), and its patch applies on top of the first run's.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureHarnessCli, harnessTestEnv } from "../support/harness_clis.ts";
import { localPlayground, treeOf } from "../support/local_delegation.ts";
import { scriptText } from "../support/model_server.ts";
import { runEntered, startModelServerInNetns } from "../support/netns.ts";
import { serve } from "../support/served_agent.ts";

const CLIENT = fileURLToPath(new URL("../support/conversation_client_main.ts", import.meta.url));
const FIRST = `First request: make two loud. ${
  scriptText([{ edit: { path: "edit.txt", old: "two", new: "TWO" } }, { say: "FIRST ANSWER" }])
}`;
const SECOND = `Second request: add three. ${
  scriptText([{ edit: { path: "edit.txt", old: "TWO", new: "TWO\nthree" } }, {
    say: "SECOND ANSWER",
  }])
}`;

type Json = Record<string, unknown>;

/** The texts of one Anthropic message's content. */
function texts(message: Json): string[] {
  const content = message.content;
  if (typeof content === "string") return [content];
  return Array.isArray(content)
    ? content.flatMap((c) => typeof c?.text === "string" ? [c.text] : [])
    : [];
}

Deno.test("a2a serve with Claude Code: a follow-up in the same contextId resumes the first run's session, on top of its changes", async () => {
  const cli = await ensureHarnessCli("claude-code");
  const model = await startModelServerInNetns();
  const pg = await localPlayground();
  const scratch = mkdtempSync(join(tmpdir(), "observal-resume-"));
  try {
    const env: Record<string, string> = {
      ...(pg.env as Record<string, string>),
      ...harnessTestEnv("claude-code", { home: pg.root, modelUrl: model.url }),
      CLAUDE_CODE_MAX_RETRIES: "1",
    };
    env.PATH = `${cli.binDir}:${pg.bin}:${env.PATH}`;
    const served = await serve({ ...pg, env }, [], { enter: model.enter });
    const before = treeOf(pg.repo);
    try {
      const run = await runEntered(
        model.enter,
        [Deno.execPath(), "run", "-A", CLIENT, served.url, FIRST, SECOND],
        { cwd: pg.root, env: { PATH: env.PATH, HOME: pg.root, NO_COLOR: "1" } },
      );
      const detail = () =>
        `exit ${run.code}\n${run.stdout}\n${run.stderr.slice(-3000)}\nserver:\n${
          served.stderr().slice(-3000)
        }`;
      assert.equal(run.code, 0, detail());
      const [first, second] = JSON.parse(run.stdout);
      assert.equal(first.state, "TASK_STATE_COMPLETED", detail());
      assert.equal(first.result, "FIRST ANSWER");
      assert.equal(second.state, "TASK_STATE_COMPLETED", detail());
      assert.equal(second.result, "SECOND ANSWER");
      const said = second.said.join("\n");
      const session = /resumes Claude Code session ([0-9a-f-]{36})/.exec(said)?.[1];
      assert.ok(session, said);

      // The model's requests for the second brief carry the first run as earlier turns of
      // the same conversation: the first brief from the user, its answer from the model.
      const asked = model.requests().filter((q) =>
        q.wire === "anthropic" && JSON.stringify(q.body).includes("Second request")
      );
      assert.ok(asked.length > 0, "the second brief reached the model");
      const messages = (asked[0].body as { messages: Json[] }).messages;
      const userAt = messages.findIndex((m) =>
        m.role === "user" && texts(m).some((t) => t.includes("First request"))
      );
      const answerAt = messages.findIndex((m) =>
        m.role === "assistant" && texts(m).some((t) => t.includes("FIRST ANSWER"))
      );
      const secondAt = messages.findIndex((m) =>
        m.role === "user" && texts(m).some((t) => t.includes("Second request"))
      );
      assert.ok(userAt >= 0 && userAt < answerAt && answerAt < secondAt, JSON.stringify(messages));
      // Resumed, the brief is the new message only: no recalled summary of the first.
      assert.ok(!JSON.stringify(asked[0].body).includes("Earlier request 1:"));
      // Claude kept the second run in the first run's session file.
      const projects = join(pg.root, ".claude", "projects");
      const files = readdirSync(projects).map((d) => join(projects, d, `${session}.jsonl`))
        .filter((f) => existsSync(f));
      assert.ok(
        files.some((f) => readFileSync(f, "utf8").includes("Second request")),
        "the second run was written to the first run's session",
      );

      // The second patch applies on top of the first, in a clone of the served repository.
      const clone = join(scratch, "clone");
      execFileSync("git", ["clone", "-q", pg.repo, clone]);
      for (const [i, patch] of [first.patch, second.patch].entries()) {
        const file = join(scratch, `${i}.diff`);
        writeFileSync(file, patch);
        execFileSync("git", ["apply", file], { cwd: clone });
      }
      assert.equal(readFileSync(join(clone, "edit.txt"), "utf8"), "one\nTWO\nthree\n");
      assert.ok(model.isolated || Deno.build.os !== "linux", "everything ran in a namespace");
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
    assert.deepEqual(treeOf(pg.repo), before, "the served repository never changes");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await pg.close();
    await model.close();
  }
});
