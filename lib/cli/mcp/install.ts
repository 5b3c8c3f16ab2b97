/**
 * `observal mcp install`: adds only the observal-agents MCP server to a harness's own
 * config, launched by this observal (or `npx -y observal@<version>` for configs shared in
 * a repository), pointed at the same store and registry as the user.
 * @module
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  LAUNCHER_KINDS,
  type LauncherKind,
  ObservalError,
  readConfig,
  selfLauncher,
  serverEnv,
  VERSION,
} from "../../core/mod.ts";
import {
  delegationInstall,
  getHarness,
  HARNESS_KEYS,
  type Scope,
  writeSnippet,
} from "../../harness/mod.ts";
import { choice, type Command, str } from "../command.ts";
import { harnessFlag } from "../agent/harness_flag.ts";
import { printJson, say } from "../output.ts";
import { commandLine, shownPath } from "../agent/print.ts";

/** `observal mcp install`. */
export const installCommand: Command = {
  name: "install",
  summary: "Add the observal-agents MCP server to a harness's config",
  flags: {
    harness: {
      type: "string",
      short: "i",
      value: "HARNESS",
      choices: HARNESS_KEYS,
      description: `Harness to configure (${HARNESS_KEYS.join(", ")})`,
    },
    scope: {
      type: "string",
      value: "project|user",
      description: "The project's config or your own (default: the harness's default)",
    },
    dir: { type: "string", short: "d", value: "DIR", description: "Project directory (default .)" },
    launcher: {
      type: "string",
      value: "self|npx",
      description:
        "Start this observal, or npx -y observal@<version> (default: launcher in config, else self)",
    },
    "dry-run": { type: "boolean", short: "n", description: "Show what would change" },
  },
  details: `The entry starts observal by absolute path, so a harness with another PATH (or an
older Node on it) still launches it. Use --launcher npx for a config committed to a repository.
The entry carries OBSERVAL_HOME (and OBSERVAL_SERVER_URL when a server is configured); an API
key stays in $OBSERVAL_HOME/config.json or your environment.`,
  async run(inv, ctx) {
    const harness = harnessFlag(inv);
    if (!harness) {
      throw new ObservalError("USAGE", "Missing --harness", {
        remediation: `Pass --harness with one of: ${HARNESS_KEYS.join(", ")}`,
      });
    }
    const facts = getHarness(harness);
    const scopeFlag = choice(inv, "scope", ["project", "user"]);
    const kind: LauncherKind = choice(inv, "launcher", LAUNCHER_KINDS) ??
      readConfig(ctx).launcher ??
      "self";
    const dir = resolve(ctx.cwd, str(inv, "dir") ?? ".");
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new ObservalError("INVALID_ARGUMENT", `${dir} is not a directory`, {
        remediation: "Pass an existing project directory with --dir",
      });
    }
    const scope = (scopeFlag ?? facts.default_scope) as Scope;
    const command = selfLauncher(kind, { version: VERSION, home: ctx.home });
    const plan = delegationInstall(harness, scope, ctx.env, { command, env: serverEnv(ctx) });
    const result = await writeSnippet(plan.snippet, {
      targetDir: dir,
      scope: plan.scope,
      home: plan.home,
      dryRun: inv.flags["dry-run"] === true,
      setupCommands: "skip",
    });
    const entry = (plan.snippet.mcp_config as { content: Record<string, unknown> }).content;
    if (inv.json) {
      return printJson(ctx, {
        harness,
        scope: plan.scope,
        dry_run: inv.flags["dry-run"] === true,
        files: result.files.map((f) => ({ path: f.path, status: f.status })),
        entry,
      });
    }
    for (const f of result.files) say(ctx, `${f.status.padEnd(12)} ${shownPath(f, plan.home)}`);
    say(
      ctx,
      `observal-agents runs: ${commandLine([...command, "delegate", "mcp", "--harness", harness])}`,
    );
    if (plan.scope !== scope) {
      say(
        ctx,
        `${facts.display_name} reads MCP servers only from your own config, so it went there.`,
      );
    }
    say(ctx, `Start ${facts.display_name} and ask it to find_agents for a task.`);
  },
};

/** `observal mcp`. */
