/** `observal delegate status`. */
import { type Command, int } from "../command.ts";
import { follow, waitFlag } from "./_follow.ts";

/** `observal delegate status TASK_ID`. */
export const statusCommand: Command = {
  name: "status",
  summary: "Show a delegated task",
  args: ["task-id"],
  flags: waitFlag(0),
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
