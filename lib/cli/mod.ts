/**
 * The `observal` command line: the command tree and the one place that renders errors.
 *
 * The tree is a table: groups, and each command's name, summary and module. A command's
 * module is imported only when it runs or shows its own help, so `--version` and the group
 * help load nothing beyond this table, and each command loads only what it uses.
 * @module
 */
import {
  type Context,
  homeFault,
  isVersionRequest,
  toObservalError,
  versionText,
} from "../core/mod.ts";
import { dispatch, type Group, lazy } from "./command.ts";
import { a2aGroup } from "./a2a/mod.ts";
import { agentGroup } from "./agent/mod.ts";
import { authGroup } from "./auth/mod.ts";
import { configGroup } from "./config/mod.ts";
import { delegateGroup } from "./delegate/mod.ts";
import { mcpGroup } from "./mcp/mod.ts";
import { registryGroup } from "./registry/mod.ts";
import { note, paint, printJsonError, say } from "./output.ts";

export { escapeControls } from "./output.ts";

/** `observal sessions`. */
const sessionsGroup: Group = {
  name: "sessions",
  summary: "Attribute harness sessions to delegated agents",
  commands: [
    lazy(
      "attribute",
      "Say which delegated agent a harness session belongs to",
      async () => (await import("./sessions.ts")).attributeCommand,
    ),
  ],
};

/** The root of the command tree. */
export const rootGroup: Group = {
  name: "observal",
  summary: "Hand part of a coding task to an approved agent and get the result back",
  flags: {
    version: { type: "boolean", short: "V", description: "Print observal's version and runtime" },
    help: { type: "boolean", short: "h", description: "Show help (every command takes it)" },
    json: { type: "boolean", description: "Machine-readable output (every command takes it)" },
  },
  details: `Environment: OBSERVAL_HOME (default ~/.observal), OBSERVAL_SERVER_URL, OBSERVAL_API_KEY.
Run \`observal help exit-codes\` for what each exit code means.`,
  commands: [
    delegateGroup,
    agentGroup,
    mcpGroup,
    registryGroup,
    a2aGroup,
    sessionsGroup,
    configGroup,
    authGroup,
    lazy(
      "completion",
      "Print a shell completion script (bash, zsh or fish)",
      async () => (await import("./completion/command.ts")).completionCommand,
    ),
    lazy(
      "doctor",
      "Check what this machine can do, and say how to fix what is in the way",
      async () => (await import("./doctor.ts")).doctorCommand,
    ),
    lazy(
      "reconcile",
      "Settle dead workers' tasks, reap their children, prune old tasks and workspaces",
      async () => (await import("./reconcile.ts")).reconcileCommand,
    ),
    {
      name: "help",
      summary: "Help for a command (observal help delegate run), and topics: exit-codes",
      commands: [
        lazy(
          "exit-codes",
          "What observal's exit codes mean",
          async () => (await import("./exit_codes.ts")).exitCodesCommand,
        ),
      ],
    },
  ],
};

/** Runs the CLI; returns the exit code. Errors are printed here and nowhere else. */
export async function runCli(argv: string[], ctx: Context): Promise<number> {
  if (isVersionRequest(argv)) {
    say(ctx, versionText(argv.includes("--json")));
    return 0;
  }
  try {
    return await dispatch(rootGroup, argv, ctx);
  } catch (err) {
    // A write the home refused is said one way, whichever command met it.
    const e = homeFault(err, ctx.home) ?? toObservalError(err);
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
