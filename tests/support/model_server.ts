/**
 * A scripted stand-in for a model API on 127.0.0.1, so real harness CLIs can run offline.
 *
 * It speaks the four wire formats the harnesses use (Anthropic Messages, OpenAI Chat
 * Completions, OpenAI Responses, Gemini), streaming and not. It keeps no state: a test puts a
 * script (a JSON array of steps) between {@linkcode SCRIPT_OPEN} and {@linkcode SCRIPT_CLOSE}
 * in text the model receives, usually the agent's instructions, and every request is answered
 * from the conversation it carries. The next step is the number of tool results after the last
 * user text turn, so a resumed session with a new script starts that script from the top.
 *
 * @module
 */
import { statSync } from "node:fs";
import { isAbsolute, join } from "node:path";

/** Opens a script inside prompt text. */
export const SCRIPT_OPEN = "<<observal-script>>";
/** Closes a script inside prompt text. */
export const SCRIPT_CLOSE = "<</observal-script>>";

/**
 * One scripted model turn, or for `sleep` a silence before the next one:
 *
 * - `write`, `edit`: the harness's own write/create and edit tools, with arguments built from
 *   each tool's JSON schema (paths made absolute against the working directory the prompt
 *   names). Without such tools, Codex's `apply_patch` (whose edits match whole lines only).
 * - `delete`: `apply_patch` with `*** Delete File:` where offered, else the shell tool running
 *   `rm -- <path>`.
 * - `shell`: the shell tool (Bash, bash, exec_command, run_shell_command, ...).
 * - `call`: the tool whose name ends with `tool` (`mcp__srv__x`, `srv_x`, `srv-x`, a Codex
 *   namespace member); a deferred tool is first loaded through the harness's tool search.
 * - `say`: a text answer that ends the turn.
 * - `echo`: a text answer made of the step's text and the last tool result (to show that a
 *   tool's answer reached the model).
 * - `sleep`: milliseconds to wait, sending nothing, before answering the next step.
 * - `fail`: an HTTP error in the wire's error shape (5xx are retried by every harness).
 */
export type ScriptStep =
  | { write: { path: string; content: string } }
  | { edit: { path: string; old: string; new: string } }
  | { delete: { path: string } }
  | { shell: string }
  | { call: { tool: string; args?: Record<string, unknown> } }
  | { say: string }
  /** A text answer: `echo` followed by what the last tool call returned. */
  | { echo: string }
  | { sleep: number }
  | { fail: { status: number; message?: string } };

/** The text to put in a prompt so the server plays `steps`. */
export function scriptText(steps: ScriptStep[]): string {
  return `${SCRIPT_OPEN}${JSON.stringify(steps)}${SCRIPT_CLOSE}`;
}

/** Which API a request used. */
export type Wire = "anthropic" | "chat" | "responses" | "gemini";

/** One request as the server saw it, and what it answered. */
export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  pathname: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it is not JSON, or null when empty. */
  body: unknown;
  /** The API the request used, or null for other routes (HEAD /, model lists, token counts). */
  wire: Wire | null;
  /** Names of the tools the request offered the model (MCP namespaces flattened). */
  tools: string[];
  /** What the server answered: `tool:<name>`, `text:<text>`, `status:<code>`, `route:<name>`. */
  reply: string;
}

/** Options for {@linkcode startModelServer}. */
export interface ModelServerOptions {
  /** @default 0 (any free port) */
  port?: number;
  /** @default "127.0.0.1" */
  hostname?: string;
  /** Called with each request once it has been answered. */
  onRequest?: (request: RecordedRequest) => void;
  /** Called when a request starts waiting out a `sleep` step, with its delay. */
  onSleep?: (request: RecordedRequest, delayMs: number) => void;
}

/** A running scripted model server. */
export interface ModelServer {
  /** Base URL without a path, e.g. `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  /** The requests so far, oldest first. */
  requests(): RecordedRequest[];
  /** Stops listening; requests still sleeping are answered with 503. */
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

interface ToolSpec {
  /** The name the model must call (for namespaced tools, the name inside the namespace). */
  name: string;
  /** The name with its namespace, as a test would write it. */
  fullName: string;
  namespace?: string;
  /** `custom` takes free text (Codex's apply_patch); `tool_search` is a hosted search item. */
  kind: "function" | "custom" | "tool_search";
  schema: Json;
}

type Turn =
  | { kind: "user_text" }
  | { kind: "call"; id: string; name: string }
  | { kind: "result"; id: string; name?: string; text?: string };

interface Conversation {
  /** Every string in the request, in order: system prompt first, then the turns. */
  strings: string[];
  tools: ToolSpec[];
  turns: Turn[];
}

type Reply =
  | { kind: "text"; text: string }
  | { kind: "tool"; tool: ToolSpec; input: Json | string }
  | { kind: "error"; status: number; message: string };

interface Decision {
  reply: Reply;
  delayMs: number;
}

const TOOL_SEARCH = /^(tool_?search(_tool)?|ToolSearch)$/i;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) { for (const v of value) collectStrings(v, out); }
  else if (isObject(value)) { for (const v of Object.values(value)) collectStrings(v, out); }
}

/** Every string inside a tool result, joined: what the tool said. */
function resultText(value: unknown): string {
  const out: string[] = [];
  collectStrings(value, out);
  return out.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Reading requests

function anthropicConversation(body: Json): Conversation {
  const strings: string[] = [];
  collectStrings(body.system, strings);
  const turns: Turn[] = [];
  for (const m of asArray(body.messages)) {
    if (!isObject(m)) continue;
    collectStrings(m.content, strings);
    const blocks = typeof m.content === "string"
      ? [{ type: "text", text: m.content }]
      : asArray(m.content).filter(isObject);
    if (m.role === "user") {
      const results = blocks.filter((b) => b.type === "tool_result");
      for (const r of results) {
        turns.push({ kind: "result", id: String(r.tool_use_id), text: resultText(r.content) });
      }
      if (results.length === 0 && blocks.some((b) => b.type === "text")) {
        turns.push({ kind: "user_text" });
      }
    } else {
      for (const b of blocks) {
        if (b.type === "tool_use") {
          turns.push({ kind: "call", id: String(b.id), name: String(b.name) });
        }
      }
    }
  }
  const tools = asArray(body.tools).filter(isObject).filter((t) => typeof t.name === "string")
    .map((t) => ({
      name: String(t.name),
      fullName: String(t.name),
      kind: "function" as const,
      schema: isObject(t.input_schema) ? t.input_schema : {},
    }));
  return { strings, tools, turns };
}

function chatConversation(body: Json): Conversation {
  const strings: string[] = [];
  const turns: Turn[] = [];
  for (const m of asArray(body.messages)) {
    if (!isObject(m)) continue;
    collectStrings(m.content, strings);
    if (m.role === "user") turns.push({ kind: "user_text" });
    else if (m.role === "tool") {
      turns.push({ kind: "result", id: String(m.tool_call_id), text: resultText(m.content) });
    } else if (m.role === "assistant") {
      for (const c of asArray(m.tool_calls).filter(isObject)) {
        const fn = isObject(c.function) ? c.function : {};
        turns.push({ kind: "call", id: String(c.id), name: String(fn.name) });
      }
    }
  }
  const tools = asArray(body.tools).filter(isObject).flatMap((t) => {
    const fn = isObject(t.function) ? t.function : t;
    if (typeof fn.name !== "string") return [];
    const schema = isObject(fn.parameters) ? fn.parameters : {};
    return [{ name: fn.name, fullName: fn.name, kind: "function" as const, schema }];
  });
  return { strings, tools, turns };
}

function responsesTool(t: Json, namespace?: string): ToolSpec[] {
  if (t.type === "tool_search") {
    const schema = isObject(t.parameters) ? t.parameters : {};
    return [{ name: "tool_search", fullName: "tool_search", kind: "tool_search", schema }];
  }
  if (t.type === "namespace" && typeof t.name === "string") {
    return asArray(t.tools).filter(isObject).flatMap((inner) =>
      responsesTool(inner, String(t.name))
    );
  }
  if (typeof t.name !== "string") return [];
  const fullName = namespace === undefined
    ? t.name
    : namespace.endsWith("__") || namespace.endsWith("_")
    ? namespace + t.name
    : `${namespace}__${t.name}`;
  return [{
    name: t.name,
    fullName,
    namespace,
    kind: t.type === "custom" ? "custom" : "function",
    schema: isObject(t.parameters) ? t.parameters : {},
  }];
}

function responsesConversation(body: Json): Conversation {
  const strings: string[] = [];
  collectStrings(body.instructions, strings);
  const turns: Turn[] = [];
  const input = typeof body.input === "string"
    ? [{ type: "message", role: "user", content: body.input }]
    : asArray(body.input).filter(isObject);
  for (const item of input) {
    collectStrings(item.content ?? item.output ?? item.arguments ?? item.input, strings);
    const type = item.type ?? (item.role ? "message" : undefined);
    if (type === "message" && item.role === "user") turns.push({ kind: "user_text" });
    else if (
      type === "function_call" || type === "custom_tool_call" || type === "tool_search_call"
    ) {
      const name = type === "tool_search_call" ? "tool_search" : String(item.name);
      turns.push({ kind: "call", id: String(item.call_id), name });
    } else if (typeof type === "string" && type.endsWith("_output")) {
      turns.push({ kind: "result", id: String(item.call_id), text: resultText(item.output) });
    }
  }
  const tools = asArray(body.tools).filter(isObject).flatMap((t) => responsesTool(t));
  // Tools loaded by a client-side tool search arrive inside its output item, not in `tools`.
  for (const item of input) {
    if (item.type !== "tool_search_output") continue;
    tools.push(...asArray(item.tools).filter(isObject).flatMap((t) => responsesTool(t)));
  }
  return { strings, tools, turns };
}

function geminiConversation(body: Json): Conversation {
  const strings: string[] = [];
  collectStrings(body.systemInstruction ?? body.system_instruction, strings);
  const turns: Turn[] = [];
  let n = 0;
  for (const c of asArray(body.contents).filter(isObject)) {
    const parts = asArray(c.parts).filter(isObject);
    collectStrings(parts, strings);
    if (c.role === "model") {
      for (const p of parts) {
        if (isObject(p.functionCall)) {
          const id = String(p.functionCall.id ?? `g${n++}`);
          turns.push({ kind: "call", id, name: String(p.functionCall.name) });
        }
      }
    } else {
      const results = parts.filter((p) => isObject(p.functionResponse));
      for (const p of results) {
        const r = p.functionResponse as Json;
        turns.push({
          kind: "result",
          id: String(r.id ?? ""),
          name: String(r.name),
          text: resultText(r.response),
        });
      }
      if (results.length === 0 && parts.some((p) => typeof p.text === "string")) {
        turns.push({ kind: "user_text" });
      }
    }
  }
  const tools = asArray(body.tools).filter(isObject).flatMap((t) =>
    asArray(t.functionDeclarations ?? t.function_declarations).filter(isObject).map((d) => ({
      name: String(d.name),
      fullName: String(d.name),
      kind: "function" as const,
      schema: isObject(d.parametersJsonSchema)
        ? d.parametersJsonSchema
        : isObject(d.parameters)
        ? d.parameters
        : {},
    }))
  );
  return { strings, tools, turns };
}

const READERS: Record<Wire, (body: Json) => Conversation> = {
  anthropic: anthropicConversation,
  chat: chatConversation,
  responses: responsesConversation,
  gemini: geminiConversation,
};

// ---------------------------------------------------------------------------------------------
// Deciding what the model says

function findScript(strings: string[]): ScriptStep[] | Error | null {
  let found: string | null = null;
  for (const s of strings) {
    let at = s.indexOf(SCRIPT_OPEN);
    while (at >= 0) {
      const end = s.indexOf(SCRIPT_CLOSE, at);
      if (end < 0) break;
      found = s.slice(at + SCRIPT_OPEN.length, end);
      at = s.indexOf(SCRIPT_OPEN, end);
    }
  }
  if (found === null) return null;
  try {
    const steps = JSON.parse(found.trim());
    if (!Array.isArray(steps)) return new Error("the script is not a JSON array");
    return steps as ScriptStep[];
  } catch (e) {
    return new Error(`the script is not valid JSON: ${(e as Error).message}`);
  }
}

const CWD_PATTERNS = [
  /<cwd>\s*([^<]+?)\s*<\/cwd>/g,
  /(?:primary |current )?working directory(?: is)?\s*[:=]?\s*`?(\/[^\s`'"<>]+)/gi,
  /\bcwd\s*[:=]\s*`?(\/[^\s`'"<>,]+)/gi,
  /currently working in the directory:?\s*`?(\/[^\s`'"<>]+)/gi,
];

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The working directory the harness names in its prompt, when there is one on this machine. */
export function findWorkingDirectory(strings: string[]): string | undefined {
  for (const pattern of CWD_PATTERNS) {
    for (const s of strings) {
      for (const m of s.matchAll(pattern)) {
        const candidate = m[1].replace(/[.,;:)]+$/, "");
        if (isAbsolute(candidate) && isDirectory(candidate)) return candidate;
      }
    }
  }
  return undefined;
}

function byName(tools: ToolSpec[], names: string[]): ToolSpec | undefined {
  for (const n of names) {
    const t = tools.find((t) => t.namespace === undefined && t.name.toLowerCase() === n);
    if (t) return t;
  }
  return undefined;
}

const WRITE_TOOLS = ["write", "create", "write_file"];
const EDIT_TOOLS = ["edit", "replace", "str_replace", "edit_file"];
const SHELL_TOOLS = ["bash", "shell", "exec_command", "shell_command", "run_shell_command"];

function props(schema: Json): Json {
  return isObject(schema.properties) ? schema.properties : {};
}

function pickKey(schema: Json, keys: string[]): string | undefined {
  const p = props(schema);
  return keys.find((k) => k in p);
}

/** Fills required properties the step does not name, so strict schemas accept the call. */
function fillRequired(schema: Json, args: Json): Json {
  const p = props(schema);
  for (const key of asArray(schema.required)) {
    if (typeof key !== "string" || key in args) continue;
    const s = isObject(p[key]) ? p[key] as Json : {};
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    if (Array.isArray(s.enum) && s.enum.length > 0) args[key] = s.enum[0];
    else if ("default" in s) args[key] = s.default;
    else if (type === "boolean") args[key] = false;
    else if (type === "number" || type === "integer") args[key] = s.minimum ?? 1;
    else if (type === "array") args[key] = [];
    else if (type === "object") args[key] = {};
    else args[key] = "Scripted step";
  }
  return args;
}

function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'"'"'`)}'`;
}

function patchLines(text: string, prefix: string): string {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  return body.split("\n").map((l) => prefix + l).join("\n");
}

function applyPatchInput(tool: ToolSpec, patch: string): Json | string {
  if (tool.kind === "custom") return patch;
  const key = pickKey(tool.schema, ["input", "patch"]) ?? "input";
  return { [key]: patch };
}

function shellReply(tools: ToolSpec[], command: string, cwd?: string): Reply | undefined {
  const tool = byName(tools, SHELL_TOOLS);
  if (!tool) return undefined;
  const key = pickKey(tool.schema, ["command", "cmd", "script"]) ?? "command";
  const s = props(tool.schema)[key];
  const args: Json = {
    [key]: isObject(s) && s.type === "array" ? ["bash", "-lc", command] : command,
  };
  if (cwd) {
    const dirKey = pickKey(tool.schema, ["workdir", "cwd", "working_directory", "dir_path"]);
    if (dirKey) args[dirKey] = cwd;
  }
  return { kind: "tool", tool, input: fillRequired(tool.schema, args) };
}

function missing(what: string, tools: ToolSpec[]): Reply {
  const names = tools.map((t) => t.fullName).join(", ");
  return { kind: "text", text: `observal-script: no tool for ${what} among [${names}]` };
}

function absolute(path: string, cwd?: string): string {
  return isAbsolute(path) || cwd === undefined ? path : join(cwd, path);
}

function writeReply(step: { path: string; content: string }, c: Conversation, cwd?: string) {
  const tool = byName(c.tools, WRITE_TOOLS);
  if (tool) {
    const pathKey = pickKey(tool.schema, ["file_path", "filePath", "path", "absolute_path"]) ??
      "path";
    const contentKey = pickKey(tool.schema, ["content", "file_text", "contents", "text"]) ??
      "content";
    const args = { [pathKey]: absolute(step.path, cwd), [contentKey]: step.content };
    return { kind: "tool", tool, input: fillRequired(tool.schema, args) } as Reply;
  }
  const patch = byName(c.tools, ["apply_patch"]);
  if (patch) {
    const text = `*** Begin Patch\n*** Add File: ${step.path}\n${
      patchLines(step.content, "+")
    }\n*** End Patch\n`;
    return { kind: "tool", tool: patch, input: applyPatchInput(patch, text) } as Reply;
  }
  return shellReply(c.tools, `printf '%s' ${shQuote(step.content)} > ${shQuote(step.path)}`, cwd) ??
    missing("write", c.tools);
}

function editReply(
  step: { path: string; old: string; new: string },
  c: Conversation,
  cwd?: string,
): Reply {
  const tool = byName(c.tools, EDIT_TOOLS);
  if (tool) {
    const pathKey = pickKey(tool.schema, ["file_path", "filePath", "path", "absolute_path"]) ??
      "path";
    const args: Json = { [pathKey]: absolute(step.path, cwd) };
    const edits = props(tool.schema).edits;
    const oldKeys = ["old_string", "oldString", "old_str", "oldText", "old_text", "old"];
    const newKeys = ["new_string", "newString", "new_str", "newText", "new_text", "new"];
    if (isObject(edits) && isObject(edits.items)) {
      const item = edits.items as Json;
      const one: Json = {
        [pickKey(item, oldKeys) ?? "oldText"]: step.old,
        [pickKey(item, newKeys) ?? "newText"]: step.new,
      };
      args.edits = [fillRequired(item, one)];
    } else {
      args[pickKey(tool.schema, oldKeys) ?? "old_string"] = step.old;
      args[pickKey(tool.schema, newKeys) ?? "new_string"] = step.new;
    }
    return { kind: "tool", tool, input: fillRequired(tool.schema, args) };
  }
  const patch = byName(c.tools, ["apply_patch"]);
  if (patch) {
    // apply_patch matches whole lines, so `old` must be one or more complete lines.
    const text = `*** Begin Patch\n*** Update File: ${step.path}\n@@\n${
      patchLines(step.old, "-")
    }\n${patchLines(step.new, "+")}\n*** End Patch\n`;
    return { kind: "tool", tool: patch, input: applyPatchInput(patch, text) };
  }
  return missing("edit", c.tools);
}

function deleteReply(step: { path: string }, c: Conversation, cwd?: string): Reply {
  const patch = byName(c.tools, ["apply_patch"]);
  if (patch) {
    const text = `*** Begin Patch\n*** Delete File: ${step.path}\n*** End Patch\n`;
    return { kind: "tool", tool: patch, input: applyPatchInput(patch, text) };
  }
  return shellReply(c.tools, `rm -- ${shQuote(step.path)}`, cwd) ?? missing("delete", c.tools);
}

function matchesTool(t: ToolSpec, wanted: string): boolean {
  for (const name of [t.fullName, t.name]) {
    if (name === wanted) return true;
    for (const sep of ["__", "_", "-", ".", "/"]) {
      if (name.endsWith(sep + wanted)) return true;
    }
  }
  return false;
}

/** The full name of a deferred tool that the prompt mentions but the request does not offer. */
function deferredToolName(strings: string[], wanted: string): string | undefined {
  const name = wanted.replace(/[^\w]/g, "\\$&");
  // MCP tool names first: a plain "-<tool>" can also be part of a path in the prompt.
  const patterns = [
    new RegExp(`mcp__[\\w.-]+__${name}\\b`),
    new RegExp(`[\\w.-]*(?:__|_|-)${name}\\b`),
  ];
  for (const pattern of patterns) {
    for (const s of strings) {
      const m = s.match(pattern);
      if (m) return m[0];
    }
  }
  return undefined;
}

function callReply(
  step: { tool: string; args?: Record<string, unknown> },
  c: Conversation,
): Reply {
  const tool = c.tools.find((t) => matchesTool(t, step.tool));
  if (tool) return { kind: "tool", tool, input: { ...(step.args ?? {}) } };
  // Some harnesses defer MCP tools: the model must load them through a search tool first.
  const search = c.tools.find((t) => TOOL_SEARCH.test(t.name));
  const last = c.turns.findLast((t) => t.kind === "call");
  const deferred = deferredToolName(c.strings, step.tool);
  if (search && !(last?.kind === "call" && TOOL_SEARCH.test(last.name))) {
    // Claude's ToolSearch loads an exact name with "select:"; others rank by keywords.
    const query = deferred && search.name === "ToolSearch" ? `select:${deferred}` : step.tool;
    const queryKey = pickKey(search.schema, ["query", "q"]) ?? "query";
    return {
      kind: "tool",
      tool: search,
      input: fillRequired(search.schema, { [queryKey]: query }),
    };
  }
  return missing(`call ${step.tool}`, c.tools);
}

/** What the model answers to this conversation. */
function decide(c: Conversation): Decision {
  if (c.tools.length === 0) return { reply: { kind: "text", text: "ok" }, delayMs: 0 };
  const script = findScript(c.strings);
  if (script === null) return { reply: { kind: "text", text: "ok" }, delayMs: 0 };
  if (script instanceof Error) {
    return { reply: { kind: "text", text: `observal-script: ${script.message}` }, delayMs: 0 };
  }
  const lastUser = c.turns.findLastIndex((t) => t.kind === "user_text");
  const searchCalls = new Set(
    c.turns.filter((t) => t.kind === "call" && TOOL_SEARCH.test(t.name)).map((t) =>
      (t as { id: string }).id
    ),
  );
  const isSearchResult = (t: Turn) =>
    t.kind === "result" && (searchCalls.has(t.id) || Boolean(t.name && TOOL_SEARCH.test(t.name)));
  const done = c.turns.slice(lastUser + 1).filter((t) => t.kind === "result" && !isSearchResult(t))
    .length;
  // A step that first loads its tool through a search has already waited out its sleep.
  const lastTurn = c.turns.at(-1);
  const waited = lastTurn !== undefined && isSearchResult(lastTurn);
  const cwd = findWorkingDirectory(c.strings);
  let actions = 0;
  let delayMs = 0;
  let lastSay: string | undefined;
  for (const step of script) {
    if ("sleep" in step) {
      delayMs += Number(step.sleep) || 0;
      continue;
    }
    if ("say" in step || "echo" in step) {
      const last = c.turns.findLast((t) => t.kind === "result" && !isSearchResult(t));
      lastSay = "say" in step
        ? String(step.say)
        : `${step.echo}${last?.kind === "result" ? last.text ?? "" : ""}`;
      if (actions === done) return { reply: { kind: "text", text: lastSay }, delayMs };
      delayMs = 0;
      continue;
    }
    if ("fail" in step) {
      if (actions === done) {
        const message = step.fail.message ?? "scripted failure";
        return { reply: { kind: "error", status: step.fail.status, message }, delayMs };
      }
      delayMs = 0;
      continue;
    }
    if (actions === done) {
      let reply: Reply;
      if ("write" in step) reply = writeReply(step.write, c, cwd);
      else if ("edit" in step) reply = editReply(step.edit, c, cwd);
      else if ("delete" in step) reply = deleteReply(step.delete, c, cwd);
      else if ("shell" in step) {
        reply = shellReply(c.tools, step.shell, cwd) ?? missing("shell", c.tools);
      } else if ("call" in step) reply = callReply(step.call, c);
      else reply = { kind: "text", text: `observal-script: unknown step ${JSON.stringify(step)}` };
      return { reply, delayMs: waited ? 0 : delayMs };
    }
    actions++;
    delayMs = 0;
  }
  return { reply: { kind: "text", text: lastSay ?? "done" }, delayMs };
}

// ---------------------------------------------------------------------------------------------
// Writing answers

function newId(prefix: string): string {
  return prefix + crypto.randomUUID().replaceAll("-", "").slice(0, 24);
}

function sse(events: Array<{ event?: string; data: unknown }>): Response {
  const text = events.map((e) =>
    (e.event ? `event: ${e.event}\n` : "") +
    `data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`
  ).join("");
  return new Response(text, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

function json(data: unknown, status = 200): Response {
  return new Response(JSON.stringify(data), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function anthropicAnswer(reply: Reply, body: Json): Response {
  const model = String(body.model ?? "fake-model");
  const id = newId("msg_");
  const usage = { input_tokens: 10, output_tokens: 5 };
  const block = reply.kind === "tool"
    ? { type: "tool_use", id: newId("toolu_"), name: reply.tool.name, input: reply.input }
    : { type: "text", text: reply.kind === "text" ? reply.text : "" };
  const stop = reply.kind === "tool" ? "tool_use" : "end_turn";
  if (!body.stream) {
    return json({
      id,
      type: "message",
      role: "assistant",
      model,
      content: [block],
      stop_reason: stop,
      stop_sequence: null,
      usage,
    });
  }
  const start = block.type === "tool_use" ? { ...block, input: {} } : { type: "text", text: "" };
  const delta = block.type === "tool_use"
    ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
    : { type: "text_delta", text: (block as { text: string }).text };
  const events = [
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: start },
    { type: "content_block_delta", index: 0, delta },
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 5 },
    },
    { type: "message_stop" },
  ];
  return sse(events.map((e) => ({ event: e.type, data: e })));
}

function chatAnswer(reply: Reply, body: Json): Response {
  const model = String(body.model ?? "fake-model");
  const id = newId("chatcmpl-");
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const callId = newId("call_");
  const args = reply.kind === "tool" ? JSON.stringify(reply.input) : "";
  const finish = reply.kind === "tool" ? "tool_calls" : "stop";
  if (!body.stream) {
    const message = reply.kind === "tool"
      ? {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: callId,
          type: "function",
          function: { name: reply.tool.name, arguments: args },
        }],
      }
      : { role: "assistant", content: reply.kind === "text" ? reply.text : "" };
    return json({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
  }
  const chunk = (delta: Json, finish_reason: string | null = null) => ({
    data: {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason }],
    },
  });
  const events: Array<{ data: unknown }> = [];
  if (reply.kind === "tool") {
    events.push(chunk({
      role: "assistant",
      content: null,
      tool_calls: [{
        index: 0,
        id: callId,
        type: "function",
        function: { name: reply.tool.name, arguments: "" },
      }],
    }));
    events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
  } else {
    events.push(chunk({ role: "assistant", content: "" }));
    events.push(chunk({ content: reply.kind === "text" ? reply.text : "" }));
  }
  events.push(chunk({}, finish));
  const options = isObject(body.stream_options) ? body.stream_options : {};
  if (options.include_usage) {
    events.push({
      data: { id, object: "chat.completion.chunk", created, model, choices: [], usage },
    });
  }
  events.push({ data: "[DONE]" });
  return sse(events);
}

function responsesAnswer(reply: Reply, body: Json): Response {
  const model = String(body.model ?? "fake-model");
  const id = newId("resp_");
  const created_at = Math.floor(Date.now() / 1000);
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  let item: Json;
  if (reply.kind === "tool" && reply.tool.kind === "tool_search") {
    item = {
      type: "tool_search_call",
      id: newId("tsc_"),
      call_id: newId("call_"),
      execution: "client",
      arguments: reply.input,
      status: "completed",
    };
  } else if (reply.kind === "tool" && reply.tool.kind === "custom") {
    item = {
      type: "custom_tool_call",
      id: newId("ctc_"),
      call_id: newId("call_"),
      name: reply.tool.name,
      input: reply.input as string,
      status: "completed",
    };
  } else if (reply.kind === "tool") {
    item = {
      type: "function_call",
      id: newId("fc_"),
      call_id: newId("call_"),
      name: reply.tool.name,
      arguments: JSON.stringify(reply.input),
      status: "completed",
    };
    if (reply.tool.namespace !== undefined) item.namespace = reply.tool.namespace;
  } else {
    item = {
      type: "message",
      id: newId("msg_"),
      role: "assistant",
      status: "completed",
      content: [{
        type: "output_text",
        text: reply.kind === "text" ? reply.text : "",
        annotations: [],
      }],
    };
  }
  const response = (status: string, output: Json[]) => ({
    id,
    object: "response",
    created_at,
    status,
    model,
    output,
    usage: status === "completed" ? usage : null,
  });
  if (!body.stream) return json(response("completed", [item]));
  const events: Json[] = [
    { type: "response.created", response: response("in_progress", []) },
    { type: "response.in_progress", response: response("in_progress", []) },
  ];
  if (item.type === "message") {
    const text = (item.content as Json[])[0].text as string;
    const part = { type: "output_text", text: "", annotations: [] };
    events.push(
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, status: "in_progress", content: [] },
      },
      {
        type: "response.content_part.added",
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        part,
      },
      {
        type: "response.output_text.delta",
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        delta: text,
      },
      {
        type: "response.output_text.done",
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        text,
      },
      {
        type: "response.content_part.done",
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        part: { ...part, text },
      },
    );
  } else if (item.type === "tool_search_call") {
    events.push({ type: "response.output_item.added", output_index: 0, item });
  } else if (item.type === "custom_tool_call") {
    events.push(
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, input: "", status: "in_progress" },
      },
      {
        type: "response.custom_tool_call_input.delta",
        item_id: item.id,
        output_index: 0,
        delta: item.input,
      },
      {
        type: "response.custom_tool_call_input.done",
        item_id: item.id,
        output_index: 0,
        input: item.input,
      },
    );
  } else {
    events.push(
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, arguments: "", status: "in_progress" },
      },
      {
        type: "response.function_call_arguments.delta",
        item_id: item.id,
        output_index: 0,
        delta: item.arguments,
      },
      {
        type: "response.function_call_arguments.done",
        item_id: item.id,
        output_index: 0,
        arguments: item.arguments,
      },
    );
  }
  events.push(
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response: response("completed", [item]) },
  );
  return sse(events.map((e, i) => ({
    event: e.type as string,
    data: { ...e, sequence_number: i },
  })));
}

function geminiAnswer(reply: Reply, stream: boolean): Response {
  const part = reply.kind === "tool"
    ? { functionCall: { name: reply.tool.name, args: reply.input } }
    : { text: reply.kind === "text" ? reply.text : "" };
  const data = {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: "fake-model",
    responseId: newId("gr_"),
  };
  return stream ? sse([{ data }]) : json(data);
}

function errorAnswer(wire: Wire, status: number, message: string): Response {
  switch (wire) {
    case "anthropic":
      return json({
        type: "error",
        error: { type: status >= 500 ? "api_error" : "invalid_request_error", message },
      }, status);
    case "gemini":
      return json({
        error: { code: status, message, status: status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT" },
      }, status);
    default: {
      const type = status >= 500 ? "server_error" : "invalid_request_error";
      return json({ error: { message, type, code: null } }, status);
    }
  }
}

function describe(reply: Reply): string {
  if (reply.kind === "tool") return `tool:${reply.tool.fullName}`;
  if (reply.kind === "text") return `text:${reply.text}`;
  return `status:${reply.status}`;
}

function wireOf(method: string, pathname: string): Wire | "gemini-stream" | null {
  if (method !== "POST") return null;
  if (pathname.endsWith("/messages")) return "anthropic";
  if (pathname.endsWith("/chat/completions")) return "chat";
  if (pathname.endsWith("/responses")) return "responses";
  if (/\/models\/[^/]+:streamGenerateContent$/.test(pathname)) return "gemini-stream";
  if (/\/models\/[^/]+:generateContent$/.test(pathname)) return "gemini";
  return null;
}

/**
 * Starts the scripted model server on 127.0.0.1.
 *
 * @param options port, host and a hook called with each answered request
 * @returns the server's URL, its recorded requests and a way to close it
 *
 * @example
 * ```ts ignore
 * const server = await startModelServer();
 * try {
 *   // point a harness at server.url, with scriptText([...]) in the agent's instructions
 * } finally {
 *   await server.close();
 * }
 * ```
 */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const recorded: RecordedRequest[] = [];
  const sleeping = new Set<() => void>();
  const stop = new AbortController();

  const handle = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const raw = await req.text();
    let body: unknown = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const record: RecordedRequest = {
      method: req.method,
      path: url.pathname + url.search,
      pathname: url.pathname,
      headers: Object.fromEntries(req.headers),
      body,
      wire: null,
      tools: [],
      reply: "",
    };
    const finish = (response: Response, reply: string) => {
      record.reply = reply;
      recorded.push(record);
      options.onRequest?.(record);
      return response;
    };
    const route = wireOf(req.method, url.pathname);
    if (route === null) {
      if (req.method === "HEAD") return finish(new Response(null, { status: 200 }), "route:head");
      if (url.pathname.endsWith("/count_tokens")) {
        return finish(json({ input_tokens: 10 }), "route:count_tokens");
      }
      if (url.pathname.endsWith(":countTokens")) {
        return finish(json({ totalTokens: 10 }), "route:count_tokens");
      }
      if (req.method === "GET" && /\/models\/?$/.test(url.pathname)) {
        return finish(
          json({
            object: "list",
            data: [{ id: "fake-model", object: "model", created: 0, owned_by: "observal" }],
            models: [{ name: "models/fake-model" }],
          }),
          "route:models",
        );
      }
      return finish(
        json({ error: { message: `no route for ${req.method} ${url.pathname}` } }, 404),
        "status:404",
      );
    }
    const wire: Wire = route === "gemini-stream" ? "gemini" : route;
    record.wire = wire;
    const b = isObject(body) ? body : {};
    const conversation = READERS[wire](b);
    record.tools = conversation.tools.map((t) => t.fullName);
    const { reply, delayMs } = decide(conversation);
    if (delayMs > 0) {
      options.onSleep?.(record, delayMs);
      const woke = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          sleeping.delete(wake);
          resolve(true);
        }, delayMs);
        const wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
        sleeping.add(wake);
      });
      if (!woke) return finish(errorAnswer(wire, 503, "model server closed"), "status:503");
    }
    let response: Response;
    if (reply.kind === "error") response = errorAnswer(wire, reply.status, reply.message);
    else if (wire === "anthropic") response = anthropicAnswer(reply, b);
    else if (wire === "chat") response = chatAnswer(reply, b);
    else if (wire === "responses") response = responsesAnswer(reply, b);
    else response = geminiAnswer(reply, route === "gemini-stream");
    return finish(response, describe(reply));
  };

  const { promise: listening, resolve: onListen } = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    signal: stop.signal,
    onListen: (addr) => onListen(addr as Deno.NetAddr),
  }, handle);
  const addr = await listening;
  return {
    url: `http://${addr.hostname}:${addr.port}`,
    port: addr.port,
    requests: () => [...recorded],
    close: async () => {
      for (const wake of sleeping) wake();
      sleeping.clear();
      stop.abort();
      await server.finished;
    },
  };
}
