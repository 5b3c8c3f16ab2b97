import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import {
  type HarnessKey,
  headlessAdapter,
  headlessHarnesses,
  type HeadlessRequest,
  inlinePrompt,
  MAX_ARG_BYTES,
  parseHeadlessOutput,
  planHeadlessRun,
} from "../../lib/harness/mod.ts";

function request(harness: HarnessKey, over: Partial<HeadlessRequest> = {}): HeadlessRequest {
  return {
    harness,
    binary: `/opt/bin/${harness}`,
    agentName: "reviewer",
    instructions: "Review carefully.",
    message: "-rf --help; the task",
    workdir: "/ws/worktree",
    scratch: "/ws/scratch",
    sessionId: "11111111-2222-4333-8444-555555555555",
    mcpServers: { git: { command: "npx", args: ["-y", "git-mcp"], env: { A: "1" } } },
    platform: "linux",
    ...over,
  };
}

Deno.test("planHeadlessRun() never lets a task that starts with '-' become a flag", () => {
  for (const harness of headlessHarnesses()) {
    const plan = planHeadlessRun(request(harness));
    const at = plan.argv.findIndex((a) => a.includes("-rf --help"));
    if (plan.stdin !== undefined && plan.stdin.includes("-rf --help")) {
      assert.equal(at, -1, `${harness} puts the task on stdin and argv`);
      continue;
    }
    assert.ok(at > 0, `${harness} does not pass the task at all`);
    const arg = plan.argv[at];
    // Either after "--" or attached to its option with "=".
    const safe = plan.argv.slice(0, at).includes("--") || /^--[a-z-]+=/.test(arg);
    assert.ok(safe, `${harness} passes the task as a bare argument: ${plan.argv.join(" ")}`);
  }
});

Deno.test("planHeadlessRun() sends Claude Code, OpenCode and Pi the task on stdin", () => {
  const claude = planHeadlessRun(request("claude-code"));
  assert.equal(claude.stdin, "-rf --help; the task");
  assert.equal(claude.argv[0], "/opt/bin/claude-code");
  assert.ok(claude.argv.includes("--agent"));
  assert.ok(claude.argv.includes("--strict-mcp-config"));
  assert.equal(claude.sessionId, "11111111-2222-4333-8444-555555555555");
  const mcp = claude.files.find((f) => f.path === "/ws/scratch/mcp.json");
  assert.deepEqual(JSON.parse(mcp!.content), {
    mcpServers: { git: { command: "npx", args: ["-y", "git-mcp"], env: { A: "1" } } },
  });
  assert.equal(claude.argv[claude.argv.indexOf("--allowedTools") + 1], "mcp__git");

  // OpenCode would quote a message on argv; its permissions ride in its config variable.
  const opencode = planHeadlessRun(request("opencode", {
    env: { OPENCODE_CONFIG_CONTENT: '{"theme":"dark","agent":{"other":{"mode":"primary"}}}' },
  }));
  assert.equal(opencode.stdin, "-rf --help; the task");
  const config = JSON.parse(opencode.env!.OPENCODE_CONFIG_CONTENT);
  assert.equal(config.theme, "dark", "the caller's own settings are kept");
  assert.deepEqual(config.agent.other, { mode: "primary" });
  assert.deepEqual(config.agent.reviewer.permission.bash, { "*": "deny", "rm *": "allow" });
  assert.equal(config.agent.reviewer.permission.external_directory, "deny");

  // Pi has no agent flag: the instructions travel with the task; the session file we
  // write names the session.
  const pi = planHeadlessRun(request("pi"));
  const session = pi.files.find((f) => f.path.endsWith(".jsonl"))!;
  assert.equal(JSON.parse(session.content).id, "11111111-2222-4333-8444-555555555555");
  assert.equal(pi.argv[pi.argv.indexOf("--session") + 1], session.path);
  assert.match(pi.stdin!, /Review carefully\./);
  assert.match(pi.stdin!, /-rf --help; the task/);
});

Deno.test("inlinePrompt() fences the instructions and the task apart", () => {
  const text = inlinePrompt("reviewer", "Be brief.", "Fix it");
  assert.match(text, /<agent-instructions>\nBe brief\.\n<\/agent-instructions>/);
  assert.match(text, /<task>\nFix it\n<\/task>$/);
  assert.equal(inlinePrompt("reviewer", "  ", "Fix it"), "Fix it");
});

Deno.test("planHeadlessRun() refuses a task too long for the command line, naming stdin harnesses", () => {
  const long = "x".repeat(MAX_ARG_BYTES + 1);
  for (const harness of ["codex", "copilot-cli", "kiro", "cursor", "antigravity"] as const) {
    assert.throws(
      () => planHeadlessRun(request(harness, { message: long })),
      (err: unknown) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "FAILED_PRECONDITION");
        assert.match(err.message, /too long for the .* command line/);
        assert.match(err.remediation ?? "", /Claude Code, OpenCode, Pi or Gemini CLI/);
        return true;
      },
    );
  }
  // On stdin the same task is fine.
  assert.equal(planHeadlessRun(request("claude-code", { message: long })).stdin, long);
  // Multi-byte characters count as bytes, not characters.
  assert.throws(() =>
    planHeadlessRun(request("codex", { message: "é".repeat(MAX_ARG_BYTES / 2 + 1) }))
  );
});

Deno.test("planHeadlessRun() on Windows refuses batch-file harnesses and long command lines", () => {
  assert.throws(
    () => planHeadlessRun(request("codex", { binary: "C:\\npm\\codex.cmd", platform: "win32" })),
    /batch file/,
  );
  assert.throws(
    () => planHeadlessRun(request("codex", { message: "y".repeat(30_000), platform: "win32" })),
    /too long/,
  );
  assert.ok(planHeadlessRun(request("codex", { binary: "C:\\bin\\codex.exe", platform: "win32" })));
});

Deno.test("headlessAdapter() refuses Goose and VS Code Copilot with their reason", () => {
  for (const [harness, reason] of [["goose", /recipe/], ["copilot", /VS Code/]] as const) {
    assert.throws(() => headlessAdapter(harness), (err: unknown) => {
      assert.ok(err instanceof ObservalError);
      assert.match(err.message, reason);
      assert.match(err.remediation ?? "", /Claude Code/);
      return true;
    });
  }
});

Deno.test("parseHeadlessOutput() reads Claude Code's JSON result and its errors", () => {
  const plan = planHeadlessRun(request("claude-code"));
  const ok = parseHeadlessOutput("claude-code", {
    stdout: 'log line\n{"type":"result","result":"All done","is_error":false,"session_id":"s-1"}\n',
    stderr: "",
    exitCode: 0,
  }, plan);
  assert.deepEqual(ok, { text: "All done", sessionId: "s-1" });
  const bad = parseHeadlessOutput("claude-code", {
    stdout: '{"type":"result","result":"quota exceeded","is_error":true}',
    stderr: "",
    exitCode: 0,
  }, plan);
  assert.equal(bad.error, "quota exceeded");
  assert.equal(bad.sessionId, plan.sessionId);
  const plain = parseHeadlessOutput("claude-code", {
    stdout: "\x1b[1mjust text\x1b[0m\n",
    stderr: "",
    exitCode: 0,
  }, plan);
  assert.equal(plain.text, "just text");
});

Deno.test("parseHeadlessOutput() reads Codex's last message file and its thread id", () => {
  const plan = planHeadlessRun(request("codex"));
  assert.equal(plan.outputFile, "/ws/scratch/last-message.txt");
  const out = parseHeadlessOutput("codex", {
    stdout: '{"type":"thread.started","thread_id":"th-9"}\n{"type":"turn.completed"}\n',
    stderr: "",
    exitCode: 0,
    outputFileText: "Fixed it.\n",
  }, plan);
  assert.deepEqual(out, { text: "Fixed it.", sessionId: "th-9" });
});

Deno.test("parseHeadlessOutput() fails a Codex turn whose every file edit failed, whatever it said", () => {
  const plan = planHeadlessRun(request("codex"));
  const change = (status: string) =>
    JSON.stringify({ type: "item.completed", item: { type: "file_change", status } });
  const run = (...lines: string[]) =>
    parseHeadlessOutput("codex", {
      stdout: `${lines.join("\n")}\n`,
      stderr: "",
      exitCode: 0,
      outputFileText: "Made the three changes.",
    }, plan);
  assert.equal(
    run(change("failed"), change("failed"), change("failed")).error,
    "Codex could not apply any of its 3 file edits",
  );
  assert.equal(run(change("failed")).error, "Codex could not apply its file edit");
  // One edit that landed is a result; so is a turn with no edits at all.
  assert.equal(run(change("failed"), change("completed")).error, undefined);
  assert.equal(run('{"type":"turn.completed"}').error, undefined);
});

Deno.test("planHeadlessRun() keeps Codex in its own sandbox, with a temp dir that holds no CODEX_HOME", () => {
  const plan = planHeadlessRun(request("codex", {
    env: { CODEX_HOME: "/tmp/home/.codex", TMPDIR: "/tmp" },
  }));
  assert.equal(plan.argv[plan.argv.indexOf("--sandbox") + 1], "workspace-write");
  assert.ok(!plan.argv.some((a) => /danger|bypass/.test(a)), plan.argv.join(" "));
  assert.ok(plan.argv.includes("sandbox_workspace_write.exclude_slash_tmp=true"));
  assert.ok(plan.argv.includes("sandbox_workspace_write.exclude_tmpdir_env_var=true"));
  // Codex links its sandbox helper under CODEX_HOME only when CODEX_HOME is outside TMPDIR.
  assert.equal(plan.env?.TMPDIR, "/ws/scratch");
  assert.ok(!"/tmp/home/.codex/".startsWith(`${plan.env?.TMPDIR}/`));
});
