/** `observal delegate run`. */
import { type Command, int, str } from "../command.ts";
import { follow, harnessKey, waitFlag } from "./_follow.ts";

/** `observal delegate run AGENT MESSAGE`. */
export const runCommand: Command = {
  name: "run",
  summary: "Delegate a task to an agent and wait for the result",
  args: ["agent", "message"],
  flags: {
    harness: {
      type: "string",
      short: "i",
      value: "HARNESS",
      description: "Harness a registry agent must run in",
    },
    timeout: {
      type: "string",
      value: "SECONDS",
      description: "Longest the task may run (1-86400)",
      default: "1800",
    },
    ...waitFlag(600),
  },
  details: `AGENT is an identifier from \`observal delegate find\` (urn:air:...) or a registry
reference (namespace/name or UUID). MESSAGE is the complete brief, as one quoted argument:
the agent does not see your conversation.
Exit codes: 0 completed, 3 failed/rejected/canceled, 10 still running or waiting for input
(also after Ctrl-C, which stops the wait but not the task), 9 the worker could not start
(the task is marked failed). Run \`observal help exit-codes\` for all of them.`,
  async run(inv, ctx) {
    const wait = int(inv, "wait", 0, 1800);
    const timeoutSeconds = int(inv, "timeout", 1, 86_400);
    const harnessFlag = str(inv, "harness");
    const harness = harnessFlag ? await harnessKey(harnessFlag) : undefined;
    return await follow(
      inv,
      ctx,
      ({ service, since, onTick, signal }) =>
        service.start(inv.args.agent, inv.args.message, {
          caller: service.caller(),
          waitSeconds: wait,
          harness,
          timeoutSeconds,
          since,
          onTick,
          signal,
        }),
    );
  },
};
