/**
 * The GitHub Action (action.yml + scripts/action.ts) run as a runner runs it, against the
 * embedded registry with a real A2A agent on 127.0.0.1, and with a registry Agent whose
 * stand-in harness edits the copy so a patch comes back.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { outputEntry, parseFailOn, readInputs, splitArgs } from "../../scripts/action.ts";
import { FAILURE_TEXT, INPUT_QUESTION } from "../support/a2a_agents.ts";
import { playground } from "../support/delegation.ts";
import { localPlayground } from "../support/local_delegation.ts";
import { parseOutputFile, runAction } from "./_runner.ts";

const ACTION_PATH = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** node_modules is there already, as after a cache hit: the npm ci step is skipped. */
const CACHE_HIT = { "actions/cache": { "cache-hit": "true" } };

/** A multi-line brief with every kind of quote and what a shell would expand. */
const BRIEF = `Review the parser in "src/parse.ts" and say what's wrong.
It's 'quoted' twice, with $HOME, $(echo not run), \`uname\` and a \\ backslash;
  indented line, trailing blanks   
--- the last line starts with dashes`;

function scratch(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "observal-action-")));
}

Deno.test("action: a multi-line brief with quotes arrives whole; outputs, summary and cache key are written", async () => {
  const pg = await playground({ behaviour: "complete" });
  const temp = scratch();
  try {
    const workspace = join(temp, "workspace");
    mkdirSync(workspace);
    const run = await runAction({
      with: { agent: pg.identifier, message: BRIEF, wait: "60" },
      env: { ...pg.env, PATH: Deno.env.get("PATH")! } as Record<string, string>,
      workspace,
      temp,
      usesOutputs: CACHE_HIT,
    });
    assert.equal(run.code, 0, run.log);
    assert.match(run.outputs["task-id"], UUID);
    assert.equal(run.outputs.state, "completed");
    assert.equal(run.outputs["exit-code"], "0");
    // The echo agent answers with exactly the text it received.
    assert.equal(run.outputs.answer, `echo:${BRIEF}`);
    assert.equal(run.outputs["patch-path"], "");
    const sent = pg.agent.requests.filter((r) => r.rpcMethod === "SendMessage");
    assert.equal(sent.length, 1);
    assert.ok(JSON.stringify(sent[0].body).includes(JSON.stringify(BRIEF).slice(1, -1)));

    // Every value sits between its own random delimiter.
    const delimiters = [...run.outputFiles.run.matchAll(/^[\w-]+<<(.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(
      [...run.outputFiles.run.matchAll(/^([\w-]+)<</gm)].map((m) => m[1]).sort(),
      ["answer", "exit-code", "patch-path", "state", "task-id"],
    );
    for (const d of delimiters) assert.match(d, /^ghadelimiter_[0-9a-f-]{36}$/);
    assert.equal(new Set(delimiters).size, delimiters.length);

    assert.match(run.summary, /^### observal: Echo Agent — completed$/m);
    assert.ok(run.summary.includes(`echo:${BRIEF}`));
    // Dependencies come from the action's own checkout, cached by its lockfile.
    const cache = run.used.find((u) => u.uses.startsWith("actions/cache@"));
    assert.equal(cache?.with.path, join(ACTION_PATH, "node_modules"));
    const lock = execFileSync("git", ["hash-object", join(ACTION_PATH, "package-lock.json")], {
      encoding: "utf8",
    }).trim();
    assert.equal(cache?.with.key, `observal-Linux-X64-${lock}`);
    assert.ok(!run.used.some((u) => u.uses.startsWith("actions/upload-artifact@")));
  } finally {
    await pg.close();
    rmSync(temp, { recursive: true, force: true });
  }
});

Deno.test("action: fail-on decides which end states fail the step; a waiting task passes by default", async () => {
  const waiting = await playground({ behaviour: "input" });
  const failing = await playground({ behaviour: "fail" });
  const temp = scratch();
  try {
    const env = (pg: typeof waiting) =>
      ({ ...pg.env, PATH: Deno.env.get("PATH")! }) as Record<string, string>;
    const go = (pg: typeof waiting, extra: Record<string, string>) =>
      runAction({
        with: { agent: pg.identifier, message: "Write it", wait: "60", ...extra },
        env: env(pg),
        workspace: temp,
        temp,
        usesOutputs: CACHE_HIT,
      });

    // Exit 10 (waiting for input) is no failure unless asked for.
    const asks = await go(waiting, {});
    assert.equal(asks.code, 0, asks.log);
    assert.equal(asks.outputs.state, "input-required");
    assert.equal(asks.outputs["exit-code"], "10");
    assert.equal(asks.outputs.answer, INPUT_QUESTION);
    const strict = await go(waiting, { "fail-on": "failed, input-required" });
    assert.equal(strict.code, 1);
    assert.equal(strict.outputs.state, "input-required");
    assert.match(strict.log, /^::error title=observal::Task \S+ ended input-required/m);

    const fails = await go(failing, {});
    assert.equal(fails.code, 1);
    assert.equal(fails.outputs.state, "failed");
    assert.equal(fails.outputs["exit-code"], "3");
    assert.ok(fails.log.includes(FAILURE_TEXT), fails.log);
    const tolerant = await go(failing, { "fail-on": "none" });
    assert.equal(tolerant.code, 0, tolerant.log);
    assert.equal(tolerant.outputs.state, "failed");

    // A fail-on word that is not a state stops the step before anything runs.
    const typo = await go(failing, { "fail-on": "failed,cancelled" });
    assert.equal(typo.code, 1);
    assert.match(typo.log, /fail-on does not know "cancelled"/);
    assert.equal(typo.outputs["task-id"], "");

    // args: any other command, its words quoted as in a shell and never expanded.
    const status = await runAction({
      with: { args: `delegate status ${asks.outputs["task-id"]} --json` },
      env: env(waiting),
      workspace: temp,
      temp,
      usesOutputs: CACHE_HIT,
    });
    assert.equal(status.code, 0, status.log);
    assert.equal(status.outputs["task-id"], asks.outputs["task-id"]);
    assert.equal(status.outputs.state, "input-required");
    assert.equal(JSON.parse(status.outputs.stdout).id, asks.outputs["task-id"]);
  } finally {
    await waiting.close();
    await failing.close();
    rmSync(temp, { recursive: true, force: true });
  }
});

Deno.test("action: observal's own error is the annotation; a task still running has no answer yet", async () => {
  const slow = await playground({ behaviour: "slow" });
  const temp = scratch();
  try {
    const go = (w: Record<string, string>) =>
      runAction({
        with: w,
        env: { ...slow.env, PATH: Deno.env.get("PATH")! } as Record<string, string>,
        workspace: temp,
        temp,
        usesOutputs: CACHE_HIT,
      });

    // A delegation observal refuses (run with --json): its message, not only the exit code.
    const unknown = await go({ agent: "urn:air:example.com:agent:nobody-here", message: "Hi" });
    assert.equal(unknown.code, 1);
    assert.notEqual(unknown.outputs["exit-code"], "0");
    const annotation = unknown.log.split("\n").find((l) =>
      l.startsWith("::error title=observal::")
    );
    assert.ok(annotation, unknown.log);
    assert.match(annotation, /ended with exit code \d+: .*nobody-here/);
    // Another command (plain output): the `error:` line and its remediation.
    const inspect = await go({ args: "registry a2a inspect urn:air:example.com:agent:missing" });
    assert.equal(inspect.code, 1);
    assert.match(
      inspect.log,
      /^::error title=observal::observal registry ended with exit code 5: Entry not found%0ACheck the identifier/m,
    );

    // wait 1 against an agent that keeps working: exit 10, still running, no answer. The
    // wait counts from the command's start, so on a loaded machine it may end before the
    // brief is even sent: the task is then still submitted, which is running all the same.
    const running = await go({ agent: slow.identifier, message: "Take your time", wait: "1" });
    assert.equal(running.code, 0, running.log);
    assert.equal(running.outputs["exit-code"], "10");
    assert.match(running.outputs.state, /^(submitted|working)$/);
    assert.equal(running.outputs.answer, "");
    assert.match(running.summary, /Still running; follow it with `observal delegate status \S+`/);
    const strict = await go({
      agent: slow.identifier,
      message: "Again",
      wait: "1",
      "fail-on": "running",
    });
    assert.equal(strict.code, 1);
    assert.match(strict.log, /^::error title=observal::Task \S+ ended (submitted|working)/m);
    for (const id of [running.outputs["task-id"], strict.outputs["task-id"]]) {
      const cancel = await go({ args: `delegate cancel ${id}` });
      assert.equal(cancel.code, 0, cancel.log);
    }
  } finally {
    await slow.close();
    rmSync(temp, { recursive: true, force: true });
  }
});

/** A stand-in for `claude -p` that edits its working copy and answers like Claude. */
const EDITING_CLAUDE = `#!/bin/sh
printf 'four\\n' >> edit.txt
printf 'made by the agent\\n' > created.txt
printf '{"type":"result","result":"Edited two files.","is_error":false,"session_id":"s"}\\n'
`;

Deno.test("action: apply applies the returned patch to the checkout, and the patch is uploaded", async () => {
  const pg = await localPlayground();
  pg.program("claude", EDITING_CLAUDE);
  const temp = scratch();
  try {
    const run = await runAction({
      with: {
        agent: pg.identifier,
        message: "Add a line to edit.txt\nand create created.txt",
        harness: "claude-code",
        wait: "120",
        apply: "true",
      },
      env: pg.env as Record<string, string>,
      workspace: pg.repo,
      temp,
      usesOutputs: CACHE_HIT,
    });
    assert.equal(run.code, 0, run.log);
    assert.equal(run.outputs.state, "completed");
    assert.equal(run.outputs.answer, "Edited two files.");
    const patchPath = run.outputs["patch-path"];
    assert.ok(patchPath.startsWith(join(temp, "runner-temp")), patchPath);
    assert.match(readFileSync(patchPath, "utf8"), /^\+made by the agent$/m);
    assert.equal(readFileSync(join(pg.repo, "edit.txt"), "utf8"), "one\ntwo\nfour\n");
    assert.equal(readFileSync(join(pg.repo, "created.txt"), "utf8"), "made by the agent\n");
    assert.match(run.summary, /<details><summary>changes\.patch<\/summary>/);
    assert.match(run.summary, /^\+four$/m);
    const upload = run.used.find((u) => u.uses.startsWith("actions/upload-artifact@"));
    assert.equal(upload?.with.path, patchPath);
    assert.equal(upload?.with.name, `observal-${run.outputs["task-id"]}.patch`);
  } finally {
    await pg.close();
    rmSync(temp, { recursive: true, force: true });
  }
});

Deno.test("splitArgs() splits like a shell and expands nothing", () => {
  assert.deepEqual(splitArgs(`registry search "write release notes" --json`), [
    "registry",
    "search",
    "write release notes",
    "--json",
  ]);
  assert.deepEqual(splitArgs(`a 'b c' "d \\"e\\" $HOME" f\\ g\n  h ''`), [
    "a",
    "b c",
    'd "e" $HOME',
    "f g",
    "h",
    "",
  ]);
  assert.deepEqual(splitArgs("  "), []);
  assert.throws(() => splitArgs(`say "hi`), /unterminated " quote/);
});

Deno.test("readInputs() refuses contradicting or missing inputs and unknown fail-on states", () => {
  assert.throws(() => readInputs({}), /Nothing to run/);
  assert.throws(() => readInputs({ INPUT_AGENT: "a", INPUT_ARGS: "x" }), /not both/);
  assert.throws(() => readInputs({ INPUT_AGENT: "a", INPUT_MESSAGE: " \n" }), /message is empty/);
  assert.throws(() => readInputs({ INPUT_ARGS: "x", INPUT_WAIT: "ten" }), /wait must be/);
  const both = readInputs({ INPUT_ARGS: "x", "INPUT_FAIL-ON": "running", INPUT_FAIL_ON: "none" });
  assert.deepEqual([...both.failOn], ["running"]);
  assert.deepEqual([...parseFailOn("")], ["failed", "rejected", "canceled"]);
  assert.deepEqual([...parseFailOn("none")], []);
  assert.throws(() => parseFailOn("done"), /use some of failed, rejected/);
});

Deno.test("outputEntry() picks a delimiter the value does not contain", () => {
  const value = "line\nghadelimiter_x\nEOF";
  const entry = outputEntry("answer", value);
  assert.deepEqual(parseOutputFile(entry), { answer: value });
  assert.notEqual(outputEntry("a", "v"), outputEntry("a", "v"));
});
