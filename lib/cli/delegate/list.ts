/** `observal delegate list`: reads the task store only. */
import type { Task, TaskState } from "../../a2a/tasks/mod.ts";
import { ObservalError } from "../../core/mod.ts";
import { openTaskStore, STATE_NAMES, stateFromName } from "../../store/mod.ts";
import { type Command, int, type Invocation, str } from "../command.ts";
import { paint, printList, printTable, say } from "../output.ts";
import { clip } from "../clip.ts";
import { stateText } from "./print.ts";

/** `--state STATE[,STATE]` as task states; undefined when not given. */
function statesOf(inv: Invocation): TaskState[] | undefined {
  const raw = str(inv, "state");
  if (raw === undefined) return undefined;
  const words = raw.split(",").map((w) => w.trim()).filter(Boolean);
  const states = words.map(stateFromName);
  const bad = words.find((_, i) => states[i] === undefined);
  if (bad !== undefined || words.length === 0) {
    throw new ObservalError("USAGE", `--state cannot be "${bad ?? raw}"`, {
      remediation: `Use one or more of: ${STATE_NAMES.join(", ")} (comma-separated)`,
    });
  }
  return states as TaskState[];
}

/** `observal delegate list`. */
export const listCommand: Command = {
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
    state: {
      type: "string",
      short: "s",
      value: "STATE[,STATE]",
      choices: STATE_NAMES,
      description: `Only tasks in these states: ${STATE_NAMES.join(", ")}`,
    },
  },
  details: `With --json: {"items": [...], "total": N}, where total counts every matching task and
each item is the task as \`observal delegate status --json\` prints it: an A2A Task whose id is
"id" and whose state is "status.state" (TASK_STATE_WORKING, ...).`,
  run(inv, ctx) {
    const limit = int(inv, "limit", 1, 200);
    const states = statesOf(inv);
    // Listing needs nothing but the store: no service, no registry.
    const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
    let out;
    try {
      out = store.list({ limit, states });
    } finally {
      store.close();
    }
    if (inv.json) return printList(ctx, out.items, out.total);
    if (out.items.length === 0) {
      return say(ctx, states ? "No delegated task is in that state." : "No delegated tasks yet.");
    }
    printTable(
      ctx,
      ["TASK", "AGENT", "STATE", "STARTED", "BY"],
      out.items.map((t) => [
        t.id,
        clip(t.metadata.observal.targetName ?? t.metadata.observal.target, 32),
        stateText(t),
        t.metadata.observal.createdAt,
        startedBy(t),
      ]),
    );
    if (out.total > out.items.length) {
      say(ctx, paint("dim", `${out.items.length} of ${out.total}; use --limit for more`));
    }
  },
};

/**
 * Who started a task: the agent (by its registry id) or harness that delegated it, else
 * "-" (a person, or a client of `a2a serve`).
 */
function startedBy(t: Task): string {
  const meta = t.metadata.observal;
  if (meta.parentAgentId) return clip(`agent ${meta.parentAgentId}`, 24);
  return meta.parentHarness ?? "-";
}
