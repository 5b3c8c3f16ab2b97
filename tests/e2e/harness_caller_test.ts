/**
 * Real harnesses as the caller: Claude Code (`claude -p`), Codex (`codex exec`) and OpenCode
 * (`opencode run`), set up only by the README's steps (`observal registry a2a submit` and
 * `review` for an approved agent, `observal mcp install --harness X`, plus `--allow-headless`
 * for headless use), run in a loopback-only network namespace against the scripted model,
 * whose plan calls `find_agents` and then `delegate` on observal-agents. The delegated
 * agent's answer must reach the caller's model; without the opt-in Claude Code and Codex
 * must refuse the call, which is why the opt-in exists.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureHarnessCli, type HarnessCliKey, harnessTestEnv } from "../support/harness_clis.ts";
import { type RecordedRequest, scriptText } from "../support/model_server.ts";
import { type NetnsModelServer, runEntered, startModelServerInNetns } from "../support/netns.ts";
import { firstLine, MAIN } from "../support/process.ts";

const AGENT_MAIN = fileURLToPath(new URL("../support/a2a_agent_main.ts", import.meta.url));

/** What each harness says when it refuses an MCP tool in a headless run. */
const DENIALS: Partial<Record<HarnessCliKey, RegExp>> = {
  "claude-code": /requested permissions to use mcp__observal-agents__delegate/,
  codex: /MCP tool call requires approval, but approval policy is never/,
};

interface Caller {
  repo: string;
  env: Record<string, string>;
  model: NetnsModelServer;
  agentId: string;
  observal(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

/** A caller's repository and home, and an approved remote agent inside the namespace. */
async function caller(key: HarnessCliKey): Promise<Caller> {
  const model = await startModelServerInNetns();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-caller-")));
  const home = join(root, "home");
  const repo = join(root, "repo");
  mkdirSync(repo, { recursive: true });
  const env: Record<string, string> = {
    ...harnessTestEnv(key, { home, modelUrl: model.url }),
    OBSERVAL_HOME: join(home, ".observal"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: join(root, "gitconfig"),
  };
  // Claude Code's own folder exists once it has run; a user-scope install writes there.
  if (env.CLAUDE_CONFIG_DIR) mkdirSync(env.CLAUDE_CONFIG_DIR, { recursive: true });
  writeFileSync(env.GIT_CONFIG_GLOBAL, "[user]\n\tname = Test\n\temail = test@example.com\n");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "README.md"), "caller\n");
  git("add", "-A");
  git("commit", "-q", "-m", "init");
  // The agent serves inside the namespace, where the MCP server the harness starts looks.
  const agent = new Deno.Command("setpriv", {
    args: ["--pdeathsig", "KILL", ...model.enter, Deno.execPath(), "run", "-A", AGENT_MAIN],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const close = async () => {
    try {
      agent.kill("SIGTERM");
    } catch { /* already gone */ }
    await agent.status;
    await model.close();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const line = await firstLine(agent.stdout);
    if (!line) throw new Error("the A2A agent exited before listening");
    const cardUrl = line.split(" ")[1];
    const observal = (args: string[]) =>
      runEntered(model.enter, [Deno.execPath(), "run", "-A", MAIN, ...args], { cwd: repo, env });
    const ok = async (args: string[]) => {
      const r = await observal(args);
      assert.equal(r.code, 0, `observal ${args.join(" ")}: ${r.stdout}${r.stderr}`);
      return r.stdout;
    };
    await ok(["registry", "settings", "set", "discovery.a2a_private_hosts", "127.0.0.1"]);
    const card = JSON.parse(await ok(["registry", "a2a", "submit", cardUrl, "--json"]));
    const agentId = String(card.identifier);
    await ok([
      "registry",
      "a2a",
      "review",
      agentId,
      "--approve",
      "--digest",
      String(card["obs:artifactDigest"]),
    ]);
    return { repo, env, model, agentId, observal, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The headless command a user runs, with the prompt where the harness keeps it whole. */
function headless(key: HarnessCliKey, bin: string, prompt: string, repo: string): string[] {
  switch (key) {
    case "claude-code":
      return [bin, "-p", prompt, "--output-format", "json"];
    case "codex":
      return [bin, "exec", "--json", prompt];
    default:
      // OpenCode's run quotes a message that holds double quotes: the plan goes in AGENTS.md.
      writeFileSync(join(repo, "AGENTS.md"), `${prompt}\n`);
      return [bin, "run", "--format", "json", "Run your plan."];
  }
}

/** The requests that followed the model's call of `tool`. */
function after(requests: RecordedRequest[], tool: string): RecordedRequest[] {
  const at = requests.findIndex((r) => r.reply.startsWith("tool:") && r.reply.endsWith(tool));
  return at < 0 ? [] : requests.slice(at + 1).filter((r) => r.wire !== null);
}

async function callerRun(key: HarnessCliKey, installArgs: string[]) {
  const cli = await ensureHarnessCli(key);
  const c = await caller(key);
  try {
    const install = await c.observal(["mcp", "install", "--harness", key, ...installArgs]);
    assert.equal(install.code, 0, install.stderr);
    const message = `brief-${crypto.randomUUID().slice(0, 8)}`;
    const prompt = `Find an agent and delegate to it. ${
      scriptText([
        { call: { tool: "find_agents", args: { task: "echo things back" } } },
        {
          call: {
            tool: "delegate",
            args: { agent: c.agentId, message, wait_seconds: 30 },
          },
        },
        { echo: "Caller got: " },
      ])
    }`;
    const run = await runEntered(c.model.enter, headless(key, cli.bin, prompt, c.repo), {
      cwd: c.repo,
      env: c.env,
    });
    const requests = c.model.requests();
    const detail = `install:\n${install.stdout}\nexit ${run.code}\n${run.stdout.slice(-3000)}\n${
      run.stderr.slice(-2000)
    }\n${requests.map((q) => `${q.path} -> ${q.reply.slice(0, 200)}`).join("\n")}`;
    return { c, run, requests, message, install, detail };
  } catch (err) {
    await c.close();
    throw err;
  }
}

/** Each harness with the install a user would run for headless use, at each scope. */
const ALLOWED: Array<[HarnessCliKey, string[]]> = [
  ["claude-code", ["--allow-headless"]],
  ["claude-code", ["--scope", "user", "--allow-headless"]],
  ["codex", ["--allow-headless"]],
  ["codex", ["--scope", "project", "--allow-headless"]],
  ["opencode", []],
];

for (const [key, installArgs] of ALLOWED) {
  Deno.test(`${key} as the caller (mcp install ${installArgs.join(" ") || "with no flags"}): find_agents then delegate through observal-agents, the agent's answer reaches the model`, async () => {
    const { c, requests, message, install, detail } = await callerRun(key, installArgs);
    try {
      // find_agents answered with the approved agent.
      const found = after(requests, "find_agents");
      assert.ok(found.length > 0, `find_agents was never called\n${detail}`);
      assert.ok(JSON.stringify(found[0].body).includes(c.agentId), detail);
      // The delegated agent's answer is in the caller model's next request.
      const delegated = after(requests, "delegate");
      assert.ok(delegated.length > 0, `delegate was never called\n${detail}`);
      assert.ok(JSON.stringify(delegated[0].body).includes(`echo:${message}`), detail);
      assert.match(delegated[0].reply, /^text:Caller got: /, detail);
      if (DENIALS[key]) assert.doesNotMatch(JSON.stringify(delegated[0].body), DENIALS[key]!);
      // The install said what it let through.
      if (key !== "opencode") assert.match(install.stdout, /may now call its tools/, detail);
    } finally {
      await c.close();
    }
  });
}

for (const key of ["claude-code", "codex"] as const) {
  Deno.test(`${key} as the caller without --allow-headless: the headless run refuses delegate, and the install said so`, async () => {
    const { c, requests, message, install, detail } = await callerRun(key, []);
    try {
      const delegated = after(requests, "delegate");
      assert.ok(delegated.length > 0, `delegate was never called\n${detail}`);
      const body = JSON.stringify(delegated[0].body);
      assert.match(body, DENIALS[key]!, detail);
      assert.ok(!requests.some((q) => JSON.stringify(q.body).includes(`echo:${message}`)));
      assert.match(install.stdout, /--allow-headless/, detail);
    } finally {
      await c.close();
    }
  });
}

Deno.test("codex as the caller with a project entry it has not been told to trust: the tools are not there, and the install named the trust step", async () => {
  const { c, requests, install, detail } = await callerRun("codex", ["--scope", "project"]);
  try {
    assert.match(install.stdout, /Codex reads \.codex\/config\.toml only in a trusted project/);
    const offered = requests.filter((q) => q.wire !== null).flatMap((q) => q.tools);
    assert.ok(!offered.some((t) => t.includes("observal")), detail);
    assert.ok(!requests.some((q) => q.reply.startsWith("tool:mcp__observal")), detail);
  } finally {
    await c.close();
  }
});
