/** `observal delegate cancel`. */
import { isTerminal, stateLabel } from "../../a2a/mod.ts";
import type { Command } from "../command.ts";
import { note, printJson } from "../output.ts";
import { withService } from "./_service.ts";
import { printTask, taskExitCode } from "./print.ts";

/** `observal delegate cancel TASK_ID`. */
export const cancelCommand: Command = {
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
