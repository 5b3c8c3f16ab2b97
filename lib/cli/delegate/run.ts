/** `observal delegate run`. */
import { ObservalError, SANDBOX_MODES } from "../../core/mod.ts";
import { choice, type Command, int } from "../command.ts";
import { headlessHarnessFlag, headlessHarnessKeys } from "../agent/harness_flag.ts";
import { follow, TASK_JSON_NOTE, waitFlags } from "./_follow.ts";
import { MAX_MESSAGE_CHARS, messageFileFlag, readMessage } from "./_brief.ts";

const USAGE = "observal delegate run AGENT [MESSAGE | -] [flags]";

/** `observal delegate run AGENT MESSAGE`. */
export const runCommand: Command = {
  name: "run",
  summary: "Delegate a task to an agent and wait for the result",
  args: ["agent", "message?"],
  flags: {
    ...messageFileFlag,
    harness: {
      type: "string",
      short: "i",
      value: "HARNESS",
      choices: headlessHarnessKeys,
      description: "Harness a registry agent must run in (one that runs agents headless)",
    },
    sandbox: {
      type: "string",
      value: "MODE",
      choices: SANDBOX_MODES,
      description:
        "Sandbox a registry agent's harness: auto (where it works), on (refuse without), off",
    },
    timeout: {
      type: "string",
      value: "SECONDS",
      description: "Longest the task may run (1-86400)",
      default: "1800",
    },
    "no-repo": {
      type: "boolean",
      description: "Do not send this repository to a remote agent that takes it",
    },
    ...waitFlags(600),
  },
  details: `AGENT is an identifier from \`observal delegate find\` (urn:air:...) or a registry
reference (namespace/name or UUID). MESSAGE is the complete brief, as one quoted argument:
the agent does not see your conversation. As - the brief is read from stdin
(\`observal delegate run AGENT - < brief.md\`); --message-file FILE reads it from a file.
A brief holds at most ${MAX_MESSAGE_CHARS} characters, checked before anything starts.
The task runs in this command while it waits (not a remote agent's that streams, nor on
Windows a registry Agent's); when the wait ends first, or on Ctrl-C, a worker takes it over
and the task goes on, a registry Agent's harness still running (a second Ctrl-C before the
worker has it quits at once, and the task is recorded as stopped by you).
On Linux a run from a terminal leaves a resident runner, and the next runs from the same
shell start warm there (OBSERVAL_RESIDENT=auto|on|off; \`observal doctor\` says which applies).
A remote agent whose card takes the repository state (an observal \`a2a serve\`) gets this
repository with the brief: HEAD as a git bundle (leaving out what your remote-tracking
branches hold, when it has a clone of its own) and your uncommitted and untracked work as
a patch. It then works on exactly your tree, and its changes.patch is kept like a local
run's, ready to apply. --no-repo sends the brief alone.
Exit codes: 0 completed, 3 failed/rejected/canceled, 10 still running or waiting for input
(also after Ctrl-C, which stops the wait but not the task), 9 the worker could not start
(the task is marked failed). Run \`observal help exit-codes\` for all of them.
${TASK_JSON_NOTE}`,
  async run(inv, ctx) {
    if (!inv.args.agent.trim()) {
      throw new ObservalError("USAGE", "AGENT is empty", {
        remediation:
          "Name the agent: an identifier from `observal delegate find` or namespace/name",
      });
    }
    const wait = int(inv, "wait", 0, 1800);
    const timeoutSeconds = int(inv, "timeout", 1, 86_400);
    const harness = await headlessHarnessFlag(inv);
    const brief = await readMessage(inv, ctx, {
      usage: USAGE,
      piped: "observal delegate run AGENT - < brief.md",
    });
    if (brief === undefined) {
      throw new ObservalError("USAGE", "Missing MESSAGE", {
        remediation: `Give the brief as MESSAGE, - (stdin) or --message-file FILE. Usage: ${USAGE}`,
      });
    }
    return await follow(
      inv,
      ctx,
      ({ service, since, onTick, signal, quit }) =>
        service.start(inv.args.agent, brief, {
          caller: service.caller(),
          waitSeconds: wait,
          harness,
          // Checked here, so a mistyped mode is refused for a remote agent too.
          sandbox: choice(inv, "sandbox", SANDBOX_MODES),
          timeoutSeconds,
          sendRepo: inv.flags["no-repo"] !== true,
          since,
          onTick,
          signal,
          quit,
          // A quick remote task is run here, with no worker process unless the wait ends first.
          runHere: true,
        }),
    );
  },
};
