/** `observal delegate list`: reads the task store only. */
import { openTaskStore } from "../../store/mod.ts";
import { type Command, int } from "../command.ts";
import { paint, printJson, printTable, say } from "../output.ts";
import { clip } from "../clip.ts";
import { stateText } from "./print.ts";

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
  },
  run(inv, ctx) {
    const limit = int(inv, "limit", 1, 200);
    // Listing needs nothing but the store: no service, no registry.
    const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
    let out;
    try {
      out = store.list({ limit });
    } finally {
      store.close();
    }
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
