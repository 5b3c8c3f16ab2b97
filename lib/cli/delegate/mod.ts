/** `observal delegate`: hand a task to an approved agent and follow it. */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import process from "node:process";
import { isFinal, isTerminal, type Part, stateLabel, type Task } from "../../a2a/mod.ts";
import { type Context, ObservalError, VERSION } from "../../core/mod.ts";
import { MAX_MESSAGE_CHARS, runWorker } from "../../delegation/mod.ts";
import { recoverTaskStore } from "../../store/mod.ts";
import { pruneCapabilityLock } from "../../telemetry/mod.ts";
import { type Command, type Group, int, type Invocation, str } from "../command.ts";
import { note, paint, printJson, printTable, say } from "../output.ts";
import { clip } from "../registry/_client.ts";
import { type Opened, withService } from "./_service.ts";
import { printTask, progress, stateText, TASK_EXIT, taskExitCode } from "./print.ts";

const waitFlag = (def: number) => ({
  wait: {
    type: "string" as const,
    short: "w",
    value: "SECONDS",
    description: "Wait this long for a result (0-1800)",
    default: String(def),
  },
});

/** Prints the task as JSON or for people, and maps its state to the exit code. */
function finish(ctx: Context, inv: Invocation, task: Task): number {
  if (inv.json) printJson(ctx, task);
  else printTask(ctx, task);
  return taskExitCode(task);
}

/** What a waiting call gets: the service, when the command began, progress, Ctrl-C. */
interface Waiting extends Opened {
  since: Date;
  onTick: (task: Task) => void;
  /** Aborts on Ctrl-C: the wait ends, the task keeps running. */
  signal: AbortSignal;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === "AbortError";
}

/**
 * Runs a call that waits on a task, with a live progress line on a terminal (never under
 * --json), then prints the task and returns its exit code. Ctrl-C stops the wait, not the
 * task (its worker runs in its own session): the task is printed as it stands, with the
 * commands to follow or cancel it, and the exit code says it is still running.
 */
async function follow(
  inv: Invocation,
  ctx: Context,
  call: (w: Waiting) => Promise<Task>,
): Promise<number> {
  const since = ctx.clock.now();
  const p = progress(inv.json ? { ...ctx, io: { ...ctx.io, isTTY: false } } : ctx, since.getTime());
  const stop = new AbortController();
  const onSigint = () => stop.abort(new DOMException("Interrupted", "AbortError"));
  process.on("SIGINT", onSigint);
  let task: Task;
  try {
    task = await withService(
      ctx,
      (o) => call({ ...o, since, onTick: p.tick, signal: stop.signal }),
    );
  } catch (err) {
    if (!stop.signal.aborted || !isAbort(err)) throw err;
    p.done();
    note(ctx, "Interrupted before anything was started or sent.");
    return TASK_EXIT.interrupted;
  } finally {
    process.off("SIGINT", onSigint);
    p.done();
  }
  const code = finish(ctx, inv, task);
  if (stop.signal.aborted && !isFinal(task.status.state)) {
    note(ctx, `Stopped waiting. Task ${task.id} keeps running.`);
    note(ctx, `Follow it:  observal delegate status ${task.id} --wait 600`);
    note(ctx, `Cancel it:  observal delegate cancel ${task.id}`);
  }
  return code;
}

const find: Command = {
  name: "find",
  summary: "Find approved agents for a task",
  args: ["words"],
  variadic: true,
  flags: {
    limit: { type: "string", short: "n", value: "N", description: "How many (1-10)", default: "5" },
  },
  async run(inv, ctx) {
    const text = [inv.args.words, ...inv.rest].join(" ");
    const limit = int(inv, "limit", 1, 10);
    const agents = await withService(ctx, ({ service }) => service.find(text, limit));
    if (inv.json) return printJson(ctx, { query: text, agents, count: agents.length });
    if (agents.length === 0) return say(ctx, "No approved agent matches that task.");
    say(ctx, `Agents for: ${text}`);
    printTable(
      ctx,
      ["AGENT", "KIND", "MATCH", "IDENTIFIER"],
      agents.map((a) => [clip(a.name, 32), a.kind, String(a.score ?? ""), a.identifier]),
    );
    for (const a of agents.filter((a) => !a.delegable)) {
      say(ctx, paint("dim", `${a.name} cannot run on this machine: ${a.unavailable}.`));
    }
  },
};

const run: Command = {
  name: "run",
  summary: "Delegate a task to an agent and wait for the result",
  args: ["agent", "message"],
  flags: {
    harness: {
      type: "string",
      short: "i",
      value: "HARNESS",
      description: "Harness a registry agent must run in",
    },
    timeout: {
      type: "string",
      value: "SECONDS",
      description: "Longest the task may run (1-86400)",
      default: "1800",
    },
    ...waitFlag(600),
  },
  details: `AGENT is an identifier from \`observal delegate find\` (urn:air:...) or a registry
reference (namespace/name or UUID). MESSAGE is the complete brief, as one quoted argument:
the agent does not see your conversation.
Exit codes: 0 completed, 3 failed/rejected/canceled, 10 still running or waiting for input
(also after Ctrl-C, which stops the wait but not the task), 9 the worker could not start
(the task is marked failed). Run \`observal help exit-codes\` for all of them.`,
  async run(inv, ctx) {
    const wait = int(inv, "wait", 0, 1800);
    const timeoutSeconds = int(inv, "timeout", 1, 86_400);
    const harnessFlag = str(inv, "harness");
    const harness = harnessFlag ? await harnessKey(harnessFlag) : undefined;
    return await follow(
      inv,
      ctx,
      ({ service, since, onTick, signal }) =>
        service.start(inv.args.agent, inv.args.message, {
          caller: service.caller(),
          waitSeconds: wait,
          harness,
          timeoutSeconds,
          since,
          onTick,
          signal,
        }),
    );
  },
};

const status: Command = {
  name: "status",
  summary: "Show a delegated task",
  args: ["task-id"],
  flags: waitFlag(0),
  async run(inv, ctx) {
    const wait = int(inv, "wait", 0, 1800);
    return await follow(
      inv,
      ctx,
      ({ service, since, onTick, signal }) =>
        service.wait(inv.args["task-id"], wait, {
          since,
          onTick: wait > 0 ? onTick : undefined,
          signal,
        }),
    );
  },
};

/** Largest --data-file read. */
const MAX_DATA_FILE_BYTES = 1024 * 1024;

/** The answer as A2A parts: the message as a text part, then --data or --data-file. */
function answerParts(inv: Invocation, ctx: Context): Part[] {
  const inline = str(inv, "data");
  const file = str(inv, "data-file");
  if (inline !== undefined && file !== undefined) {
    throw new ObservalError("USAGE", "Give the data once: --data or --data-file, not both");
  }
  const parts: Part[] = [];
  if (inv.args.message !== undefined) parts.push({ text: inv.args.message });
  if (inline !== undefined) parts.push({ data: dataObject(inline, "--data") });
  if (file !== undefined) parts.push({ data: dataObject(readDataFile(ctx, file), file) });
  if (parts.length === 0) {
    throw new ObservalError("USAGE", "Missing the answer", {
      remediation: "Give it as MESSAGE, as data with --data JSON or --data-file FILE, or as both",
    });
  }
  return parts;
}

function readDataFile(ctx: Context, file: string): string {
  const path = resolve(ctx.cwd, file);
  try {
    if (statSync(path).size > MAX_DATA_FILE_BYTES) {
      throw new ObservalError("USAGE", `${file} is larger than 1 MiB`, {
        remediation: "Send a smaller JSON object",
      });
    }
    return readFileSync(path, "utf8");
  } catch (err) {
    if (err instanceof ObservalError) throw err;
    throw new ObservalError("USAGE", `Cannot read ${file}: ${(err as Error).message}`, {
      resource: path,
      remediation: "Pass the path of a file that holds a JSON object",
    });
  }
}

/** Parses the JSON of a data answer; it must be an object (A2A data parts are objects). */
function dataObject(json: string, source: string): Record<string, unknown> {
  if (json.length > MAX_MESSAGE_CHARS) {
    throw new ObservalError(
      "USAGE",
      `The data in ${source} is ${json.length} characters; at most ${MAX_MESSAGE_CHARS} are accepted`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new ObservalError("USAGE", `${source} is not valid JSON: ${(err as Error).message}`, {
      remediation: `Pass a JSON object, for example --data '{"approved": true}'`,
    });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ObservalError("USAGE", `${source} must hold a JSON object`, {
      remediation: `Wrap the value in an object, for example --data '{"answer": 42}'`,
    });
  }
  return value as Record<string, unknown>;
}

const reply: Command = {
  name: "reply",
  summary: "Answer a remote agent that asked for input",
  args: ["task-id", "message?"],
  flags: {
    data: {
      type: "string",
      value: "JSON",
      description: "Answer with a data part: a JSON object (with MESSAGE, both are sent)",
    },
    "data-file": {
      type: "string",
      value: "FILE",
      description: "Answer with a data part read from a file holding a JSON object",
    },
    ...waitFlag(600),
  },
  details: `Only a remote task that waits for input takes a reply. When several replies race
for one question, exactly one is taken; the others exit with code 11 and send nothing, as
does a reply that a cancel beat.
Exit codes: 0 completed, 3 failed/rejected/canceled, 10 still running or waiting for input,
6 the task was not waiting for input, 11 another reply or a cancel got there first.`,
  async run(inv, ctx) {
    const wait = int(inv, "wait", 0, 1800);
    const parts = answerParts(inv, ctx);
    return await follow(
      inv,
      ctx,
      ({ service, since, onTick, signal }) =>
        service.reply(inv.args["task-id"], parts, { waitSeconds: wait, since, onTick, signal }),
    );
  },
};

const list: Command = {
  name: "list",
  summary: "List delegated tasks, newest first",
  flags: {
    limit: {
      type: "string",
      short: "n",
      value: "N",
      description: "How many (1-200)",
      default: "20",
    },
  },
  async run(inv, ctx) {
    const limit = int(inv, "limit", 1, 200);
    const out = await withService(ctx, ({ service }) => Promise.resolve(service.list(limit)));
    if (inv.json) return printJson(ctx, out);
    if (out.items.length === 0) return say(ctx, "No delegated tasks yet.");
    printTable(
      ctx,
      ["TASK", "AGENT", "STATE", "STARTED"],
      out.items.map((t) => [
        t.id,
        clip(t.metadata.observal.targetName ?? t.metadata.observal.target, 32),
        stateText(t),
        t.metadata.observal.createdAt,
      ]),
    );
    if (out.total > out.items.length) {
      say(ctx, paint("dim", `${out.items.length} of ${out.total}; use --limit for more`));
    }
  },
};

const cancel: Command = {
  name: "cancel",
  summary: "Cancel a delegated task",
  args: ["task-id"],
  async run(inv, ctx) {
    const task = await withService(ctx, ({ service }) => service.cancel(inv.args["task-id"]));
    if (inv.json) printJson(ctx, task);
    else printTask(ctx, task);
    const state = task.status.state;
    if (state === "TASK_STATE_CANCELED") return 0;
    if (!inv.json && isTerminal(state)) {
      note(ctx, `The task had already ${stateLabel(state)}; nothing was canceled.`);
    }
    return taskExitCode(task);
  },
};

const prune: Command = {
  name: "prune",
  summary: "Delete settled tasks older than some days, with their logs",
  flags: {
    "older-than": {
      type: "string",
      value: "DAYS",
      description: "Age in days (0-3650)",
      default: "30",
    },
  },
  async run(inv, ctx) {
    const days = int(inv, "older-than", 0, 3650);
    const before = new Date(ctx.clock.now().getTime() - days * 86_400_000);
    const out = await withService(ctx, ({ store }) => Promise.resolve(store.prune({ before })));
    // Capability-lock lines are kept for their own fixed period, whatever --older-than says.
    const lock = pruneCapabilityLock(ctx.home, { now: ctx.clock.now() });
    if (inv.json) {
      return printJson(ctx, { ...out, lock_lines: lock.removed, before: before.toISOString() });
    }
    say(
      ctx,
      `Removed ${out.removed} settled task${out.removed === 1 ? "" : "s"} older than ${days} days.`,
    );
    if (out.orphans > 0) {
      say(ctx, `Removed ${out.orphans} task folder${out.orphans === 1 ? "" : "s"} no task owns.`);
    }
    if (lock.removed > 0) {
      say(
        ctx,
        `Removed ${lock.removed} capability-lock line${
          lock.removed === 1 ? "" : "s"
        } older than 30 days.`,
      );
    }
  },
};

const recover: Command = {
  name: "recover",
  summary: "Rebuild a damaged task store from the tasks that can still be read",
  details: `Copies every task that can still be read into a new task store and moves the damaged
database aside (tasks.db.damaged-<timestamp>, with its -wal file); nothing is deleted.
A healthy store is left as it is. Stop running delegations first: a worker that still has
the damaged file open keeps writing to it.`,
  run(inv, ctx) {
    const report = recoverTaskStore({ home: ctx.home, clock: ctx.clock });
    if (inv.json) return printJson(ctx, report);
    if (report.state === "missing") {
      return say(ctx, `There is no task store at ${report.path}; nothing to recover.`);
    }
    if (report.state === "healthy") {
      return say(ctx, `The task store ${report.path} is not damaged; nothing to do.`);
    }
    const tasks = (n: number) => `${n} task${n === 1 ? "" : "s"}`;
    say(ctx, `Rebuilt the task store ${report.path} (${report.problem}).`);
    say(ctx, `Kept ${tasks(report.kept)}; lost ${tasks(report.lost)} that could not be read.`);
    say(ctx, `The damaged files were moved aside: ${report.movedAside.join(", ")}`);
  },
};

/** A harness name as its registry key; the harness facts load only when a name is given. */
async function harnessKey(name: string): Promise<string> {
  return (await import("../../harness/mod.ts")).normalizeHarness(name);
}

/**
 * The caller's harness as a known key. An unknown name is kept as given (with a warning)
 * rather than refused: it only labels the caller, and a server that fails to start leaves
 * the agent with no way to delegate at all.
 */
async function callerHarness(ctx: Context, raw: string | undefined): Promise<string | undefined> {
  const name = raw?.trim();
  if (!name) return undefined;
  try {
    return await harnessKey(name);
  } catch (err) {
    if (!(err instanceof ObservalError)) throw err;
    note(ctx, `observal-agents: unknown harness "${name}"; using it as given`);
    return name;
  }
}

const mcp: Command = {
  name: "mcp",
  summary: "Serve the observal-agents MCP server on stdio (harnesses start it)",
  flags: {
    harness: {
      type: "string",
      value: "HARNESS",
      description: "Harness the calling agent runs in (default: $OBSERVAL_HARNESS)",
    },
    "parent-id": {
      type: "string",
      value: "AGENT_ID",
      description: "Registry agent id of the calling agent (default: $OBSERVAL_AGENT_ID)",
    },
  },
  details: `Tools: find_agents, delegate, get_task, cancel_task. Stdout carries only MCP messages;
logs go to stderr. The server stops when the client closes its stdin.`,
  async run(inv, ctx) {
    const harness = await callerHarness(ctx, str(inv, "harness") ?? ctx.env.OBSERVAL_HARNESS);
    const agentId = str(inv, "parent-id")?.trim() || undefined;
    // The protocol owns stdout: whatever else this session might print goes to stderr.
    const io = { ...ctx.io, stdout: ctx.io.stderr, isTTY: false, color: false };
    // Loaded here: the MCP SDK is the heaviest import, and no other command needs it.
    const { createAgentsServer, serveStdio } = await import("../../mcp/mod.ts");
    await withService({ ...ctx, io }, ({ service }) =>
      serveStdio(createAgentsServer({
        service,
        caller: service.caller({ harness, agentId }),
        clock: ctx.clock,
        version: VERSION,
        stderr: ctx.io.stderr,
      })));
    note(ctx, "observal-agents: the client disconnected; stopped");
  },
};

const worker: Command = {
  name: "worker",
  summary: "Run one delegated task (started by observal itself)",
  args: ["task-id"],
  hidden: true,
  async run(inv, ctx) {
    return await withService(
      ctx,
      ({ store, registry }) => runWorker({ ctx, store, registry }, inv.args["task-id"]),
    );
  },
};

export const delegateGroup: Group = {
  name: "delegate",
  summary: "Hand a task to another approved agent (registry or remote A2A)",
  commands: [find, run, status, reply, list, cancel, prune, recover, mcp, worker],
};
