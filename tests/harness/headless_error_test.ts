/**
 * headlessErrorLine() on what each pinned CLI really printed when the model answered an
 * HTTP 400 (captured against the scripted model server; tests/e2e/harness_runs_test.ts
 * checks the same against the live CLIs), read through each adapter as a run is.
 */
import assert from "node:assert/strict";
import {
  type HarnessKey,
  headlessErrorLine,
  type HeadlessOutput,
  MAX_ERROR_LINE,
  parseHeadlessOutput,
  planHeadlessRun,
} from "../../lib/harness/mod.ts";

const MODEL_SAID = "The model fake-model does not exist or you do not have access to it.";
const BODY = JSON.stringify({
  error: { message: MODEL_SAID, type: "invalid_request_error", code: null },
});

function line(harness: HarnessKey, output: HeadlessOutput): string | undefined {
  const plan = planHeadlessRun({
    harness,
    binary: `/bin/${harness}`,
    agentName: "scripted",
    instructions: "Follow the plan.",
    message: "Do the task.",
    workdir: "/ws/repo",
    scratch: "/ws/scratch",
    sessionId: "a2c23a14-c9b0-48c0-a8de-87e78d9b96b1",
    mcpServers: {},
    env: { HOME: "/home/u" },
    platform: "linux",
  });
  return headlessErrorLine(harness, output, parseHeadlessOutput(harness, output, plan));
}

const jsonl = (...events: unknown[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";

Deno.test("headlessErrorLine() takes Claude Code's error result", () => {
  const stdout = jsonl({
    type: "result",
    subtype: "success",
    is_error: true,
    api_error_status: 400,
    result: `API Error: 400 ${MODEL_SAID}`,
    session_id: "a2c23a14-c9b0-48c0-a8de-87e78d9b96b1",
    terminal_reason: "api_error",
  });
  assert.equal(
    line("claude-code", { stdout, stderr: "", exitCode: 1 }),
    `API Error: 400 ${MODEL_SAID}`,
  );
});

Deno.test("headlessErrorLine() opens the JSON body inside Codex's failed turn", () => {
  const stdout = jsonl(
    { type: "thread.started", thread_id: "01a241ef-3720-7341-8473-52e46ecda7c7" },
    { type: "turn.started" },
    { type: "error", message: BODY },
    { type: "turn.failed", error: { message: BODY } },
  );
  const stderr = "Reading additional input from stdin...\n";
  assert.equal(
    line("codex", { stdout, stderr, exitCode: 1 }),
    `${MODEL_SAID} (invalid_request_error)`,
  );
});

Deno.test("headlessErrorLine() takes Pi's failed assistant turn, though Pi exits 0", () => {
  const failed = {
    role: "assistant",
    content: [],
    api: "openai-completions",
    provider: "observal-test",
    model: "fake-model",
    stopReason: "error",
    errorMessage: `400 ${MODEL_SAID}`,
  };
  const stdout = jsonl(
    { type: "session", version: 3, id: "a2c23a14-c9b0-48c0-a8de-87e78d9b96b1", cwd: "/ws/repo" },
    { type: "agent_start" },
    { type: "message_end", message: failed },
    {
      type: "agent_end",
      messages: [{ role: "user", content: [{ type: "text", text: "Do the task." }] }, failed],
    },
  );
  assert.equal(line("pi", { stdout, stderr: "", exitCode: 0 }), `400 ${MODEL_SAID}`);
});

Deno.test("headlessErrorLine() takes OpenCode's error event", () => {
  const stdout = jsonl({
    type: "error",
    sessionID: "ses_dbe0fde59ffe1nxnaHeXBWmczC",
    error: {
      name: "APIError",
      data: { message: MODEL_SAID, statusCode: 400, isRetryable: false, responseBody: BODY },
    },
  });
  assert.equal(line("opencode", { stdout, stderr: "", exitCode: 1 }), MODEL_SAID);
});

Deno.test("headlessErrorLine() takes Copilot CLI's session error, which its adapter leaves", () => {
  const stdout = jsonl(
    { type: "assistant.turn_end", data: { turnId: "0" } },
    {
      type: "session.error",
      data: { errorType: "query", message: `400 ${MODEL_SAID}`, statusCode: 400 },
    },
    { type: "result", sessionId: "0c9a448c-5673-46d2-af0a-337b5493da5a", exitCode: 1 },
  );
  assert.equal(line("copilot-cli", { stdout, stderr: "", exitCode: 1 }), `400 ${MODEL_SAID}`);
});

Deno.test("headlessErrorLine() takes Gemini CLI's report from stderr, past its stack trace", () => {
  const api = JSON.stringify({
    error: { code: 400, message: MODEL_SAID, status: "INVALID_ARGUMENT" },
  });
  const stderr = [
    "Warning: 256-color support not detected. Using a terminal with at least 256-color support is recommended for a better visual experience.",
    "Ripgrep is not available. Falling back to GrepTool.",
    `Error when talking to Gemini API Full report available at: /tmp/gemini-client-error-Turn.run-sendMessageStream-2026-12-04T16-42-39-910Z.json _ApiError: ${api}`,
    "    at throwErrorIfNotOK (file:///opt/gemini-cli/bundle/chunk-JDPZ4CE3.js:267833:24)",
    "    at async Turn.run (file:///opt/gemini-cli/bundle/chunk-JDPZ4CE3.js:333001:24) {",
    "  status: 400",
    "}",
    JSON.stringify(
      {
        session_id: "f06c952f-ec2f-41df-9ac4-521a3824c461",
        error: { type: "Error", message: api, code: 400 },
      },
      null,
      2,
    ),
    "",
  ].join("\n");
  assert.equal(
    line("gemini-cli", { stdout: "", stderr, exitCode: 144 }),
    `${MODEL_SAID} (400 INVALID_ARGUMENT)`,
  );
});

Deno.test("headlessErrorLine() falls back to the harness's last telling stderr line", () => {
  assert.equal(
    line("claude-code", {
      stdout: "",
      stderr:
        "--agent 'scripted' not found. Available agents: claude, Explore, general-purpose, Plan\n",
      exitCode: 1,
    }),
    "--agent 'scripted' not found. Available agents: claude, Explore, general-purpose, Plan",
  );
  const stderr = [
    "Warning: 256-color support not detected. Using a terminal with at least 256-color support is recommended for a better visual experience.",
    "[USER] Policy file error in gemini-policy.toml:",
    "  Schema validation failed",
    "Ripgrep is not available. Falling back to GrepTool.",
  ].join("\n");
  assert.equal(
    line("gemini-cli", { stdout: "", stderr, exitCode: 1 }),
    "Schema validation failed",
  );
});

Deno.test("headlessErrorLine() says nothing when the harness said nothing useful", () => {
  const stderr = [
    "Warning: 256-color support not detected. Using a terminal with at least 256-color support is recommended for a better visual experience.",
    "Ripgrep is not available. Falling back to GrepTool.",
  ].join("\n");
  assert.equal(line("gemini-cli", { stdout: "", stderr, exitCode: 0 }), undefined);
  assert.equal(line("opencode", { stdout: "", stderr: "\n\n", exitCode: 0 }), undefined);
});

Deno.test("headlessErrorLine() keeps to one bounded line without terminal escapes", () => {
  const said = headlessErrorLine("kiro", {
    stdout: "",
    stderr: `\x1b[31mError:\x1b[0m ${"x".repeat(2000)}\n  more\n`,
    exitCode: 1,
  }, { text: "", error: `\x1b[31mError:\x1b[0m first\nsecond ${"y".repeat(2000)}` });
  assert.ok(said);
  assert.ok(!said.includes("\n") && !said.includes("\x1b"), said);
  assert.equal(said.length, MAX_ERROR_LINE);
  assert.ok(said.startsWith("Error: first second y"));
});
