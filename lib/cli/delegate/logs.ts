/** `observal delegate logs`: the end of a task's logs. Reads the task store only. */
import { openTaskStore } from "../../store/mod.ts";
import { type Command, int } from "../command.ts";
import { paint, printBlock, printList, say } from "../output.ts";
import { MAX_TAIL_BYTES, readTail, type Tail } from "./_tail.ts";

/** One log as `--json` prints it. */
interface LogTail {
  name: string;
  path: string;
  bytes: number;
  lines: number;
  whole: boolean;
  tail: string;
}

/** What part of the log is shown: `(all 3 lines)`, `(last 50 lines)`, `(the last 256 KiB)`. */
function heading(tail: Tail): string {
  const lines = `${tail.lines} line${tail.lines === 1 ? "" : "s"}`;
  if (tail.bytes === 0) return "(empty)";
  if (tail.whole) return `(all ${lines})`;
  if (tail.cut) return `(the last ${Math.round(MAX_TAIL_BYTES / 1024)} KiB)`;
  return `(last ${lines})`;
}

/** `observal delegate logs TASK_ID`. */
export const logsCommand: Command = {
  name: "logs",
  summary: "Show the end of a delegated task's logs",
  args: ["task-id"],
  flags: {
    lines: {
      type: "string",
      short: "n",
      value: "N",
      description: "How many lines from the end of each log (1-10000)",
      default: "50",
    },
  },
  details: `TASK-ID is the task's id or its first characters (at least 4, enough to name one task).
Shows the worker's log and, for a registry Agent's task, its harness's stdout and stderr and
the log of the observal-agents servers it delegated through, from the task's folder.
At most ${MAX_TAIL_BYTES / 1024} KiB of each log is read, from its end.
With --json: {"items": [...], "total": N}; each item has name (worker, stdout, stderr or agents),
path, bytes (the file's size), lines and tail (the last lines), and whole (true when tail
is the whole file).`,
  run(inv, ctx) {
    const lines = int(inv, "lines", 1, 10_000);
    const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
    let id: string;
    let logs;
    try {
      id = store.resolveId(inv.args["task-id"]);
      store.require(id);
      logs = store.logs(id);
    } finally {
      store.close();
    }
    const tails = logs.map((log) => ({ log, tail: readTail(log.path, lines) }));
    if (inv.json) {
      const items: LogTail[] = tails.map(({ log, tail }) => ({
        name: log.name,
        path: log.path,
        bytes: tail.bytes,
        lines: tail.lines,
        whole: tail.whole,
        tail: tail.text,
      }));
      return printList(ctx, items, items.length);
    }
    if (tails.length === 0) return say(ctx, `Task ${id} has no logs.`);
    tails.forEach(({ log, tail }, i) => {
      if (i > 0) say(ctx);
      say(ctx, paint("bold", `==> ${log.path} <==`), ` ${heading(tail)}`);
      if (tail.text !== "") printBlock(ctx, tail.text);
    });
  },
};
