/** `observal delegate cancel`. */
import { isTerminal, type TaskState } from "../../a2a/tasks/mod.ts";
import { stateWords } from "../../store/mod.ts";
import type { Command } from "../command.ts";
import { note } from "../output.ts";
import { finish, follow, quietFlag, TASK_JSON_NOTE } from "./_follow.ts";
import { TASK_EXIT } from "./task_exit.ts";

/** `observal delegate cancel TASK_ID`. */
export const cancelCommand: Command = {
  name: "cancel",
  summary: "Cancel a delegated task",
  args: ["task-id"],
  flags: quietFlag,
  details: `TASK-ID is the task's id or its first characters (at least 4, enough to name one task).
A running task is waited on for up to 15 s while its worker stops it.
Exit codes: 0 canceled (also when it already was), 12 nothing to cancel: the task had
already completed, failed or been rejected, 10 the worker has not stopped it yet.
${TASK_JSON_NOTE}`,
  async run(inv, ctx) {
    let before: TaskState | undefined;
    return await follow(
      inv,
      ctx,
      async ({ service, since, onTick, signal }) => {
        const task = service.get(inv.args["task-id"]);
        before = task.status.state;
        return isTerminal(before) ? task : await service.cancel(task.id, { since, onTick, signal });
      },
      (task) => {
        finish(ctx, inv, task);
        // Under --json the exit code says it; stderr stays for errors.
        const say = (text: string) => {
          if (!inv.json) note(ctx, text);
        };
        const state = task.status.state;
        if (state === "TASK_STATE_CANCELED") {
          if (before === state) say("The task was already canceled; nothing more to do.");
          return 0;
        }
        if (!isTerminal(state)) return TASK_EXIT.pending;
        const had = state === "TASK_STATE_REJECTED" ? "been rejected" : stateWords(state);
        say(`Nothing to cancel: the task had already ${had}.`);
        return TASK_EXIT.nothingToCancel;
      },
    );
  },
};
