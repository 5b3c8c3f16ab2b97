/**
 * The `observal` command line: the command tree and the one place that renders errors.
 * @module
 */
import { CATEGORIES, type Context, runtimeName, toObservalError, VERSION } from "../core/mod.ts";
import { dispatch, type Group } from "./command.ts";
import { registryGroup } from "./registry/mod.ts";
import { delegateGroup } from "./delegate/mod.ts";
import { agentGroup } from "./agent/mod.ts";
import { TASK_EXIT } from "./delegate/print.ts";
import { paint, say } from "./output.ts";

const exitCodes = {
  name: "exit-codes",
  summary: "What observal's exit codes mean",
  run(_inv: unknown, ctx: Context) {
    const byExit = new Map<number, string[]>();
    for (const [category, { exit }] of Object.entries(CATEGORIES)) {
      byExit.set(exit, [...(byExit.get(exit) ?? []), category.replace(/_/g, " ")]);
    }
    say(ctx, "0  success (also: a search or list with no results; a delegated task completed)");
    for (const [code, names] of [...byExit].sort((a, b) => a[0] - b[0])) {
      say(ctx, `${code}  ${names.join(", ")}`);
    }
    say(ctx, `${TASK_EXIT.unsuccessful}  a delegated task failed, was rejected or was canceled`);
    say(ctx, `${TASK_EXIT.pending} a delegated task is still running or waits for input`);
  },
};

/** The root of the command tree. */
export const rootGroup: Group = {
  name: "observal",
  summary: "Hand part of a coding task to an approved agent and get the result back",
  details: `Flags on every command: --json (machine-readable output), --help.
Environment: OBSERVAL_HOME (default ~/.observal), OBSERVAL_SERVER_URL, OBSERVAL_API_KEY.
Run \`observal help exit-codes\` for exit codes.`,
  commands: [
    delegateGroup,
    agentGroup,
    registryGroup,
    { name: "help", summary: "Help topics", commands: [exitCodes] },
  ],
};

/** Runs the CLI; returns the exit code. Errors are printed here and nowhere else. */
export async function runCli(argv: string[], ctx: Context): Promise<number> {
  if (argv[0] === "--version" || argv[0] === "-V" || argv[0] === "version") {
    say(
      ctx,
      argv.includes("--json")
        ? JSON.stringify({ version: VERSION, runtime: runtimeName() })
        : `observal ${VERSION} (${runtimeName()})`,
    );
    return 0;
  }
  try {
    return await dispatch(rootGroup, argv, ctx);
  } catch (err) {
    const e = toObservalError(err);
    if (argv.includes("--json")) {
      ctx.io.stderr.write(`${JSON.stringify({ error: e.toJSON() })}\n`);
    } else {
      ctx.io.stderr.write(`${paint(ctx, "red", "error:")} ${e.message}\n`);
      if (e.remediation) ctx.io.stderr.write(`${e.remediation}\n`);
      if (e.code === "INTERNAL" && e.cause instanceof Error && ctx.env.OBSERVAL_DEBUG) {
        ctx.io.stderr.write(`${e.cause.stack}\n`);
      }
    }
    return e.exitCode;
  }
}
