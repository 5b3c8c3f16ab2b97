/**
 * `observal delegate resident NAME`: the resident runner (lib/resident/runner.ts), which
 * a `delegate run` from a terminal starts for the next ones. It loads the CLI and what a
 * local run needs before the first command comes.
 * @module
 */
import type { Command } from "../command.ts";

/** `OBSERVAL_RESIDENT_IDLE`: seconds without a command before the runner ends. */
const IDLE_SECONDS = { default: 300, min: 1, max: 3600 };

/** `observal delegate resident NAME` (started by observal itself). */
export const residentCommand: Command = {
  name: "resident",
  summary: "Keep observal loaded for the next delegate runs (started by observal itself)",
  args: ["name"],
  hidden: true,
  async run(inv, ctx) {
    const [{ runCli }, { serveResident }] = await Promise.all([
      import("../mod.ts"),
      import("../../resident/mod.ts"),
    ]);
    const set = Number(ctx.env.OBSERVAL_RESIDENT_IDLE);
    const idle = Number.isInteger(set) && set >= IDLE_SECONDS.min && set <= IDLE_SECONDS.max
      ? set
      : IDLE_SECONDS.default;
    return await serveResident(ctx, {
      name: inv.args.name,
      run: runCli,
      preload: () =>
        Promise.all([
          import("./run.ts"),
          import("../../runner/runnable/mod.ts"),
          import("../../runner/local/mod.ts"),
          import("../../runner/sandbox/mod.ts"),
          import("../../workspace/mod.ts"),
          import("../../harness/mod.ts"),
          import("../../telemetry/mod.ts"),
        ]),
      idleMs: idle * 1000,
      maxRuns: 100,
    });
  },
};
