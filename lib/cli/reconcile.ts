/** `observal reconcile`: settle, reap, remove and prune what delegations left behind. */
// Its own door: reconcile prunes telemetry, which no other delegation command loads.
import { reconcile, reconcileLines } from "../delegation/reconcile.ts";
import { type Command, int } from "./command.ts";
import { withService } from "./delegate/_service.ts";
import { printJson, say } from "./output.ts";

/** `observal reconcile`. */
export const reconcileCommand: Command = {
  name: "reconcile",
  summary: "Settle dead workers' tasks, reap their children, prune old tasks and workspaces",
  flags: {
    "dry-run": { type: "boolean", short: "n", description: "Say what would be done, do nothing" },
    "older-than": {
      type: "string",
      value: "DAYS",
      description: "Prune settled tasks older than this (0-3650)",
      default: "30",
    },
    since: {
      type: "string",
      value: "HOURS",
      description: "List child sessions of tasks started this recently (1-8760)",
      default: "168",
    },
  },
  details: `Every delegate command does this in passing; reconcile does it on purpose and says what
it did. A child process is stopped only when it is provably the one observal started (same pid,
same start time, running in its workspace); anything else is left alone and its workspace kept
until it exits. Capability-lock lines older than 30 days are pruned. The child sessions listed
are the ones an upload attributes to the agent that ran them.`,
  async run(inv, ctx) {
    const report = await withService(
      ctx,
      ({ service, store }) =>
        Promise.resolve(reconcile({ ctx, store, service }, {
          dryRun: inv.flags["dry-run"] === true,
          olderThanDays: int(inv, "older-than", 0, 3650),
          sinceHours: int(inv, "since", 1, 8760),
        })),
    );
    if (inv.json) return printJson(ctx, report);
    for (const line of reconcileLines(report)) say(ctx, line);
  },
};
