/**
 * Resuming a harness session: the argv each resumable harness gets for an earlier session,
 * where each one's session file is found, and the reasons a run starts a new one instead.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ObservalError } from "../../lib/core/mod.ts";
import {
  type HarnessKey,
  headlessHarnesses,
  type HeadlessRequest,
  parseHeadlessOutput,
  planHeadlessRun,
  RESUMABLE_HARNESSES,
  resumableSession,
} from "../../lib/harness/mod.ts";

const EARLIER = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const FRESH = "11111111-2222-4333-8444-555555555555";

function request(harness: HarnessKey, over: Partial<HeadlessRequest> = {}): HeadlessRequest {
  return {
    harness,
    binary: `/opt/bin/${harness}`,
    agentName: "reviewer",
    instructions: "Review carefully.",
    message: "And one more.",
    workdir: "/ws/new-copy",
    scratch: "/ws/scratch",
    sessionId: FRESH,
    mcpServers: {},
    platform: "linux",
    env: { HOME: "/home/u" },
    ...over,
  };
}

const resume = { sessionId: EARLIER, file: `/home/u/sessions/x_${EARLIER}.jsonl` };

Deno.test("planHeadlessRun() resumes Claude Code with --resume and the earlier id, never a new --session-id", () => {
  const fresh = planHeadlessRun(request("claude-code"));
  assert.equal(fresh.argv[fresh.argv.indexOf("--session-id") + 1], FRESH);
  assert.ok(!fresh.argv.includes("--resume"));

  const plan = planHeadlessRun(request("claude-code", { resume }));
  assert.equal(plan.argv[plan.argv.indexOf("--resume") + 1], EARLIER);
  assert.ok(!plan.argv.includes("--session-id"), plan.argv.join(" "));
  assert.ok(!plan.argv.includes(FRESH));
  assert.equal(plan.sessionId, EARLIER);
  // The rest of the run is as a new one's: agent, permissions, MCP config, task on stdin.
  for (const flag of ["-p", "--agent", "--permission-mode", "--strict-mcp-config"]) {
    assert.ok(plan.argv.includes(flag), flag);
  }
  assert.equal(plan.stdin, "And one more.");
  // Without a session id in its output, the answer still names the resumed session.
  assert.equal(
    parseHeadlessOutput("claude-code", { stdout: "", stderr: "", exitCode: 0 }, plan)
      .sessionId,
    EARLIER,
  );
});

Deno.test("planHeadlessRun() resumes Codex with `exec <options> resume <id> -- <prompt>` in the new copy", () => {
  const fresh = planHeadlessRun(request("codex"));
  assert.ok(!fresh.argv.includes("resume"));

  const plan = planHeadlessRun(request("codex", { resume }));
  const at = plan.argv.indexOf("resume");
  assert.equal(plan.argv[1], "exec");
  assert.ok(at > 1, plan.argv.join(" "));
  assert.equal(plan.argv[at + 1], EARLIER);
  assert.equal(plan.argv[at + 2], "--");
  assert.match(plan.argv[at + 3], /And one more\./);
  // Every exec option comes before the subcommand, the new copy's folder among them.
  const options = plan.argv.slice(0, at);
  assert.equal(options[options.indexOf("--cd") + 1], "/ws/new-copy");
  for (const flag of ["--json", "--sandbox", "--output-last-message"]) {
    assert.ok(options.includes(flag), flag);
  }
  // Codex names the thread in its first event; without one, the resumed id stands.
  assert.equal(
    parseHeadlessOutput("codex", { stdout: "", stderr: "", exitCode: 0 }, plan).sessionId,
    EARLIER,
  );
  assert.equal(
    parseHeadlessOutput("codex", {
      stdout: `{"type":"thread.started","thread_id":"${EARLIER}"}\n`,
      stderr: "",
      exitCode: 0,
    }, plan).sessionId,
    EARLIER,
  );
});

Deno.test("planHeadlessRun() continues Pi with --fork of the earlier file, writing no new one", () => {
  const fresh = planHeadlessRun(request("pi"));
  const made = fresh.argv[fresh.argv.indexOf("--session") + 1];
  assert.match(made, new RegExp(`_${FRESH}\\.jsonl$`));
  assert.deepEqual(fresh.files.map((f) => f.path), [made]);

  const plan = planHeadlessRun(request("pi", { resume }));
  // --session would make Pi work in (or, gone, refuse) the folder the session ran in.
  assert.equal(plan.argv[plan.argv.indexOf("--fork") + 1], resume.file);
  assert.ok(!plan.argv.includes("--session"), plan.argv.join(" "));
  assert.deepEqual(plan.files, [], "the earlier session file is not overwritten");
  assert.equal(plan.sessionId, EARLIER);
  assert.match(plan.stdin ?? "", /And one more\./);
  // The fork's own id, from Pi's first event, is the session a later run continues.
  const forked = "019e0000-aaaa-7bbb-8ccc-dddddddddddd";
  const out = `${JSON.stringify({ type: "session", id: forked })}\n`;
  assert.equal(
    parseHeadlessOutput("pi", { stdout: out, stderr: "", exitCode: 0 }, plan).sessionId,
    forked,
  );
});

Deno.test("planHeadlessRun() refuses to resume with a harness that cannot", () => {
  const others = headlessHarnesses().filter((h) => !RESUMABLE_HARNESSES.includes(h));
  assert.ok(others.includes("opencode") && others.includes("gemini-cli"), String(others));
  for (const harness of others) {
    assert.throws(
      () => planHeadlessRun(request(harness, { resume })),
      (e: unknown) => e instanceof ObservalError && /cannot resume/.test(e.message),
      harness,
    );
  }
});

Deno.test("resumableSession() finds each harness's session file where it keeps them, and says why not", () => {
  const home = mkdtempSync(join(tmpdir(), "observal-resume-"));
  try {
    const env = { HOME: home };
    const put = (...parts: string[]) => {
      const file = join(home, ...parts);
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, "{}\n");
      return file;
    };
    for (const harness of RESUMABLE_HARNESSES) {
      assert.match(
        (resumableSession(harness, EARLIER, env) as { reason: string }).reason,
        new RegExp(`session ${EARLIER} is gone`),
        harness,
      );
    }
    // Claude Code: under any project folder (the earlier run's copy had another path).
    const claude = put(".claude", "projects", "-ws-old-copy", `${EARLIER}.jsonl`);
    assert.deepEqual(resumableSession("claude-code", EARLIER, env), {
      sessionId: EARLIER,
      file: claude,
    });
    // CLAUDE_CONFIG_DIR moves it.
    assert.ok(
      "reason" in
        resumableSession("claude-code", EARLIER, { ...env, CLAUDE_CONFIG_DIR: join(home, "cc") }),
    );
    // Codex: by date, named rollout-<time>-<id>.jsonl.
    put(".codex", "sessions", "2026", "01", "02", `rollout-2026-01-02T03-04-05-${FRESH}.jsonl`);
    const codex = put(
      ".codex",
      "sessions",
      "2026",
      "01",
      "01",
      `rollout-2026-01-01T03-04-05-${EARLIER}.jsonl`,
    );
    assert.deepEqual(resumableSession("codex", EARLIER, env), { sessionId: EARLIER, file: codex });
    // Pi: a folder per working directory, <time>_<id>.jsonl in it.
    const pi = put(".pi", "agent", "sessions", "--ws-old-copy--", `2026-01-01_${EARLIER}.jsonl`);
    assert.deepEqual(resumableSession("pi", EARLIER, env), { sessionId: EARLIER, file: pi });

    // An id that could climb out of the state folder is not looked up.
    assert.match(
      (resumableSession("claude-code", "../../etc/passwd", env) as { reason: string }).reason,
      /is not one it makes/,
    );
    for (const harness of ["opencode", "copilot-cli", "gemini-cli", "cursor"] as const) {
      assert.match(
        (resumableSession(harness, EARLIER, env) as { reason: string }).reason,
        /cannot resume one$/,
        harness,
      );
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
