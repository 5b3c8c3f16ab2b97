/** `observal delegate recover`. */
import { recoverTaskStore } from "../../store/mod.ts";
import type { Command } from "../command.ts";
import { printJson, say } from "../output.ts";

/** `observal delegate recover`. */
export const recoverCommand: Command = {
  name: "recover",
  summary: "Rebuild a lost or damaged task store from the task folders and what can be read",
  details: `Rebuilds the task store when its database is missing, empty, damaged, or lacks tasks
that their folders hold: each task folder keeps the task as last written (task.json), and every
row of the old database that can still be read is used too. The old files are moved aside
(tasks.db.damaged-<timestamp>, with its -wal file); nothing is deleted. A healthy store is left
as it is. Stop running delegations first: a worker that still has the old file open keeps
writing to it. With --json: {"state", "problem", "kept", "fromFolders", "lost", "movedAside"}.`,
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
    say(
      ctx,
      `Kept ${tasks(report.kept)} (${report.fromFolders} from their task folders); ` +
        `lost ${tasks(report.lost)} that could not be read.`,
    );
    if (report.movedAside.length > 0) {
      say(ctx, `The old files were moved aside: ${report.movedAside.join(", ")}`);
    }
  },
};
