/** `observal delegate`: hand a task to an approved agent and follow it. */
import type { Task } from "../../a2a/mod.ts";
import { type Context, ObservalError, VERSION } from "../../core/mod.ts";
import { runWorker } from "../../delegation/mod.ts";
import { type Command, type Group, int, type Invocation, str } from "../command.ts";
import { paint, printJson, renderTable, say } from "../output.ts";
import { clip } from "../registry/_client.ts";
import { type Opened, withService } from "./_service.ts";
import { printTask, progress, stateText, taskExitCode } from "./print.ts";

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

/**
 * Runs a call that waits on a task, with a live progress line on a terminal (never under
 * --json), then prints the task and returns its exit code.
 */
async function follow(
  inv: Invocation,
  ctx: Context,
  call: (o: Opened, since: Date, onTick: (task: Task) => void) => Promise<Task>,
): Promise<number> {
  const since = ctx.clock.now();
  const p = progress(inv.json ? { ...ctx, io: { ...ctx.io, isTTY: false } } : ctx, since.getTime());
  const task = await withService(ctx, (o) => call(o, since, p.tick)).finally(p.done);
  return finish(ctx, inv, task);
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
    ctx.io.stdout.write(renderTable(
      ["AGENT", "KIND", "MATCH", "IDENTIFIER"],
      agents.map((a) => [clip(a.name, 32), a.kind, String(a.score ?? ""), a.identifier]),
    ));
    for (const a of agents.filter((a) => !a.delegable)) {
      say(ctx, paint(ctx, "dim", `${a.name} cannot run on this machine: ${a.unavailable}.`));
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
Exit codes: 0 completed, 3 failed/rejected/canceled, 10 still running or waiting for input.`,
  async run(inv, ctx) {
    const wait = int(inv, "wait", 0, 1800);
    const timeoutSeconds = int(inv, "timeout", 1, 86_400);
    const harnessFlag = str(inv, "harness");
    const harness = harnessFlag ? await harnessKey(harnessFlag) : undefined;
    return await follow(
      inv,
      ctx,
      ({ service }, since, onTick) =>
        service.start(inv.args.agent, inv.args.message, {
          caller: service.caller(),
          waitSeconds: wait,
          harness,
          timeoutSeconds,
          since,
          onTick,
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
      ({ service }, since, onTick) =>
        service.wait(inv.args["task-id"], wait, { since, onTick: wait > 0 ? onTick : undefined }),
    );
  },
};

const reply: Command = {
  name: "reply",
  summary: "Answer a remote agent that asked for input",
  args: ["task-id", "message"],
  flags: waitFlag(600),
  async run(inv, ctx) {
    const wait = int(inv, "wait", 0, 1800);
    return await follow(
      inv,
      ctx,
      ({ service }, since, onTick) =>
        service.reply(inv.args["task-id"], inv.args.message, { waitSeconds: wait, since, onTick }),
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
    ctx.io.stdout.write(renderTable(
      ["TASK", "AGENT", "STATE", "STARTED"],
      out.items.map((t) => [
        t.id,
        clip(t.metadata.observal.targetName ?? t.metadata.observal.target, 32),
        stateText(ctx, t),
        t.metadata.observal.createdAt,
      ]),
    ));
    if (out.total > out.items.length) {
      say(ctx, paint(ctx, "dim", `${out.items.length} of ${out.total}; use --limit for more`));
    }
  },
};

const cancel: Command = {
  name: "cancel",
  summary: "Cancel a delegated task",
  args: ["task-id"],
  async run(inv, ctx) {
    const task = await withService(ctx, ({ service }) => service.cancel(inv.args["task-id"]));
    if (inv.json) return printJson(ctx, task);
    printTask(ctx, task);
    return task.status.state === "TASK_STATE_CANCELED" ? 0 : taskExitCode(task);
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
    if (inv.json) return printJson(ctx, { ...out, before: before.toISOString() });
    say(
      ctx,
      `Removed ${out.removed} settled task${out.removed === 1 ? "" : "s"} older than ${days} days.`,
    );
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
    ctx.io.stderr.write(`observal-agents: unknown harness "${name}"; using it as given\n`);
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
    ctx.io.stderr.write("observal-agents: the client disconnected; stopped\n");
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
  commands: [find, run, status, reply, list, cancel, prune, mcp, worker],
};
