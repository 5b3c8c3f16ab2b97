/**
 * The `observal` command line: the command tree and the one place that renders errors.
 * @module
 */
import { CATEGORIES, type Context, runtimeName, toObservalError, VERSION } from "../core/mod.ts";
import { dispatch, type Group } from "./command.ts";
import { registryGroup } from "./registry/mod.ts";
import { delegateGroup } from "./delegate/mod.ts";
import { agentGroup } from "./agent/mod.ts";
import { mcpGroup } from "./mcp/mod.ts";
import { sessionsGroup } from "./sessions.ts";
import { doctorCommand } from "./doctor.ts";
import { reconcileCommand } from "./reconcile.ts";
import { TASK_EXIT } from "./delegate/print.ts";
import { note, paint, printJsonError, say } from "./output.ts";

export { escapeControls } from "./output.ts";

const exitCodes = {
  name: "exit-codes",
  summary: "What observal's exit codes mean",
  run(_inv: unknown, ctx: Context) {
    const lines = new Map<number, string[]>([
      [0, ["success (also: a search or list with no results; a delegated task completed)"]],
    ]);
    const add = (code: number, text: string) => lines.set(code, [...lines.get(code) ?? [], text]);
    for (const [category, { exit }] of Object.entries(CATEGORIES)) {
      // The reply-refused code gets its own sentence below.
      if (exit !== TASK_EXIT.replyRefused) add(exit, category.replace(/_/g, " "));
    }
    add(TASK_EXIT.unsuccessful, "a delegated task failed, was rejected or was canceled");
    add(
      TASK_EXIT.pending,
      "a delegated task is still running or waits for input (also when Ctrl-C stopped the wait)",
    );
    add(
      TASK_EXIT.replyRefused,
      "a reply was refused: another reply or a cancel got there first, and nothing was sent",
    );
    add(TASK_EXIT.interrupted, "interrupted (Ctrl-C) before any task was started");
    for (const [code, texts] of [...lines].sort((a, b) => a[0] - b[0])) {
      say(ctx, `${String(code).padEnd(3)} ${texts.join(", ")}`);
    }
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
    mcpGroup,
    registryGroup,
    sessionsGroup,
    doctorCommand,
    reconcileCommand,
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
      printJsonError(ctx, { error: e.toJSON() });
    } else {
      note(ctx, paint("red", "error:"), " ", e.message);
      if (e.remediation) note(ctx, e.remediation);
      if (e.code === "INTERNAL" && e.cause instanceof Error && ctx.env.OBSERVAL_DEBUG) {
        note(ctx, e.cause.stack ?? e.cause.message);
      }
    }
    return e.exitCode;
  }
}
