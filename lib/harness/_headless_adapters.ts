/**
 * One headless adapter per harness: the flags that start it non-interactively in the
 * workspace with the agent's profile and MCP servers, and how its answer is read back.
 * Every flag was checked against the CLI's `--help` at the version the tests pin
 * (tests/support/harness_clis.ts; tests/e2e/harness_delegate_test.ts re-checks them) for
 * Claude Code, Codex, Pi, OpenCode, Copilot CLI and Gemini CLI. Cursor, Kiro and Antigravity
 * follow their documented flags and are not verified here.
 *
 * One module past 400 lines: an adapter per harness, each short, kept side by side so a
 * change to one is read against the others.
 * @module
 */
import { join } from "../core/system/mod.ts";
import type { HeadlessAdapter, HeadlessOutput, HeadlessResult } from "./headless.ts";
import { inlinePrompt, stripAnsi } from "./headless.ts";
import { piSessionFile } from "./pi_session.ts";
import type { HarnessKey } from "./registry.ts";
import { type Json, jsonLines } from "./_headless_json.ts";

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Text parts of a message's content array (`[{type: "text", text}]`). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c) => (c && typeof c === "object" && str((c as Json).text)) || "").join("");
}

/** `{"type":"result","result":...,"is_error":...,"session_id":...}`, as Claude and Cursor print. */
function resultJson(output: HeadlessOutput, fallbackSession?: string): HeadlessResult {
  const result = jsonLines(output.stdout).findLast((e) =>
    e.result !== undefined || e.is_error !== undefined
  );
  if (!result) return { text: stripAnsi(output.stdout).trim(), sessionId: fallbackSession };
  const text = typeof result.result === "string" ? result.result.trim() : "";
  const sessionId = str(result.session_id) ?? str(result.sessionId) ?? fallbackSession;
  if (result.is_error === true) {
    return { text: "", sessionId, error: text || "The delegated session reported an error." };
  }
  return { text, sessionId };
}

function plainText(output: HeadlessOutput, sessionId?: string): HeadlessResult {
  return { text: stripAnsi(output.stdout).trim(), sessionId };
}

/** A TOML value for a `-c key=value` override: JSON strings and arrays are valid TOML. */
function tomlValue(value: unknown): string {
  return JSON.stringify(value);
}

const claudeCode: HeadlessAdapter = {
  plan(r) {
    const mcpConfig = join(r.scratch, "mcp.json");
    const servers = Object.keys(r.mcpServers);
    const argv = [
      r.binary,
      "-p",
      "--agent",
      r.agentName,
      "--output-format",
      "json",
      // File edits and file commands inside the workspace are accepted; print mode denies
      // every other tool call (curl, anything outside the workspace) that is not allowed.
      "--permission-mode",
      "acceptEdits",
      // A resumed session keeps its id (and is found under any project folder, so the new
      // copy's path does not matter).
      ...(r.resume ? ["--resume", r.resume.sessionId] : ["--session-id", r.sessionId]),
      "--mcp-config",
      mcpConfig,
      "--strict-mcp-config",
    ];
    if (servers.length) argv.push("--allowedTools", servers.map((s) => `mcp__${s}`).join(","));
    return {
      argv,
      // On stdin, a task that starts with "-" can never be read as a flag.
      stdin: r.message,
      files: [{
        path: mcpConfig,
        content: `${JSON.stringify({ mcpServers: r.mcpServers }, null, 2)}\n`,
      }],
      sessionId: r.resume?.sessionId ?? r.sessionId,
    };
  },
  parse: (output, plan) => resultJson(output, plan.sessionId),
};

const kiro: HeadlessAdapter = {
  plan(r) {
    const trusted = ["fs_read", "fs_write", ...Object.keys(r.mcpServers).map((s) => `@${s}`)];
    return {
      argv: [
        r.binary,
        "chat",
        "--no-interactive",
        "--agent",
        r.agentName,
        "--wrap",
        "never",
        `--trust-tools=${trusted.join(",")}`,
        "--",
        r.message,
      ],
      files: [],
    };
  },
  parse: (output) => plainText(output),
};

const cursor: HeadlessAdapter = {
  plan: (r) => ({
    argv: [
      r.binary,
      "-p",
      "--output-format",
      "json",
      "--trust",
      "--approve-mcps",
      "--sandbox",
      "enabled",
      "--workspace",
      r.workdir,
      "--",
      inlinePrompt(r.agentName, r.instructions, r.message),
    ],
    files: [],
  }),
  parse: (output) => resultJson(output),
};

const codex: HeadlessAdapter = {
  plan(r) {
    const last = join(r.scratch, "last-message.txt");
    // The agent's MCP servers, on the command line: exec never asks, so each is approved.
    const mcp: string[] = [];
    for (const [name, entry] of Object.entries(r.mcpServers)) {
      const key = `mcp_servers.${name}`;
      mcp.push("-c", `${key}.command=${tomlValue(entry.command)}`);
      mcp.push("-c", `${key}.args=${tomlValue(entry.args)}`);
      for (const [k, v] of Object.entries(entry.env ?? {})) {
        mcp.push("-c", `${key}.env.${k}=${tomlValue(v)}`);
      }
      mcp.push("-c", `${key}.default_tools_approval_mode="approve"`);
    }
    return {
      argv: [
        r.binary,
        "exec",
        "--json",
        "--cd",
        r.workdir,
        "--sandbox",
        "workspace-write",
        "--skip-git-repo-check",
        "--output-last-message",
        last,
        // workspace-write also lets commands write /tmp and $TMPDIR unless told not to.
        "-c",
        "sandbox_workspace_write.exclude_slash_tmp=true",
        "-c",
        "sandbox_workspace_write.exclude_tmpdir_env_var=true",
        ...mcp,
        // `exec resume` takes the same options before it, and works in --cd (the new copy).
        ...(r.resume ? ["resume", r.resume.sessionId] : []),
        "--",
        inlinePrompt(r.agentName, r.instructions, r.message),
      ],
      files: [],
      // Codex starts its sandbox helper through aliases it links under $CODEX_HOME and puts
      // on PATH, and makes none when $CODEX_HOME lies inside the temp dir. A system
      // bubblewrap too old for `--argv0` then cannot find the helper, and every edit fails
      // while the turn still ends well. The scratch folder holds no CODEX_HOME.
      env: { TMPDIR: r.scratch },
      outputFile: last,
      sessionId: r.resume?.sessionId,
    };
  },
  parse(output, plan) {
    const events = jsonLines(output.stdout);
    // Codex has no flag to choose the session; the first event names it.
    const sessionId = str(events.find((e) => e.type === "thread.started")?.thread_id) ??
      plan.sessionId;
    const said = events.filter((e) =>
      e.type === "item.completed" && (e.item as Json | undefined)?.type === "agent_message"
    ).map((e) => str((e.item as Json).text) ?? "");
    const text = (output.outputFileText ?? said.at(-1) ?? "").trim();
    const failed = events.findLast((e) => e.type === "turn.failed" || e.type === "error");
    if (!text && failed) {
      const err = failed.error as Json | undefined;
      return { text, sessionId, error: str(err?.message) ?? str(failed.message) };
    }
    // A turn whose every edit failed (a sandbox that cannot start, say) still ends with the
    // model's word that it is done: the failed edits are the truth.
    const edits = events.filter((e) =>
      e.type === "item.completed" && (e.item as Json | undefined)?.type === "file_change"
    );
    if (edits.length && edits.every((e) => (e.item as Json).status === "failed")) {
      const n = edits.length;
      return {
        text,
        sessionId,
        error: `Codex could not apply ${n === 1 ? "its file edit" : `any of its ${n} file edits`}`,
      };
    }
    return { text, sessionId };
  },
};

/**
 * What an OpenCode agent may run: file edits, and of the shell only `rm` inside the
 * project; nothing outside it (`run` rejects anything that would ask).
 */
const OPENCODE_PERMISSION = {
  bash: { "*": "deny", "rm *": "allow" },
  webfetch: "deny",
  external_directory: "deny",
};

const opencode: HeadlessAdapter = {
  plan(r) {
    // OPENCODE_CONFIG_CONTENT is merged over the user's and the project's config; keep
    // whatever the caller already set there and add the agent's permissions.
    let config: Json = {};
    try {
      const existing = JSON.parse(r.env?.OPENCODE_CONFIG_CONTENT ?? "{}");
      if (existing && typeof existing === "object" && !Array.isArray(existing)) config = existing;
    } catch { /* not JSON: replaced */ }
    const agents = (config.agent && typeof config.agent === "object" ? config.agent : {}) as Json;
    config = {
      ...config,
      agent: {
        ...agents,
        [r.agentName]: { ...(agents[r.agentName] as Json), permission: OPENCODE_PERMISSION },
      },
    };
    return {
      argv: [r.binary, "run", "--agent", r.agentName, "--format", "json"],
      // On argv OpenCode wraps the message in quotes; stdin delivers it as it is.
      stdin: r.message,
      files: [],
      env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) },
    };
  },
  parse(output) {
    const events = jsonLines(output.stdout);
    const sessionId = events.map((e) => str(e.sessionID)).find(Boolean);
    const texts = events.filter((e) => e.type === "text").map((e) =>
      str((e.part as Json | undefined)?.text) ?? ""
    ).filter(Boolean);
    const text = (texts.at(-1) ?? "").trim();
    const failed = events.findLast((e) => e.type === "error");
    if (!text && failed) {
      const err = failed.error as { data?: Json; message?: unknown; name?: unknown } | undefined;
      return {
        text,
        sessionId,
        error: str(err?.data?.message) ?? str(err?.message) ?? str(err?.name) ??
          "OpenCode reported an error.",
      };
    }
    return { text, sessionId };
  },
};

const copilotCli: HeadlessAdapter = {
  plan(r) {
    const servers = Object.keys(r.mcpServers);
    const argv = [
      r.binary,
      // Attached with "=", so a task starting with "-" stays the prompt's value.
      `--prompt=${r.message}`,
      "--agent",
      r.agentName,
      "--session-id",
      r.sessionId,
      "--output-format",
      "json",
      "--no-ask-user",
      // Edits, and of the shell only rm; a deny rule on shell would refuse rm as well.
      "--allow-tool",
      "write",
      "--allow-tool",
      "shell(rm)",
      "--disallow-temp-dir",
    ];
    if (servers.length) {
      // Copilot reads MCP servers from its home folder, so the agent's go on the command line.
      const entries = Object.fromEntries(
        Object.entries(r.mcpServers).map(([n, e]) => [n, { ...e, type: "local", tools: ["*"] }]),
      );
      argv.push("--additional-mcp-config", JSON.stringify({ mcpServers: entries }));
      for (const s of servers) argv.push("--allow-tool", s);
    }
    return { argv, files: [], sessionId: r.sessionId };
  },
  parse(output, plan) {
    const events = jsonLines(output.stdout);
    if (events.length === 0) return plainText(output, plan.sessionId);
    const result = events.findLast((e) => e.type === "result");
    const said = events.filter((e) => e.type === "assistant.message")
      .map((e) => str((e.data as Json | undefined)?.content) ?? "").filter(Boolean);
    return {
      text: (said.at(-1) ?? "").trim(),
      sessionId: str(result?.sessionId) ?? plan.sessionId,
    };
  },
};

const antigravity: HeadlessAdapter = {
  plan: (r) => ({
    argv: [
      r.binary,
      `--print=${inlinePrompt(r.agentName, r.instructions, r.message)}`,
      "--print-timeout",
      "30m",
      "--sandbox",
    ],
    files: [],
  }),
  parse: (output) => plainText(output),
};

const pi: HeadlessAdapter = {
  plan(r) {
    // Pi has no session-id flag, but it continues a session file it is given: one we
    // write with our id in its header makes that id the session's. It goes where Pi keeps
    // its sessions, named as Pi names them, so the transcript outlives the copy.
    if (r.resume) {
      // A session is bound to the folder it ran in (its header's cwd), and Pi works there or,
      // that folder gone with its copy, refuses. `--fork` is Pi's way to carry a session into
      // another folder: a new session in this copy, with the earlier one's turns and its file
      // as the parent. The `session` event names the new id.
      return {
        argv: [r.binary, "-p", "--mode", "json", "--fork", r.resume.file],
        stdin: inlinePrompt(r.agentName, r.instructions, r.message),
        files: [],
        sessionId: r.resume.sessionId,
      };
    }
    const now = r.now ?? new Date();
    const session = piSessionFile(r.env ?? {}, r.workdir, r.sessionId, now);
    const header = {
      type: "session",
      version: 3,
      id: r.sessionId,
      timestamp: now.toISOString(),
      cwd: r.workdir,
    };
    return {
      argv: [r.binary, "-p", "--mode", "json", "--session", session],
      // Pi has no agent-profile flag: the instructions travel with the task, on stdin.
      stdin: inlinePrompt(r.agentName, r.instructions, r.message),
      files: [{ path: session, content: `${JSON.stringify(header)}\n` }],
      sessionId: r.sessionId,
    };
  },
  parse(output, plan) {
    const events = jsonLines(output.stdout);
    const sessionId = str(events.find((e) => e.type === "session")?.id) ?? plan.sessionId;
    const end = events.findLast((e) => e.type === "agent_end");
    const messages = Array.isArray(end?.messages) ? end.messages as Json[] : [];
    const last = messages.findLast((m) => m?.role === "assistant");
    const text = contentText(last?.content).trim();
    const error = str(last?.errorMessage);
    if (!end && events.length === 0) return plainText(output, sessionId);
    return error && !text ? { text, sessionId, error } : { text, sessionId };
  },
};

/**
 * What a delegated Gemini CLI run may do besides reading, as a policy file. auto_edit
 * accepts file edits; anything that would ask is refused in headless mode. Deletes have
 * no tool of their own, so `rm` is allowed, but not on a path that leaves the workspace
 * (absolute, home, parent or expanded). The agent's own MCP servers are allowed; the web
 * tools are refused. The rules outrank the user's own policies of the same tier.
 */
function geminiPolicy(servers: string[]): string {
  const rule = (fields: Record<string, unknown>) =>
    `[[rule]]\n${
      Object.entries(fields).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join("\n")
    }\n`;
  return [
    rule({
      toolName: "run_shell_command",
      // Matched against the call's arguments as JSON, from `"command":"` on: an argument
      // starting with /, ~, $ or a backquote, or any "..", after rm.
      commandRegex: String.raw`rm\b(?:.*(?:[\s'=]|\\")(?:/|~|\$|\x60)|.*\.\.)`,
      decision: "deny",
      priority: 999,
      denyMessage: "Only files inside the workspace may be deleted",
    }),
    rule({ toolName: "run_shell_command", commandPrefix: "rm", decision: "allow", priority: 998 }),
    rule({ toolName: ["web_fetch", "google_web_search"], decision: "deny", priority: 998 }),
    ...servers.map((name) =>
      rule({ mcpName: name, toolName: "*", decision: "allow", priority: 997 })
    ),
  ].join("\n");
}

/** The JSON object a text ends with (Gemini pretty-prints it over several lines). */
function trailingJson(text: string): Json | undefined {
  for (let at = text.lastIndexOf("{"); at >= 0; at = text.lastIndexOf("{", at - 1)) {
    if (at > 0 && text[at - 1] !== "\n") continue;
    try {
      const v = JSON.parse(text.slice(at));
      if (v && typeof v === "object" && !Array.isArray(v)) return v;
    } catch { /* not where the object starts */ }
  }
  return undefined;
}

const geminiCli: HeadlessAdapter = {
  plan(r) {
    const policy = join(r.scratch, "gemini-policy.toml");
    const servers = Object.keys(r.mcpServers);
    const argv = [
      r.binary,
      // Headless; the task arrives on stdin, which Gemini puts before this empty prompt.
      "--prompt=",
      "--output-format",
      "json",
      "--session-id",
      r.sessionId,
      "--approval-mode",
      "auto_edit",
      "--policy",
      policy,
    ];
    // Only the agent's servers, from the settings the install wrote into the copy.
    if (servers.length) argv.push("--allowed-mcp-server-names", servers.join(","));
    return {
      argv,
      // Gemini has no flag to select an agent: the instructions travel with the task.
      stdin: inlinePrompt(r.agentName, r.instructions, r.message),
      files: [{ path: policy, content: geminiPolicy(servers) }],
      // The copy is a folder Gemini was never told to trust: untrusted, it refuses to run
      // headless. The variable trusts it for this run; --skip-trust would too, but then
      // Gemini still ignores the copy's settings, which hold the agent's MCP servers.
      env: { GEMINI_CLI_TRUST_WORKSPACE: "true" },
      sessionId: r.sessionId,
    };
  },
  parse(output, plan) {
    // The answer is on stdout; a failure's report goes to stderr, in the same shape.
    const answer = trailingJson(output.stdout);
    const report = answer ?? trailingJson(output.stderr);
    if (!report) return plainText(output, plan.sessionId);
    const sessionId = str(report.session_id) ?? plan.sessionId;
    const text = (str(report.response) ?? "").trim();
    const err = report.error as Json | undefined;
    if (err && !text) {
      return { text, sessionId, error: str(err.message) ?? str(err.type) ?? "Gemini CLI failed" };
    }
    return { text, sessionId };
  },
};

/** The adapter for each harness that can run headless. */
export const ADAPTERS: Readonly<Partial<Record<HarnessKey, HeadlessAdapter>>> = Object.freeze({
  "claude-code": claudeCode,
  kiro,
  cursor,
  codex,
  opencode,
  "copilot-cli": copilotCli,
  antigravity,
  pi,
  "gemini-cli": geminiCli,
});
