/** `observal delegate prune`. */
import { openTaskStore } from "../../store/mod.ts";
import { pruneCapabilityLock } from "../../telemetry/mod.ts";
import { type Command, int } from "../command.ts";
import { printJson, say } from "../output.ts";

/** `observal delegate prune`. */
export const pruneCommand: Command = {
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
  run(inv, ctx) {
    const days = int(inv, "older-than", 0, 3650);
    const before = new Date(ctx.clock.now().getTime() - days * 86_400_000);
    const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
    let out;
    try {
      out = store.prune({ before });
    } finally {
      store.close();
    }
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
