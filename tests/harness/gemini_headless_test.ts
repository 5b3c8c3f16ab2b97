import assert from "node:assert/strict";
import {
  type HeadlessRequest,
  parseHeadlessOutput,
  planHeadlessRun,
} from "../../lib/harness/mod.ts";

const ID = "11111111-2222-4333-8444-555555555555";

function request(over: Partial<HeadlessRequest> = {}): HeadlessRequest {
  return {
    harness: "gemini-cli",
    binary: "/opt/bin/gemini",
    agentName: "reviewer",
    instructions: "Review carefully.",
    message: "--help is the task",
    workdir: "/ws/repo",
    scratch: "/ws/scratch",
    sessionId: ID,
    mcpServers: { git: { command: "npx", args: ["git-mcp"], env: {} } },
    platform: "linux",
    ...over,
  };
}

Deno.test("planHeadlessRun() runs Gemini CLI headless on stdin, with our session id and a policy", () => {
  const plan = planHeadlessRun(request());
  const flag = (name: string) => plan.argv[plan.argv.indexOf(name) + 1];
  assert.equal(plan.argv[0], "/opt/bin/gemini");
  assert.ok(plan.argv.includes("--prompt="));
  assert.equal(flag("--output-format"), "json");
  assert.equal(flag("--session-id"), ID);
  assert.equal(flag("--approval-mode"), "auto_edit");
  assert.equal(flag("--allowed-mcp-server-names"), "git");
  assert.ok(!plan.argv.some((a) => a.includes("--help is the task")), "the task is not on argv");
  assert.match(plan.stdin!, /<agent-instructions>\nReview carefully\.\n<\/agent-instructions>/);
  assert.match(plan.stdin!, /<task>\n--help is the task\n<\/task>/);
  assert.equal(plan.env?.GEMINI_CLI_TRUST_WORKSPACE, "true");
  assert.equal(plan.sessionId, ID);
  assert.deepEqual(plan.files.map((f) => f.path), [flag("--policy")]);
  assert.ok(flag("--policy").startsWith("/ws/scratch/"));
});

Deno.test("planHeadlessRun() gives Gemini CLI a policy: rm in the copy, its MCP servers, no web", () => {
  const policy = planHeadlessRun(request()).files[0].content;
  const rules = policy.split("[[rule]]\n").filter(Boolean).map((r) =>
    Object.fromEntries(
      r.trim().split("\n").map((l) => {
        const at = l.indexOf(" = ");
        return [l.slice(0, at), JSON.parse(l.slice(at + 3))];
      }),
    )
  );
  const deny = rules.find((r) => r.commandRegex)!;
  assert.equal(deny.decision, "deny");
  // Gemini matches the pattern against the call's arguments as JSON, after `"command":"`.
  const denied = (command: string) =>
    new RegExp(`"command":"${deny.commandRegex}`).test(JSON.stringify({ command }));
  for (
    const c of ["rm -- ../outside.txt", "rm -rf /", "rm ~/x", "rm -f $HOME/x", 'rm "a" /etc/x']
  ) {
    assert.ok(denied(c), c);
  }
  for (const c of ["rm -- 'gone.txt'", "rm -f src/old.ts", "rm gone.txt"]) {
    assert.ok(!denied(c), c);
  }
  assert.ok(deny.priority > rules.find((r) => r.commandPrefix === "rm")!.priority);
  assert.deepEqual(rules.find((r) => Array.isArray(r.toolName))?.toolName, [
    "web_fetch",
    "google_web_search",
  ]);
  assert.deepEqual(rules.filter((r) => r.mcpName).map((r) => [r.mcpName, r.decision]), [
    ["git", "allow"],
  ]);
  const none = planHeadlessRun(request({ mcpServers: {} }));
  assert.ok(!none.argv.includes("--allowed-mcp-server-names"));
  assert.doesNotMatch(none.files[0].content, /mcpName/);
});

Deno.test("parseHeadlessOutput() reads Gemini CLI's JSON answer and its session id", () => {
  const plan = planHeadlessRun(request());
  const stdout = JSON.stringify({ session_id: ID, response: "Reviewed.\n", stats: {} }, null, 2);
  assert.deepEqual(
    parseHeadlessOutput("gemini-cli", { stdout, stderr: "", exitCode: 0 }, plan),
    { text: "Reviewed.", sessionId: ID },
  );
});
