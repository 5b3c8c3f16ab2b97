/** `observal delegate status`. */
import { type Command, int } from "../command.ts";
import { follow, TASK_JSON_NOTE, waitFlags } from "./_follow.ts";

/** `observal delegate status TASK_ID`. */
export const statusCommand: Command = {
  name: "status",
  summary: "Show a delegated task",
  args: ["task-id"],
  flags: waitFlags(0),
  details: `TASK-ID is the task's id or its first characters (at least 4, enough to name one task).
Exit codes: 0 completed, 3 failed/rejected/canceled, 10 still running or waiting for input.
${TASK_JSON_NOTE}`,
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
