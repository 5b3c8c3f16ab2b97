/**
 * Headless runs of the real harness CLIs (pinned, from npm) as a delegation starts them:
 * the agent installed into a git repository, the adapter's plan, the scripted model server,
 * inside a loopback-only network namespace where the machine allows one. These pin what the
 * error line, Pi's session file and Gemini CLI's run policy rely on.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type HarnessKey,
  headlessErrorLine,
  type HeadlessPlan,
  parseAgentYaml,
  parseHeadlessOutput,
  planHeadlessRun,
  renderInstall,
  type StdioMcpEntry,
  writeSnippet,
} from "../../lib/harness/mod.ts";
import { ensureHarnessCli, type HarnessCliKey, harnessTestEnv } from "../support/harness_clis.ts";
import { type ScriptStep, scriptText } from "../support/model_server.ts";
import { startModelServerInNetns } from "../support/netns.ts";
import { fakeMcpScript } from "../support/fake_mcp.ts";

const NODE = fileURLToPath(new URL("../../node_modules/node/bin/node", import.meta.url));
const MODEL_SAID = "The model fake-model does not exist or you do not have access to it.";

/** A stdio MCP server with one tool, `ping`, that answers with an env marker. */
const PING_MCP = fakeMcpScript("pinger", ["ping"], "PING_MARK");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  plan: HeadlessPlan;
  root: string;
  repo: string;
  home: string;
  env: Record<string, string>;
  replies: string[];
}

/**
 * Installs a scripted agent into a fresh repository, plans the run as a delegation does,
 * runs the CLI and returns what it printed. The caller removes `root`.
 */
async function run(
  key: HarnessCliKey,
  steps: ScriptStep[],
  options: { mcp?: boolean } = {},
): Promise<Run> {
  const cli = await ensureHarnessCli(key);
  const model = await startModelServerInNetns();
  const root = mkdtempSync(join(tmpdir(), `observal-run-${key}-`));
  const repo = join(root, "repo");
  const scratch = join(root, "scratch");
  const home = join(root, "home");
  mkdirSync(repo);
  mkdirSync(scratch);
  writeFileSync(join(repo, "gone.txt"), "delete me\n");
  writeFileSync(join(root, "outside.txt"), "keep me\n");
  const git = (...args: string[]) =>
    new Deno.Command("git", { args, cwd: repo, stdout: "null", stderr: "null" }).outputSync();
  git("init", "-q");
  git("add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init");
  try {
    const env = harnessTestEnv(key, { home, modelUrl: model.url });
    // One try per request: a model error should end the run at once.
    env.CLAUDE_CODE_MAX_RETRIES = "0";
    let mcpYaml = "";
    if (options.mcp) {
      const script = join(root, "ping-mcp.mjs");
      writeFileSync(script, PING_MCP);
      mcpYaml = `mcp_servers:\n  - name: pinger\n    command: ${NODE}\n    args: [${
        JSON.stringify(script)
      }]\n    env: { PING_MARK: mark-42 }\n`;
    }
    const prompt = JSON.stringify(`Follow the plan. ${scriptText(steps)}`);
    const definition = parseAgentYaml(
      `name: scripted\nversion: 1.0.0\ndescription: Follows a plan\nprompt: ${prompt}\n${mcpYaml}`,
    );
    const { config_snippet: snippet } = renderInstall({
      agent: { id: "a1", name: "scripted", version: "1.0.0", definition },
      harness: key as HarnessKey,
      scope: "project",
      delegation: { enabled: false, command: [] },
    });
    await writeSnippet(snippet, { targetDir: repo, scope: "project", home, setupCommands: "skip" });
    const mcpServers: Record<string, StdioMcpEntry> = {};
    for (const s of definition.mcp_servers) {
      mcpServers[s.name] = { command: s.command, args: s.args, env: s.env };
    }
    const plan = planHeadlessRun({
      harness: key as HarnessKey,
      binary: cli.bin,
      agentName: "scripted",
      instructions: definition.prompt,
      message: "Carry out the plan.",
      workdir: repo,
      scratch,
      sessionId: crypto.randomUUID(),
      mcpServers,
      env,
    });
    for (const f of plan.files) {
      mkdirSync(dirname(f.path), { recursive: true });
      writeFileSync(f.path, f.content);
    }
    const argv = [...model.enter, ...plan.argv];
    const child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd: repo,
      env: { ...env, ...plan.env },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(240_000),
    }).spawn();
    const writer = child.stdin.getWriter();
    if (plan.stdin !== undefined) await writer.write(new TextEncoder().encode(plan.stdin));
    await writer.close();
    const out = await child.output();
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    return {
      code: out.code,
      stdout: decode(out.stdout),
      stderr: decode(out.stderr),
      plan,
      root,
      repo,
      home,
      env,
      replies: model.requests().map((q) => q.reply),
    };
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  } finally {
    await model.close();
  }
}

const CLIS: HarnessCliKey[] = [
  "claude-code",
  "codex",
  "pi",
  "opencode",
  "copilot-cli",
  "gemini-cli",
];

for (const key of CLIS) {
  Deno.test(`headlessErrorLine() reports what ${key} says when the model answers HTTP 400`, async () => {
    const r = await run(key, [{ fail: { status: 400, message: MODEL_SAID } }]);
    try {
      const result = parseHeadlessOutput(key as HarnessKey, {
        stdout: r.stdout,
        stderr: r.stderr,
        exitCode: r.code,
      }, r.plan);
      const line = headlessErrorLine(key as HarnessKey, {
        stdout: r.stdout,
        stderr: r.stderr,
        exitCode: r.code,
      }, result);
      const detail = `exit ${r.code}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}\n` +
        `replies: ${r.replies.join(", ")}`;
      assert.ok(r.replies.includes("status:400"), detail);
      assert.equal(result.text, "", detail);
      assert.ok(line?.includes(MODEL_SAID), `${line}\n${detail}`);
      assert.ok(line && !line.includes("\n"));
    } finally {
      rmSync(r.root, { recursive: true, force: true });
    }
  });
}

Deno.test("pi: the transcript stays in Pi's sessions folder under the chosen id once the copy is gone", async () => {
  const r = await run("pi", [{ say: "All done." }]);
  try {
    assert.equal(r.code, 0, r.stderr);
    const session = r.plan.argv[r.plan.argv.indexOf("--session") + 1];
    assert.ok(session.startsWith(join(r.home, ".pi", "agent", "sessions") + "/"), session);
    assert.ok(!session.startsWith(r.root + "/scratch"), session);
    rmSync(r.repo, { recursive: true, force: true });
    assert.ok(existsSync(session), "the transcript outlives the copy");
    const lines = readFileSync(session, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines[0].type, "session");
    assert.equal(lines[0].id, r.plan.sessionId);
    assert.ok(JSON.stringify(lines).includes("All done."), "the answer is in the transcript");
  } finally {
    rmSync(r.root, { recursive: true, force: true });
  }
});

Deno.test("gemini-cli: the agent's MCP server answers; shell outside rm, and rm out of the copy, are refused", async () => {
  const r = await run("gemini-cli", [
    { shell: "touch made-by-shell.txt" },
    { shell: "rm -- ../outside.txt" },
    { delete: { path: "gone.txt" } },
    { call: { tool: "ping" } },
    { echo: "ping said: " },
  ], { mcp: true });
  try {
    const detail = `exit ${r.code}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}\n` +
      `replies: ${r.replies.join(", ")}`;
    assert.equal(r.code, 0, detail);
    const report = JSON.parse(r.stdout);
    assert.equal(report.session_id, r.plan.sessionId, "the chosen session id is kept");
    const asked = r.replies.filter((x) => x.startsWith("tool:"));
    assert.deepEqual(asked, [
      "tool:run_shell_command",
      "tool:run_shell_command",
      "tool:run_shell_command",
      "tool:mcp_pinger_ping",
    ], detail);
    // The server ran with the environment the install gave it (Gemini fences tool output).
    assert.match(report.response, /^ping said: .*ping answered \{\} mark-42/s, detail);
    assert.equal(existsSync(join(r.repo, "made-by-shell.txt")), false, "touch was refused");
    assert.equal(existsSync(join(r.root, "outside.txt")), true, "rm outside the copy was refused");
    assert.equal(existsSync(join(r.repo, "gone.txt")), false, "rm inside the copy ran");
  } finally {
    rmSync(r.root, { recursive: true, force: true });
  }
});
