/** `observal delegate recover`. */
import { recoverTaskStore } from "../../store/mod.ts";
import type { Command } from "../command.ts";
import { printJson, say } from "../output.ts";

/** `observal delegate recover`. */
export const recoverCommand: Command = {
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
