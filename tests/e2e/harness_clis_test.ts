/**
 * The real harness CLIs (Claude Code, Codex, Pi, OpenCode, Copilot CLI) run headless in a
 * throwaway git repository against the scripted model server, inside a loopback-only network
 * namespace where the machine allows one. These tests pin the facts the harness adapters rely
 * on: the argv that works, how the task and the agent's instructions get in, where the final
 * answer and the session id come out, how shell is refused while deletes still work, how MCP
 * servers are passed and named, which files a CLI writes into the repository by itself, and
 * the exit code when the model fails.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ensureHarnessCli,
  type HarnessCli,
  type HarnessCliKey,
  harnessTestEnv,
} from "../support/harness_clis.ts";
import {
  type RecordedRequest,
  type ScriptStep,
  scriptText,
  startModelServer,
} from "../support/model_server.ts";
import {
  type NetnsModelServer,
  netnsSupported,
  startModelServerInNetns,
} from "../support/netns.ts";
import { fakeMcpScript } from "../support/fake_mcp.ts";

const NODE = fileURLToPath(new URL("../../node_modules/node/bin/node", import.meta.url));
const SESSION_ID = "6f1c2d4e-1111-4222-8333-944455556666";
const FINAL = "All three changes are made.";
const AGENT = "scripted-worker";
const DESCRIPTION = "Follows a scripted plan";
/** Starts with dashes: a task must never be read as a flag. */
const TASK = "--version is not a flag here: carry out the scripted plan.";

const EDITS: ScriptStep[] = [
  { write: { path: "new.txt", content: "created by the agent\n" } },
  { edit: { path: "edit.txt", old: "hello world", new: "hello agent" } },
  { delete: { path: "gone.txt" } },
  { say: FINAL },
];

/** A stdio MCP server named observal-agents whose tools echo their input and an env marker. */
const FAKE_MCP = fakeMcpScript(
  "observal-agents",
  ["find_agents", "delegate", "get_task"],
  "OBSERVAL_MCP_MARK",
);

interface Sandbox {
  key: HarnessCliKey;
  root: string;
  repo: string;
  home: string;
  /** Outside the repository: files the adapter writes for a run (configs, last message). */
  scratch: string;
  cli: HarnessCli;
  model: NetnsModelServer;
  env: Record<string, string>;
  /** The fake MCP server, written into scratch. */
  mcp: { command: string; args: string[]; mark: string };
  close(): Promise<void>;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  requests: RecordedRequest[];
}

function git(repo: string, args: string[]): string {
  const out = new Deno.Command("git", {
    args,
    cwd: repo,
    env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** `git status` lines, ignored files included, so nothing a CLI writes can hide. */
function status(repo: string): string[] {
  return git(repo, ["status", "--porcelain", "--ignored", "--untracked-files=all"])
    .split("\n").filter((l) => l.length > 0).sort();
}

function put(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

async function sandbox(key: HarnessCliKey): Promise<Sandbox> {
  const cli = await ensureHarnessCli(key);
  const root = mkdtempSync(join(tmpdir(), `observal-${key}-`));
  const repo = join(root, "repo");
  const home = join(root, "home");
  const scratch = join(root, "scratch");
  mkdirSync(repo);
  mkdirSync(scratch);
  put(join(repo, "edit.txt"), "hello world\nsecond line\n");
  put(join(repo, "gone.txt"), "delete me\n");
  // Outside the repository: a shell that is properly confined cannot delete it.
  put(join(root, "outside.txt"), "keep me\n");
  git(repo, ["init", "-q", "-b", "main"]);
  git(repo, ["add", "."]);
  git(repo, ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"]);
  let model: NetnsModelServer | undefined;
  try {
    model = await startModelServerInNetns();
    const env = harnessTestEnv(key, { home, modelUrl: model.url });
    const mcpScript = put(join(scratch, "fake-mcp.mjs"), FAKE_MCP);
    const running = model;
    return {
      key,
      root,
      repo,
      home,
      scratch,
      cli,
      model,
      env,
      mcp: { command: NODE, args: [mcpScript], mark: `mcp-env-${key}` },
      close: async () => {
        await running.close();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await model?.close();
    rmSync(root, { recursive: true, force: true });
    throw e;
  }
}

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

/**
 * Runs the CLI in the sandbox's namespace, in its own process group (setsid) so that whatever
 * it leaves behind (MCP servers, shells, the native binary behind a node launcher) is killed.
 */
async function run(
  sb: Sandbox,
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Run> {
  const argv = ["setsid", ...sb.model.enter, sb.cli.bin, ...args];
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: sb.repo,
    // Codex makes its sandbox helper's links only outside its temp dir, and the test's
    // CODEX_HOME lies under /tmp: the adapter points TMPDIR at scratch for the same reason.
    env: { ...sb.env, ...(sb.key === "codex" ? { TMPDIR: sb.scratch } : {}), ...options.env },
    clearEnv: true,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = drain(child.stdout);
  const stderr = drain(child.stderr);
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, options.timeoutMs ?? 120_000);
  const { code } = await child.status;
  clearTimeout(timer);
  killGroup(child.pid);
  return {
    code,
    stdout: await stdout,
    stderr: await stderr,
    timedOut,
    requests: sb.model.requests(),
  };
}

function describeRun(r: Run): string {
  return `exit ${r.code}${r.timedOut ? " (timed out)" : ""}\nstdout:\n${r.stdout.slice(-3000)}\n` +
    `stderr:\n${r.stderr.slice(-3000)}\nrequests: ${
      r.requests.map((q) => `${q.method} ${q.path} -> ${q.reply}`).join("\n  ")
    }`;
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l));
}

/** The answers to model calls (POSTs on the wire), in order. */
function replies(r: Run): string[] {
  return r.requests.filter((q) => q.wire !== null).map((q) => q.reply);
}

function assertEdited(sb: Sandbox, r: Run): void {
  assert.equal(r.code, 0, describeRun(r));
  assert.equal(readFileSync(join(sb.repo, "new.txt"), "utf8"), "created by the agent\n");
  assert.equal(readFileSync(join(sb.repo, "edit.txt"), "utf8"), "hello agent\nsecond line\n");
  assert.equal(existsSync(join(sb.repo, "gone.txt")), false, "gone.txt is deleted");
}

/** The three scripted changes, plus the given extra status lines. */
function editedStatus(...extra: string[]): string[] {
  return [" D gone.txt", " M edit.txt", "?? new.txt", ...extra].sort();
}

/** Every request went to one of the given routes (method and pathname). */
function assertRoutes(r: Run, routes: string[]): void {
  for (const q of r.requests) {
    assert.ok(routes.includes(`${q.method} ${q.pathname}`), `unexpected ${q.method} ${q.path}`);
  }
}

/** The requests that offered tools (not titles or other side calls). */
function toolRequests(r: Run): RecordedRequest[] {
  return r.requests.filter((q) => q.tools.length > 0);
}

/** A shell step that tries to delete a file outside the repository. */
function outsideStep(sb: Sandbox): ScriptStep {
  return { shell: `rm -f ${join(sb.root, "outside.txt")}` };
}

function outsideKept(sb: Sandbox): boolean {
  return existsSync(join(sb.root, "outside.txt"));
}

function probeUrl(sb: Sandbox): string {
  return `${sb.model.url}/v1/models?probe=${sb.key}`;
}

/** Whether a shell command reached the model server (a curl that was not refused). */
function probed(r: Run): boolean {
  return r.requests.some((q) => q.method === "GET" && q.path.includes("probe="));
}

/** Whether the text an MCP tool answered reached the model in a later request. */
function mcpAnswerReached(sb: Sandbox, r: Run): boolean {
  return r.requests.some((q) =>
    JSON.stringify(q.body).includes(`find_agents answered {\\"query\\":\\"docs\\"} ${sb.mcp.mark}`)
  );
}

/** The front matter + body profile that Claude Code, OpenCode and Copilot CLI read. */
function markdownProfile(instructions: string): string {
  return `---\nname: ${AGENT}\ndescription: ${DESCRIPTION}\n---\n${instructions}\n`;
}

/** Instructions inlined into the task, for harnesses without an agent flag (Codex, Pi). */
function inlined(steps: ScriptStep[]): string {
  return `${TASK}\n\n<agent-instructions name="${AGENT}">\nYou follow a scripted plan. ` +
    `${scriptText(steps)}\n</agent-instructions>`;
}

function withSandbox(key: HarnessCliKey, body: (sb: Sandbox) => Promise<void>) {
  return async () => {
    const sb = await sandbox(key);
    try {
      await body(sb);
    } finally {
      await sb.close();
    }
  };
}

// ---------------------------------------------------------------------------------------------
// The scripted model server and the namespace

/** The `data:` payloads of a server-sent event stream. */
function sseData(text: string): unknown[] {
  return text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).map((d) =>
    d === "[DONE]" ? d : JSON.parse(d)
  );
}

interface ChatChunk {
  choices: Array<{
    delta: {
      tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    };
  }>;
}

interface GeminiChunk {
  candidates: Array<
    { content: { parts: Array<{ functionCall?: unknown }> }; finishReason: string }
  >;
}

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const CHAT_TOOLS = [
  {
    type: "function",
    function: {
      name: "write",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "bash",
      parameters: { type: "object", properties: { command: { type: "string" } } },
    },
  },
];

Deno.test("startModelServer() plays a script over Chat Completions, streaming and not", async () => {
  const server = await startModelServer();
  const cwd = mkdtempSync(join(tmpdir(), "observal-model-"));
  try {
    const system = `Current working directory: ${cwd}\n${
      scriptText([{ write: { path: "a.txt", content: "A" } }, { delete: { path: "b.txt" } }])
    }`;
    const messages: unknown[] = [{ role: "system", content: system }, {
      role: "user",
      content: "go",
    }];
    const first = await post(`${server.url}/v1/chat/completions`, {
      model: "m",
      messages,
      tools: CHAT_TOOLS,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(first.status, 200);
    const chunks = sseData(first.text) as ChatChunk[];
    assert.equal(chunks.at(-1), "[DONE]");
    assert.deepEqual(chunks.at(-2)?.choices, [], "a usage chunk with no choices precedes [DONE]");
    const call = chunks[0].choices[0].delta.tool_calls![0];
    assert.equal(call.function.name, "write");
    const args = chunks[1].choices[0].delta.tool_calls![0].function.arguments;
    assert.deepEqual(JSON.parse(args), { path: join(cwd, "a.txt"), content: "A" });
    messages.push(
      {
        role: "assistant",
        tool_calls: [{ id: call.id, type: "function", function: call.function }],
      },
      { role: "tool", tool_call_id: call.id, content: "ok" },
    );
    const second = JSON.parse(
      (await post(`${server.url}/v1/chat/completions`, { model: "m", messages, tools: CHAT_TOOLS }))
        .text,
    );
    const shell = second.choices[0].message.tool_calls[0].function;
    assert.equal(shell.name, "bash");
    assert.deepEqual(JSON.parse(shell.arguments), { command: "rm -- 'b.txt'" });
    assert.equal(second.choices[0].finish_reason, "tool_calls");
    messages.push({ role: "tool", tool_call_id: "x", content: "ok" });
    const third = JSON.parse(
      (await post(`${server.url}/v1/chat/completions`, { model: "m", messages, tools: CHAT_TOOLS }))
        .text,
    );
    assert.equal(third.choices[0].message.content, "done", "after the last step: done");
    // A request offering no tools (a title request) gets plain text.
    const title = JSON.parse((await post(`${server.url}/v1/chat/completions`, { messages })).text);
    assert.equal(title.choices[0].message.content, "ok");
    const recorded = server.requests();
    assert.deepEqual(recorded.map((r) => r.reply), [
      "tool:write",
      "tool:bash",
      "text:done",
      "text:ok",
    ]);
    assert.deepEqual(recorded[0].tools, ["write", "bash"]);
    assert.equal(recorded[0].headers["content-type"], "application/json");
    assert.deepEqual((recorded[0].body as { model: string }).model, "m");
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
});

Deno.test("startModelServer() answers Gemini with functionCall parts, streaming and not", async () => {
  const server = await startModelServer();
  const cwd = mkdtempSync(join(tmpdir(), "observal-model-"));
  try {
    const body = {
      systemInstruction: {
        parts: [{ text: `I'm currently working in the directory: ${cwd}` }],
      },
      contents: [{
        role: "user",
        parts: [{ text: scriptText([{ write: { path: "g.txt", content: "G" } }, { say: "bye" }]) }],
      }],
      tools: [{
        functionDeclarations: [{
          name: "write_file",
          parametersJsonSchema: {
            type: "object",
            properties: { file_path: { type: "string" }, content: { type: "string" } },
          },
        }],
      }],
    };
    const streamed = await post(
      `${server.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
      body,
    );
    const [chunk] = sseData(streamed.text) as GeminiChunk[];
    assert.deepEqual(chunk.candidates[0].content.parts[0].functionCall, {
      name: "write_file",
      args: { file_path: join(cwd, "g.txt"), content: "G" },
    });
    assert.equal(chunk.candidates[0].finishReason, "STOP");
    body.contents.push(
      { role: "model", parts: [{ functionCall: { name: "write_file", args: {} } }] as never },
      {
        role: "user",
        parts: [{ functionResponse: { name: "write_file", response: { output: "ok" } } }] as never,
      },
    );
    const plain = JSON.parse(
      (await post(`${server.url}/v1beta/models/gemini-2.5-flash:generateContent`, body)).text,
    );
    assert.equal(plain.candidates[0].content.parts[0].text, "bye");
    assert.deepEqual(server.requests().map((r) => r.wire), ["gemini", "gemini"]);
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
});

Deno.test("startModelServer() speaks Anthropic and Responses and answers side routes", async () => {
  const server = await startModelServer();
  try {
    assert.equal((await fetch(server.url, { method: "HEAD" })).status, 200);
    const models = await (await fetch(`${server.url}/v1/models`)).json();
    assert.equal(models.data[0].id, "fake-model");
    const count = await post(`${server.url}/v1/messages/count_tokens`, { messages: [] });
    assert.equal(JSON.parse(count.text).input_tokens, 10);
    const script = scriptText([{ edit: { path: "e.txt", old: "a", new: "b" } }]);
    const message = JSON.parse(
      (await post(`${server.url}/v1/messages?beta=true`, {
        system: [{ type: "text", text: script }],
        messages: [{ role: "user", content: "go" }],
        tools: [{
          name: "Edit",
          input_schema: {
            type: "object",
            properties: {
              file_path: { type: "string" },
              old_string: { type: "string" },
              new_string: { type: "string" },
            },
          },
        }],
      })).text,
    );
    assert.equal(message.stop_reason, "tool_use");
    assert.deepEqual(message.content[0].input, {
      file_path: "e.txt",
      old_string: "a",
      new_string: "b",
    });
    const response = JSON.parse(
      (await post(`${server.url}/v1/responses`, {
        instructions: scriptText([{ delete: { path: "d.txt" } }]),
        input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "go" }] }],
        tools: [{ type: "custom", name: "apply_patch", format: { type: "grammar" } }],
      })).text,
    );
    assert.equal(response.status, "completed");
    assert.deepEqual(response.output[0].type, "custom_tool_call");
    assert.equal(
      response.output[0].input,
      "*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\n",
    );
    assert.deepEqual(server.requests().map((r) => r.reply), [
      "route:head",
      "route:models",
      "route:count_tokens",
      "tool:Edit",
      "tool:apply_patch",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("startModelServer() restarts the count at the last user turn, with its script", async () => {
  const server = await startModelServer();
  try {
    const first = scriptText([{ shell: "first" }]);
    const reply = scriptText([{ shell: "second" }, { say: "resumed" }]);
    const messages = [
      { role: "system", content: first },
      { role: "user", content: "go" },
      {
        role: "assistant",
        tool_calls: [{ id: "1", type: "function", function: { name: "bash" } }],
      },
      { role: "tool", tool_call_id: "1", content: "ok" },
      { role: "assistant", content: "done" },
      { role: "user", content: `more ${reply}` },
    ];
    const answer = async () =>
      JSON.parse(
        (await post(`${server.url}/v1/chat/completions`, { messages, tools: CHAT_TOOLS })).text,
      ).choices[0].message;
    assert.deepEqual(JSON.parse((await answer()).tool_calls[0].function.arguments), {
      command: "second",
    });
    messages.push(
      {
        role: "assistant",
        tool_calls: [{ id: "2", type: "function", function: { name: "bash" } }],
      },
      { role: "tool", tool_call_id: "2", content: "ok" },
    );
    assert.equal((await answer()).content, "resumed");
  } finally {
    await server.close();
  }
});

Deno.test("startModelServer() stays silent for a sleep step, and close() ends the wait", async () => {
  const asleep: number[] = [];
  let wake: (() => void) | undefined;
  const server = await startModelServer({
    onSleep: (_, ms) => {
      asleep.push(ms);
      wake?.();
    },
  });
  const body = (ms: number) => ({
    messages: [{ role: "user", content: scriptText([{ sleep: ms }, { say: "late" }]) }],
    tools: CHAT_TOOLS,
  });
  try {
    const started = performance.now();
    const late = JSON.parse((await post(`${server.url}/v1/chat/completions`, body(400))).text);
    assert.equal(late.choices[0].message.content, "late");
    assert.ok(performance.now() - started >= 390, "the answer came after the sleep");
    const sleeping = new Promise<void>((resolve) => (wake = resolve));
    const pending = post(`${server.url}/v1/chat/completions`, body(60_000));
    await sleeping;
    const closing = performance.now();
    await server.close();
    assert.equal((await pending).status, 503);
    assert.ok(performance.now() - closing < 10_000, "close() did not wait out the sleep");
    assert.deepEqual(asleep, [400, 60_000]);
  } finally {
    await server.close();
  }
});

Deno.test("startModelServerInNetns() serves only inside its namespace and leaves no process", async () => {
  const outside = await startModelServer();
  const model = await startModelServerInNetns();
  let pid: number | null = null;
  try {
    assert.equal(model.isolated, await netnsSupported());
    assert.equal(model.isolated, true, "this machine allows network namespaces");
    pid = model.pid;
    assert.ok(pid && existsSync(`/proc/${pid}`));
    const curl = (url: string) =>
      new Deno.Command(model.enter[0], {
        args: [...model.enter.slice(1), "curl", "-s", "-m", "5", url],
        stdout: "piped",
        stderr: "null",
      }).output();
    const inside = await curl(`${model.url}/v1/models`);
    assert.equal(inside.code, 0);
    assert.match(new TextDecoder().decode(inside.stdout), /fake-model/);
    const host = await curl(`${outside.url}/v1/models`);
    assert.notEqual(host.code, 0, "the host's loopback is out of reach");
    assert.equal(outside.requests().length, 0);
    assert.deepEqual(model.requests().map((r) => `${r.method} ${r.path}`), ["GET /v1/models"]);
  } finally {
    await model.close();
    await outside.close();
  }
  assert.equal(existsSync(`/proc/${pid}`), false, "the server process is gone");
  assert.equal(model.requests().length, 1, "requests stay readable after close");
});

// ---------------------------------------------------------------------------------------------
// Claude Code

const CLAUDE_ROUTES = ["POST /v1/messages", "HEAD /", "POST /v1/messages/count_tokens"];

Deno.test(
  "claude-code: -p --agent with the task on stdin creates, edits and deletes files",
  withSandbox("claude-code", async (sb) => {
    put(
      join(sb.repo, ".claude", "agents", `${AGENT}.md`),
      markdownProfile(`You follow a scripted plan. ${scriptText(EDITS)}`),
    );
    const mcpConfig = put(join(sb.scratch, "mcp.json"), JSON.stringify({ mcpServers: {} }));
    const r = await run(sb, [
      "-p",
      "--agent",
      AGENT,
      "--output-format",
      "json",
      "--permission-mode",
      "acceptEdits",
      "--session-id",
      SESSION_ID,
      "--mcp-config",
      mcpConfig,
      "--strict-mcp-config",
    ], { stdin: TASK });
    assertEdited(sb, r);
    const result = JSON.parse(r.stdout);
    assert.equal(result.type, "result");
    assert.equal(result.is_error, false);
    assert.equal(result.result, FINAL);
    assert.equal(result.session_id, SESSION_ID);
    assert.deepEqual(result.permission_denials, []);
    // The profile is the only file besides the edits: the CLI writes nothing into the repo.
    assert.deepEqual(status(sb.repo), editedStatus(`?? .claude/agents/${AGENT}.md`));
    assertRoutes(r, CLAUDE_ROUTES);
    assert.deepEqual(replies(r), ["tool:Write", "tool:Edit", "tool:Bash", `text:${FINAL}`]);
    const first = toolRequests(r)[0];
    assert.equal(first.headers["x-claude-code-session-id"], SESSION_ID);
    assert.ok(JSON.stringify(first.body).includes(TASK), "the task reached the model");
  }),
);

Deno.test(
  "claude-code: print mode runs rm but refuses curl; dontAsk with Bash(rm:*) allows only rm",
  withSandbox("claude-code", async (sb) => {
    const steps: ScriptStep[] = [
      { shell: `curl -s -m 5 ${probeUrl(sb)}` },
      outsideStep(sb),
      { shell: "touch shell.txt" },
      { delete: { path: "gone.txt" } },
      { say: "finished" },
    ];
    const commands = steps.flatMap((s) => "shell" in s ? [s.shell] : []);
    // --agents defines the agent inline: no profile file in the repository or the user config.
    const agents = { [AGENT]: { description: DESCRIPTION, prompt: scriptText(steps) } };
    const common = ["-p", "--agents", JSON.stringify(agents), "--agent", AGENT];
    const denied = (r: Run) =>
      JSON.parse(r.stdout).permission_denials.map((d: { tool_input: { command?: string } }) =>
        d.tool_input.command
      );
    // acceptEdits without any Bash rule: file commands inside the working directory run.
    const accept = await run(sb, [
      ...common,
      "--output-format",
      "json",
      "--permission-mode",
      "acceptEdits",
    ], { stdin: TASK });
    assert.equal(accept.code, 0, describeRun(accept));
    assert.equal(probed(accept), false, "curl was refused");
    assert.equal(outsideKept(sb), true, "rm outside the working directory was refused");
    assert.deepEqual(denied(accept), commands.slice(0, 2));
    assert.deepEqual(status(sb.repo), [" D gone.txt", "?? shell.txt"]);
    git(sb.repo, ["checkout", "-q", "--", "gone.txt"]);
    rmSync(join(sb.repo, "shell.txt"));
    // dontAsk refuses whatever no rule allows: only rm (inside the working directory) runs.
    const strict = await run(sb, [
      ...common,
      "--output-format",
      "json",
      "--permission-mode",
      "dontAsk",
      "--allowedTools",
      "Read,Glob,Grep,Edit,Write,Bash(rm:*)",
      "--session-id",
      SESSION_ID,
    ], { stdin: TASK });
    assert.equal(strict.code, 0, describeRun(strict));
    assert.equal(JSON.parse(strict.stdout).result, "finished");
    assert.equal(probed(strict), false, "curl was refused");
    assert.equal(outsideKept(sb), true, "rm outside the working directory was refused");
    assert.deepEqual(denied(strict), commands);
    assert.deepEqual(status(sb.repo), [" D gone.txt"]);
  }),
);

Deno.test(
  "claude-code: --mcp-config servers are deferred behind ToolSearch as mcp__<server>__<tool>",
  withSandbox("claude-code", async (sb) => {
    const steps: ScriptStep[] = [
      { call: { tool: "find_agents", args: { query: "docs" } } },
      { say: "called" },
    ];
    put(
      join(sb.repo, ".claude", "agents", `${AGENT}.md`),
      markdownProfile(scriptText(steps)),
    );
    const config = {
      mcpServers: {
        "observal-agents": {
          command: sb.mcp.command,
          args: sb.mcp.args,
          env: { OBSERVAL_MCP_MARK: sb.mcp.mark },
        },
      },
    };
    const mcpConfig = put(join(sb.scratch, "mcp.json"), JSON.stringify(config));
    const r = await run(sb, [
      "-p",
      "--agent",
      AGENT,
      "--output-format",
      "json",
      "--permission-mode",
      "acceptEdits",
      "--session-id",
      SESSION_ID,
      "--mcp-config",
      mcpConfig,
      "--strict-mcp-config",
      // In print mode an MCP tool needs an allow rule, or the call is denied.
      "--allowedTools",
      "mcp__observal-agents",
    ], { stdin: TASK });
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(replies(r), [
      "tool:ToolSearch",
      "tool:mcp__observal-agents__find_agents",
      "text:called",
    ]);
    assert.ok(!toolRequests(r)[0].tools.some((t) => t.startsWith("mcp__")), "deferred at first");
    assert.ok(mcpAnswerReached(sb, r), describeRun(r));
  }),
);

Deno.test(
  "claude-code: exits 1 with is_error when the model answers 400",
  withSandbox("claude-code", async (sb) => {
    const agents = {
      [AGENT]: {
        description: DESCRIPTION,
        prompt: scriptText([{ fail: { status: 400, message: "scripted refusal" } }]),
      },
    };
    const r = await run(sb, [
      "-p",
      "--agents",
      JSON.stringify(agents),
      "--agent",
      AGENT,
      "--output-format",
      "json",
      "--session-id",
      SESSION_ID,
    ], { stdin: TASK });
    assert.equal(r.code, 1, describeRun(r));
    const result = JSON.parse(r.stdout);
    assert.equal(result.is_error, true);
    assert.equal(result.api_error_status, 400);
    assert.match(result.result, /scripted refusal/);
    assert.equal(result.session_id, SESSION_ID);
  }),
);

// ---------------------------------------------------------------------------------------------
// Codex

const CODEX_ROUTES = ["POST /v1/responses"];

function codexArgs(sb: Sandbox, extra: string[], prompt: string): string[] {
  return [
    "exec",
    "--cd",
    sb.repo,
    "--sandbox",
    "workspace-write",
    "--skip-git-repo-check",
    "--output-last-message",
    join(sb.scratch, "last-message.txt"),
    "--json",
    ...extra,
    "--",
    prompt,
  ];
}

function codexThreadId(r: Run): string {
  const started = jsonLines(r.stdout).find((e) => e.type === "thread.started");
  assert.ok(started, describeRun(r));
  return String(started.thread_id);
}

Deno.test(
  "codex: exec with the task after -- creates, edits and deletes files through apply_patch",
  withSandbox("codex", async (sb) => {
    const r = await run(sb, codexArgs(sb, [], inlined(EDITS)));
    assertEdited(sb, r);
    assert.equal(readFileSync(join(sb.scratch, "last-message.txt"), "utf8").trim(), FINAL);
    const events = jsonLines(r.stdout);
    const messages = events.filter((e) =>
      e.type === "item.completed" && (e.item as { type: string }).type === "agent_message"
    );
    assert.equal((messages.at(-1)?.item as { text: string }).text, FINAL);
    const changes = events.filter((e) =>
      e.type === "item.completed" && (e.item as { type: string }).type === "file_change"
    );
    assert.equal(changes.length, 3);
    const threadId = codexThreadId(r);
    assert.match(threadId, /^[0-9a-f-]{36}$/);
    assert.equal(toolRequests(r)[0].headers["session-id"], threadId);
    assert.deepEqual(status(sb.repo), editedStatus());
    assertRoutes(r, CODEX_ROUTES);
    assert.deepEqual(replies(r), [
      "tool:apply_patch",
      "tool:apply_patch",
      "tool:apply_patch",
      `text:${FINAL}`,
    ]);
    assert.ok(JSON.stringify(toolRequests(r)[0].body).includes(TASK), "the task reached the model");
  }),
);

Deno.test(
  "codex: the workspace-write sandbox lets rm run and blocks the network and /tmp",
  withSandbox("codex", async (sb) => {
    const steps: ScriptStep[] = [
      { shell: `curl -s -m 5 ${probeUrl(sb)}; echo curl-exit=$?` },
      outsideStep(sb),
      { shell: "rm -- gone.txt" },
      { say: "finished" },
    ];
    // By default workspace-write also lets commands write /tmp and $TMPDIR.
    const r = await run(
      sb,
      codexArgs(sb, [
        "-c",
        "sandbox_workspace_write.exclude_slash_tmp=true",
        "-c",
        "sandbox_workspace_write.exclude_tmpdir_env_var=true",
      ], inlined(steps)),
    );
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(probed(r), false, "curl did not reach the model server");
    assert.equal(outsideKept(sb), true, "rm outside the workspace failed");
    assert.deepEqual(replies(r), [
      "tool:exec_command",
      "tool:exec_command",
      "tool:exec_command",
      "text:finished",
    ]);
    assert.match(JSON.stringify(r.requests.at(-1)?.body), /curl-exit=7/);
    assert.deepEqual(status(sb.repo), [" D gone.txt"]);
  }),
);

Deno.test(
  "codex: -c mcp_servers.* tools load through tool_search as namespace mcp__observal_agents",
  withSandbox("codex", async (sb) => {
    const steps: ScriptStep[] = [
      { call: { tool: "find_agents", args: { query: "docs" } } },
      { say: "called" },
    ];
    const server = "mcp_servers.observal-agents";
    const r = await run(
      sb,
      codexArgs(sb, [
        "-c",
        `${server}.command=${JSON.stringify(sb.mcp.command)}`,
        "-c",
        `${server}.args=${JSON.stringify(sb.mcp.args)}`,
        "-c",
        `${server}.env.OBSERVAL_MCP_MARK=${JSON.stringify(sb.mcp.mark)}`,
        // exec never asks, so without this an MCP call fails "requires approval".
        "-c",
        `${server}.default_tools_approval_mode="approve"`,
      ], inlined(steps)),
    );
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(replies(r), [
      "tool:tool_search",
      "tool:mcp__observal_agents__find_agents",
      "text:called",
    ]);
    assert.ok(mcpAnswerReached(sb, r), describeRun(r));
  }),
);

Deno.test(
  "codex: exits 1 when the model answers 400",
  withSandbox("codex", async (sb) => {
    const steps: ScriptStep[] = [{ fail: { status: 400, message: "scripted refusal" } }];
    const r = await run(sb, codexArgs(sb, [], inlined(steps)));
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stdout, /scripted refusal/);
    codexThreadId(r);
  }),
);

// ---------------------------------------------------------------------------------------------
// Pi

const PI_ROUTES = ["POST /v1/chat/completions"];

/** Pi has no --session-id: a session file we create with our id in its header is used as is. */
function piSession(sb: Sandbox): string {
  return put(
    join(sb.scratch, "pi-sessions", `${SESSION_ID}.jsonl`),
    JSON.stringify({
      type: "session",
      version: 3,
      id: SESSION_ID,
      timestamp: new Date().toISOString(),
      cwd: sb.repo,
    }) + "\n",
  );
}

function piFinal(r: Run): string {
  const end = jsonLines(r.stdout).findLast((e) => e.type === "agent_end");
  assert.ok(end, describeRun(r));
  const messages = end.messages as Array<{ role: string; content: Array<{ text?: string }> }>;
  const last = messages.findLast((m) => m.role === "assistant");
  return (last?.content ?? []).map((c) => c.text ?? "").join("");
}

Deno.test(
  "pi: -p with the task on stdin creates, edits and deletes files in a session we name",
  withSandbox("pi", async (sb) => {
    const session = piSession(sb);
    const r = await run(sb, ["-p", "--mode", "json", "--session", session], {
      stdin: inlined(EDITS),
    });
    assertEdited(sb, r);
    const header = jsonLines(r.stdout)[0];
    assert.equal(header.type, "session");
    assert.equal(header.id, SESSION_ID);
    assert.equal(piFinal(r), FINAL);
    assert.ok(readFileSync(session, "utf8").includes(FINAL), "the session file holds the run");
    assert.deepEqual(status(sb.repo), editedStatus());
    assertRoutes(r, PI_ROUTES);
    assert.deepEqual(replies(r), ["tool:write", "tool:edit", "tool:bash", `text:${FINAL}`]);
  }),
);

Deno.test(
  "pi: cannot refuse shell: deleting needs bash, and bash runs anything",
  withSandbox("pi", async (sb) => {
    const steps: ScriptStep[] = [
      { shell: `curl -s -m 5 ${probeUrl(sb)}` },
      { delete: { path: "gone.txt" } },
      { say: "finished" },
    ];
    const open = await run(sb, ["-p"], { stdin: inlined(steps) });
    assert.equal(open.code, 0, describeRun(open));
    assert.equal(probed(open), true, "Pi ran curl: it has no approval step");
    assert.deepEqual(status(sb.repo), [" D gone.txt"]);
    git(sb.repo, ["checkout", "-q", "--", "gone.txt"]);
    // The only refusal Pi has is leaving bash out, and then nothing can delete a file.
    const closed = await run(sb, ["-p", "--tools", "read,edit,write"], {
      stdin: inlined([{ delete: { path: "gone.txt" } }, { say: "finished" }]),
    });
    assert.equal(closed.code, 0, describeRun(closed));
    const offered = toolRequests(closed).at(-1)?.tools ?? [];
    assert.deepEqual([...offered].sort(), ["edit", "read", "write"]);
    assert.match(closed.stdout, /no tool for delete/);
    assert.deepEqual(status(sb.repo), []);
  }),
);

Deno.test(
  "pi: rejects --approve and --session-id as unknown options",
  withSandbox("pi", async (sb) => {
    const r = await run(sb, ["-p", "--approve", "--session-id", SESSION_ID], { stdin: TASK });
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stderr, /Unknown options: --approve, --session-id/);
    assert.equal(r.requests.length, 0);
  }),
);

Deno.test(
  "pi: exits 1 when the model answers 400",
  withSandbox("pi", async (sb) => {
    const steps: ScriptStep[] = [{ fail: { status: 400, message: "scripted refusal" } }];
    const r = await run(sb, ["-p"], { stdin: inlined(steps) });
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stderr, /scripted refusal/);
  }),
);

// ---------------------------------------------------------------------------------------------
// OpenCode

const OPENCODE_ROUTES = ["POST /v1/chat/completions"];

function opencodeEvents(r: Run) {
  const events = jsonLines(r.stdout);
  const text = events.filter((e) => e.type === "text").map((e) =>
    (e.part as { text: string }).text
  );
  const sessions = new Set(events.map((e) => e.sessionID));
  return { events, final: text.at(-1), sessions };
}

Deno.test(
  "opencode: run --agent with a project profile creates, edits and deletes files",
  withSandbox("opencode", async (sb) => {
    put(
      join(sb.repo, ".opencode", "agents", `${AGENT}.md`),
      `---\ndescription: ${DESCRIPTION}\nmode: primary\n---\n${scriptText(EDITS)}\n`,
    );
    const r = await run(sb, ["run", "--agent", AGENT, "--format", "json", "--", TASK]);
    assertEdited(sb, r);
    const { final, sessions } = opencodeEvents(r);
    assert.equal(final, FINAL);
    assert.equal(sessions.size, 1);
    const [sessionId] = sessions;
    assert.match(String(sessionId), /^ses_/);
    assert.equal(toolRequests(r)[0].headers["x-session-id"], sessionId);
    // OpenCode writes .opencode/.gitignore (it lists itself, so it shows as ignored).
    assert.deepEqual(
      status(sb.repo),
      editedStatus(`?? .opencode/agents/${AGENT}.md`, "!! .opencode/.gitignore"),
    );
    assertRoutes(r, OPENCODE_ROUTES);
    // The first call is the title request, which offers no tools.
    assert.deepEqual(replies(r), [
      "text:ok",
      "tool:write",
      "tool:edit",
      "tool:bash",
      `text:${FINAL}`,
    ]);
    // A message given on argv reaches the model wrapped in double quotes.
    const user =
      (toolRequests(r)[0].body as { messages: Array<{ role: string; content: unknown }> })
        .messages.find((m) => m.role === "user");
    assert.equal(user?.content, JSON.stringify(TASK));
  }),
);

Deno.test(
  "opencode: an inline agent with bash permission rules deletes files and refuses other shell",
  withSandbox("opencode", async (sb) => {
    const steps: ScriptStep[] = [
      { shell: `curl -s -m 5 ${probeUrl(sb)}` },
      outsideStep(sb),
      { delete: { path: "gone.txt" } },
      { say: "finished" },
    ];
    // OPENCODE_CONFIG_CONTENT is merged over the user's config: no file in the repository.
    const config = (permission: Record<string, unknown>) => ({
      agent: {
        [AGENT]: {
          description: DESCRIPTION,
          mode: "primary",
          prompt: scriptText(steps),
          permission,
        },
      },
    });
    const rules = { bash: { "*": "deny", "rm *": "allow" }, webfetch: "deny" };
    // A path outside the project falls under external_directory, "ask" by default; in `run`
    // an ask is rejected and ends the run: exit 0, no answer, the rest of the plan not done.
    const asked = await run(sb, ["run", "--agent", AGENT, "--format", "json"], {
      stdin: TASK,
      env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config(rules)) },
    });
    assert.equal(asked.code, 0, describeRun(asked));
    assert.equal(opencodeEvents(asked).final, undefined);
    assert.match(asked.stdout, /The user rejected permission/);
    assert.equal(outsideKept(sb), true);
    assert.deepEqual(status(sb.repo), []);
    const r = await run(sb, ["run", "--agent", AGENT, "--format", "json"], {
      stdin: TASK,
      env: {
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config({ ...rules, external_directory: "deny" })),
      },
    });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(opencodeEvents(r).final, "finished");
    assert.equal(probed(r), false, "curl was refused");
    assert.equal(outsideKept(sb), true, "rm outside the project was refused");
    assert.deepEqual(status(sb.repo), [" D gone.txt"]);
    const user =
      (toolRequests(r)[0].body as { messages: Array<{ role: string; content: unknown }> })
        .messages.find((m) => m.role === "user");
    assert.equal(user?.content, TASK, "a task on stdin arrives as is");
  }),
);

Deno.test(
  "opencode: mcp servers from OPENCODE_CONFIG_CONTENT are named <server>_<tool>",
  withSandbox("opencode", async (sb) => {
    const steps: ScriptStep[] = [
      { call: { tool: "find_agents", args: { query: "docs" } } },
      { say: "called" },
    ];
    const config = {
      agent: { [AGENT]: { description: DESCRIPTION, mode: "primary", prompt: scriptText(steps) } },
      mcp: {
        "observal-agents": {
          type: "local",
          command: [sb.mcp.command, ...sb.mcp.args],
          environment: { OBSERVAL_MCP_MARK: sb.mcp.mark },
          enabled: true,
        },
      },
    };
    const r = await run(sb, ["run", "--agent", AGENT], {
      stdin: TASK,
      env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) },
    });
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(replies(r), ["text:ok", "tool:observal-agents_find_agents", "text:called"]);
    assert.ok(mcpAnswerReached(sb, r), describeRun(r));
  }),
);

Deno.test(
  "opencode: exits 1 when the model answers 400",
  withSandbox("opencode", async (sb) => {
    const steps: ScriptStep[] = [{ fail: { status: 400, message: "scripted refusal" } }];
    const config = {
      agent: { [AGENT]: { description: DESCRIPTION, mode: "primary", prompt: scriptText(steps) } },
    };
    const r = await run(sb, ["run", "--agent", AGENT], {
      stdin: TASK,
      env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) },
    });
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stderr, /scripted refusal/);
  }),
);

// ---------------------------------------------------------------------------------------------
// Copilot CLI

const COPILOT_ROUTES = ["POST /v1/chat/completions"];

function copilotResult(r: Run) {
  const events = jsonLines(r.stdout);
  const result = events.find((e) => e.type === "result");
  assert.ok(result, describeRun(r));
  const messages = events.filter((e) => e.type === "assistant.message").map((e) =>
    String((e.data as { content: string }).content)
  ).filter((t) => t.length > 0);
  return { result, final: messages.at(-1) };
}

Deno.test(
  "copilot-cli: --agent from the repo's .github/agents creates, edits and deletes files",
  withSandbox("copilot-cli", async (sb) => {
    put(
      join(sb.repo, ".github", "agents", `${AGENT}.agent.md`),
      markdownProfile(scriptText(EDITS)),
    );
    const r = await run(sb, [
      `--prompt=${TASK}`,
      "--agent",
      AGENT,
      "--allow-tool",
      "write",
      // Not `--deny-tool shell`: a deny rule wins over every allow rule, so rm could not run.
      "--allow-tool",
      "shell(rm)",
      "--output-format",
      "json",
      "--session-id",
      SESSION_ID,
    ]);
    assertEdited(sb, r);
    const { result, final } = copilotResult(r);
    assert.equal(final, FINAL);
    assert.equal(result.sessionId, SESSION_ID);
    assert.equal(result.exitCode, 0);
    assert.deepEqual(status(sb.repo), editedStatus(`?? .github/agents/${AGENT}.agent.md`));
    assertRoutes(r, COPILOT_ROUTES);
    assert.deepEqual(replies(r), ["tool:create", "tool:edit", "tool:bash", `text:${FINAL}`]);
    assert.ok(JSON.stringify(toolRequests(r)[0].body).includes(TASK), "the task reached the model");
  }),
);

Deno.test(
  "copilot-cli: shell(rm) deletes files and refuses other shell; --deny-tool shell refuses rm too",
  withSandbox("copilot-cli", async (sb) => {
    // The profile lives outside the repo: --add-dir loads <dir>/.github/agents.
    put(
      join(sb.scratch, ".github", "agents", `${AGENT}.agent.md`),
      markdownProfile(scriptText([
        { shell: `curl -s -m 5 ${probeUrl(sb)}` },
        outsideStep(sb),
        { delete: { path: "gone.txt" } },
        { say: "finished" },
      ])),
    );
    const common = [`--prompt=${TASK}`, "--agent", AGENT, "--add-dir", sb.scratch];
    // Without --disallow-temp-dir, rm(1) may delete anything under the system temp folder.
    const allowed = await run(sb, [
      ...common,
      "--allow-tool",
      "write",
      "--allow-tool",
      "shell(rm)",
      "--disallow-temp-dir",
    ]);
    assert.equal(allowed.code, 0, describeRun(allowed));
    assert.equal(probed(allowed), false, "curl was refused");
    assert.equal(outsideKept(sb), true, "rm outside the repository was refused");
    assert.deepEqual(status(sb.repo), [" D gone.txt"]);
    git(sb.repo, ["checkout", "-q", "--", "gone.txt"]);
    const denied = await run(sb, [...common, "--allow-tool", "write", "--deny-tool", "shell"]);
    assert.equal(denied.code, 0, describeRun(denied));
    assert.match(denied.stdout, /denied/);
    assert.deepEqual(status(sb.repo), [], "--deny-tool shell also refuses rm");
  }),
);

Deno.test(
  "copilot-cli: --additional-mcp-config servers are named <server>-<tool>",
  withSandbox("copilot-cli", async (sb) => {
    put(
      join(sb.home, ".copilot", "agents", `${AGENT}.agent.md`),
      markdownProfile(scriptText([
        { call: { tool: "find_agents", args: { query: "docs" } } },
        { say: "called" },
      ])),
    );
    const config = {
      mcpServers: {
        "observal-agents": {
          type: "local",
          command: sb.mcp.command,
          args: sb.mcp.args,
          env: { OBSERVAL_MCP_MARK: sb.mcp.mark },
          tools: ["*"],
        },
      },
    };
    const r = await run(sb, [
      `--prompt=${TASK}`,
      "--agent",
      AGENT,
      "--additional-mcp-config",
      JSON.stringify(config),
      "--allow-tool",
      "observal-agents",
    ]);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(replies(r), ["tool:observal-agents-find_agents", "text:called"]);
    assert.ok(mcpAnswerReached(sb, r), describeRun(r));
  }),
);

Deno.test(
  "copilot-cli: exits 1 when the model answers 400",
  withSandbox("copilot-cli", async (sb) => {
    put(
      join(sb.home, ".copilot", "agents", `${AGENT}.agent.md`),
      markdownProfile(scriptText([{ fail: { status: 400, message: "scripted refusal" } }])),
    );
    const r = await run(sb, [
      `--prompt=${TASK}`,
      "--agent",
      AGENT,
      "--output-format",
      "json",
      "--session-id",
      SESSION_ID,
    ]);
    assert.equal(r.code, 1, describeRun(r));
    const { result } = copilotResult(r);
    assert.equal(result.exitCode, 1);
    assert.match(r.stdout, /scripted refusal/);
  }),
);
