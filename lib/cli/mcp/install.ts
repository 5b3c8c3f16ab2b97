/**
 * `observal mcp install`: adds only the observal-agents MCP server to a harness's own
 * config, launched by this observal (or `npx -y observal@<version>` for configs shared in
 * a repository), pointed at the same store and registry as the user.
 * @module
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
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
  allowWrites,
  applyAllowWrite,
  delegationInstall,
  getHarness,
  HARNESS_KEYS,
  headlessNotes,
  mcpDefaultScope,
  type Scope,
  writeSnippet,
} from "../../harness/mod.ts";
import { choice, type Command, str } from "../command.ts";
import { harnessFlag } from "../agent/harness_flag.ts";
import { note, printJson, say } from "../output.ts";
import { commandLine, shownPath } from "../agent/print.ts";
import { installedFromNpm, npxVersionWarning } from "./npx_version.ts";

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
    home: {
      type: "string",
      value: "DIR",
      description: "OBSERVAL_HOME the entry sets (default: yours; with --launcher npx, none)",
    },
    "allow-headless": {
      type: "boolean",
      description: "Let headless runs (claude -p, codex exec) call its tools without asking",
    },
    "dry-run": { type: "boolean", short: "n", description: "Show what would change" },
  },
  details: `The entry starts observal by absolute path, so a harness with another PATH (or an
older Node on it) still launches it. Use --launcher npx for a config committed to a repository:
it then sets no OBSERVAL_HOME (the default home of whoever runs it) unless --home is given.
The entry carries OBSERVAL_HOME (and OBSERVAL_SERVER_URL when a server is configured); an API
key stays in $OBSERVAL_HOME/config.json or your environment. Codex's entry goes to your own
config by default: Codex ignores a project's .codex/config.toml until the project is trusted.

In an interactive session the harness asks before a tool runs. Headless runs have no one to
ask: claude -p denies the tools and codex exec refuses delegate. --allow-headless writes the
allow rule where the harness reads it (Claude Code: permissions.allow "mcp__observal-agents" in
.claude/settings.local.json, or your settings.json at --scope user; Codex: the entry's
default_tools_approval_mode = "approve", and at --scope project the project's trust in
$CODEX_HOME/config.toml) and says what it wrote. OpenCode's run needs nothing.`,
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
    const scope = scopeFlag ?? mcpDefaultScope(harness, facts.default_scope as Scope);
    const homeFlag = str(inv, "home");
    const home = homeFlag ? resolve(ctx.cwd, homeFlag) : ctx.home;
    const command = selfLauncher(kind, { version: VERSION, home });
    // A committed npx entry must not carry this machine's home: whoever runs it gets theirs.
    const env = serverEnv({ ...ctx, home });
    if (kind === "npx" && !homeFlag) delete env.OBSERVAL_HOME;
    const allowHeadless = inv.flags["allow-headless"] === true;
    const dryRun = inv.flags["dry-run"] === true;
    const plan = delegationInstall(harness, scope, ctx.env, { command, env }, {
      approveTools: allowHeadless,
    });
    const writes = allowHeadless ? allowWrites(harness, plan.scope, ctx.env, dir) : [];
    // A settings file that cannot be merged is refused before the entry is written.
    for (const w of writes) applyAllowWrite(w, true);
    const result = await writeSnippet(plan.snippet, {
      targetDir: dir,
      scope: plan.scope,
      home: plan.home,
      dryRun,
      setupCommands: "skip",
    });
    const allowed = writes.map((w) => ({
      path: w.path,
      status: applyAllowWrite(w, dryRun),
      adds: w.adds,
    }));
    const notes = headlessNotes(harness, plan.scope, ctx.env, dir, allowHeadless);
    const warnings = kind === "npx"
      ? [npxVersionWarning(VERSION, installedFromNpm())].filter((w): w is string => !!w)
      : [];
    const entry = (plan.snippet.mcp_config as { content: Record<string, unknown> }).content;
    if (inv.json) {
      return printJson(ctx, {
        harness,
        scope: plan.scope,
        dry_run: dryRun,
        files: result.files.map((f) => ({ path: f.path, status: f.status })),
        entry,
        allow_headless: allowHeadless,
        allow_files: allowed,
        notes,
        warnings,
      });
    }
    // Paths as they are: `~/` only for the user's home, not a harness's own home variable.
    const userHome = ctx.env.HOME || ctx.env.USERPROFILE;
    for (const f of result.files) say(ctx, `${f.status.padEnd(12)} ${shownPath(f, userHome)}`);
    for (const a of allowed) {
      const inside = relative(dir, a.path);
      const shown = inside && !inside.startsWith("..") && !isAbsolute(inside)
        ? inside
        : shownPath(a, userHome);
      say(ctx, `${a.status.padEnd(12)} ${shown} (${a.adds})`);
    }
    say(
      ctx,
      `observal-agents runs: ${commandLine([...command, "delegate", "mcp", "--harness", harness])}`,
    );
    if (kind === "npx" && !homeFlag) {
      say(ctx, "It sets no OBSERVAL_HOME: it uses the default home of whoever runs it.");
    }
    if (plan.scope !== scope) {
      say(
        ctx,
        `${facts.display_name} reads MCP servers only from your own config, so it went there.`,
      );
    }
    for (const n of notes) say(ctx, n);
    for (const w of warnings) note(ctx, w);
    say(ctx, `Start ${facts.display_name} and ask it to find_agents for a task.`);
  },
};

/** `observal mcp`. */
