/**
 * `observal agent pull`: installs an approved registry agent into a harness's own config
 * files, registers its MCP servers where the harness wants a command for that, and records
 * the pull in the lockfile.
 * @module
 */
import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import process from "node:process";
import {
  type Context,
  isoSeconds,
  ObservalError,
  selfLauncher,
  serverEnv,
  serverTarget,
  updateConfig,
  VERSION,
} from "../../core/mod.ts";
import {
  AGENT_NAME_PATTERN,
  getHarness,
  HARNESS_KEYS,
  type HarnessFacts,
  type Scope,
  withDelegationLauncher,
  writeSnippet,
  type WriteSnippetResult,
} from "../../harness/mod.ts";
import type { AgentDetail, InstallResponse, RegistryClient } from "../../registry/mod.ts";
import { choice, type Command, type Invocation, str } from "../command.ts";
import { printJson, say } from "../output.ts";
import { withClient } from "../registry/_client.ts";
import { harnessFlag } from "./harness_flag.ts";
import {
  type Lockfile,
  readLockfile,
  registryKey,
  takenLocalNames,
  upsertLockedAgent,
  writeLockfile,
} from "./_lockfile.ts";
import { commandLine, shownPath } from "./print.ts";

const SCOPES: readonly Scope[] = ["project", "user"];

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Flags after validation. */
interface PullOptions {
  ref: string;
  facts: HarnessFacts;
  scope: Scope;
  targetDir: string;
  home?: string;
  version?: string;
  dryRun: boolean;
}

/** Validates the flags; nothing is contacted or written yet. */
function pullOptions(inv: Invocation, ctx: Context): PullOptions {
  const harnessName = harnessFlag(inv);
  if (!harnessName) {
    throw new ObservalError("USAGE", "Missing --harness", {
      remediation: `Pass --harness with one of: ${HARNESS_KEYS.join(", ")}`,
    });
  }
  const facts = getHarness(harnessName);
  const scopeFlag = choice(inv, "scope", SCOPES);
  let scope: Scope = facts.default_scope;
  if (scopeFlag !== undefined) {
    if (facts.scope_labels === null || !facts.scopes.includes(scopeFlag)) {
      throw new ObservalError(
        "USAGE",
        `${facts.display_name} has no install scope to choose; it installs at ${
          facts.scopes.join(" and ")
        } scope`,
        { remediation: "Drop --scope" },
      );
    }
    scope = scopeFlag;
  }
  const targetDir = resolve(ctx.cwd, str(inv, "dir") ?? ".");
  let isDir = false;
  try {
    isDir = statSync(targetDir).isDirectory();
  } catch { /* reported below */ }
  if (!isDir) {
    throw new ObservalError("INVALID_ARGUMENT", `${targetDir} is not an existing directory`, {
      remediation: "Create it first, or pass --dir with the project directory to install into",
      resource: targetDir,
    });
  }
  // Real path: the lockfile keys project pulls by directory, however it was spelled.
  const realTarget = realpathSync(targetDir);
  const version = str(inv, "version");
  if (version !== undefined && !SEMVER.test(version)) {
    throw new ObservalError("USAGE", `--version must look like 1.2.3, not "${version}"`);
  }
  const home = ctx.env.HOME?.trim() || undefined;
  if (scope === "user" && !home) {
    throw new ObservalError("INVALID_ARGUMENT", "HOME is not set, so there is no user scope", {
      remediation: "Set HOME, or pass --scope project",
    });
  }
  return {
    ref: inv.args.agent,
    facts,
    scope,
    targetDir: realTarget,
    home,
    version,
    dryRun: inv.flags["dry-run"] === true,
  };
}

/** A name no other agent in this harness and place uses: the slug, else namespaced. */
function localName(detail: AgentDetail, taken: Set<string>, registry: string): string {
  const clean = (s: string) =>
    s.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+/, "").slice(0, 64);
  const candidates = [
    detail.name,
    clean(`${detail.namespace ?? "agent"}-${detail.name}`),
    clean(`${registry.replace(/^[a-z]+:\/\//, "")}-${detail.namespace ?? "agent"}-${detail.name}`),
  ];
  return candidates.find((c) => AGENT_NAME_PATTERN.test(c) && !taken.has(c)) ?? candidates[1];
}

async function fetchInstall(
  client: RegistryClient,
  o: PullOptions,
  lock: Lockfile,
  registry: string,
): Promise<{ detail: AgentDetail; install: InstallResponse; local: string }> {
  // The client parses both answers: one this version cannot read is a NETWORK error.
  const detail = await client.agent(o.ref);
  const shown = detail.qualified_name ?? detail.name;
  if (detail.latest_approved_version === null) {
    throw new ObservalError("FAILED_PRECONDITION", `${shown} has no approved version yet`, {
      remediation: `A reviewer approves it first: observal registry agent review ${
        detail.identifier ?? detail.id
      } --approve${detail.digest ? ` --digest ${detail.digest}` : ""}`,
      resource: o.ref,
    });
  }
  const taken = takenLocalNames(lock, o.facts.key, detail.id, o.scope, o.targetDir);
  const local = localName(detail, taken, registry);
  const install = await client.installAgent(detail.id, {
    harness: o.facts.key,
    options: { scope: o.scope, local_name: local },
    platform: process.platform,
    ...(o.version ? { version: o.version } : {}),
    supported_features: [],
  });
  return { detail, install, local };
}

function failedSetups(result: WriteSnippetResult) {
  return result.setup_commands.filter((c) => c.status === "failed");
}

function printHuman(
  ctx: Context,
  o: PullOptions,
  out: {
    name: string;
    version: string;
    local: string;
    result: WriteSnippetResult;
    warnings: string[];
  },
  home: string | undefined,
): void {
  const where = `${o.facts.display_name} (${o.scope} scope) in ${o.targetDir}`;
  say(
    ctx,
    o.dryRun
      ? `Dry run: pulling ${out.name} ${out.version} into ${where} would do this (nothing was written):`
      : `Pulled ${out.name} ${out.version} into ${where}:`,
  );
  const width = Math.max(...out.result.files.map((f) => f.status.length), 9);
  for (const f of out.result.files) say(ctx, `  ${f.status.padEnd(width)}  ${shownPath(f, home)}`);
  if (out.result.setup_commands.length) {
    say(ctx, "Setup commands:");
    for (const c of out.result.setup_commands) {
      const status = c.status === "would_run" ? "would run" : c.status;
      say(
        ctx,
        `  ${status.padEnd(width)}  ${commandLine(c.command)}${c.error ? ` (${c.error})` : ""}`,
      );
    }
  }
  if (out.warnings.length) {
    say(ctx, "Warnings:");
    for (const w of out.warnings) say(ctx, `  ! ${w}`);
  }
  if (o.dryRun) say(ctx, "Run the same command without --dry-run to install.");
  else if (failedSetups(out.result).length === 0) {
    say(
      ctx,
      `Next: start ${o.facts.display_name} in ${o.targetDir} and choose the agent "${out.local}".`,
    );
  }
}

/** `observal agent pull`. */
export const pullCommand: Command = {
  name: "pull",
  summary: "Install an approved registry agent into a harness's config files",
  args: ["agent"],
  flags: {
    harness: {
      type: "string",
      short: "i",
      value: "HARNESS",
      choices: HARNESS_KEYS,
      description: `Harness to install for (${HARNESS_KEYS.join(", ")})`,
    },
    scope: {
      type: "string",
      value: "project|user",
      description: "Install scope (default: the harness's own default)",
    },
    dir: {
      type: "string",
      short: "d",
      value: "DIR",
      description: "Project directory to install into (default: the current directory)",
    },
    version: {
      type: "string",
      short: "V",
      value: "X.Y.Z",
      description: "Approved version to install (default: the latest)",
    },
    "dry-run": {
      type: "boolean",
      short: "n",
      description: "Show what would be written and run, write nothing",
    },
    launcher: {
      type: "string",
      value: "self|npx",
      description: "How the observal-agents server starts: this observal (default), or npx",
      default: "self",
    },
  },
  details: `AGENT is a registry reference: namespace/name, a UUID or an identifier (urn:air:...).
MCP config files are merged: your other servers and settings stay. Claude Code's servers are
registered by running \`claude mcp add\` in DIR. The pull is recorded in
$OBSERVAL_HOME/lockfile.json.

Examples:
  observal agent pull acme/code-reviewer --harness codex
  observal agent pull acme/code-reviewer --harness claude-code --scope user --dry-run`,
  async run(inv, ctx) {
    const o = pullOptions(inv, ctx);
    const target = serverTarget(ctx);
    const registry = registryKey(target);
    // Read the lockfile before writing anything, so a damaged one stops the pull early
    // (serverTarget has read config.json).
    const lock = readLockfile(ctx.home);

    const { detail, install, local } = await withClient(
      ctx,
      (client) => fetchInstall(client, o, lock, registry),
    );
    const launcher = str(inv, "launcher");
    if (launcher !== "self" && launcher !== "npx") {
      throw new ObservalError("USAGE", `--launcher must be self or npx, not "${launcher}"`);
    }
    // The install names a placeholder for observal-agents; only here is it known how
    // observal is installed on this machine.
    const snippet = withDelegationLauncher(install.config_snippet, o.facts.key, {
      command: selfLauncher(launcher, { version: VERSION, home: ctx.home }),
      env: serverEnv(ctx),
    });
    const result = await writeSnippet(snippet, {
      targetDir: o.targetDir,
      scope: o.scope,
      home: o.home,
      dryRun: o.dryRun,
      setupCommands: "run",
      env: ctx.env,
    });
    const warnings = [...install.warnings, ...result.warnings];
    const name = detail.qualified_name ?? detail.name;
    const failed = failedSetups(result);
    let realHome = o.home;
    try {
      if (o.home) realHome = realpathSync(o.home);
    } catch { /* shown as absolute paths */ }

    if (inv.json) {
      printJson(ctx, {
        agent: { id: detail.id, qualified_name: name, version: install.version, local_name: local },
        harness: o.facts.key,
        scope: o.scope,
        dry_run: o.dryRun,
        target_directory: o.targetDir,
        files: result.files.map((f) => ({ path: f.path, status: f.status })),
        warnings,
        setup_commands: result.setup_commands.map((c) => ({
          command: c.command,
          status: c.status,
          ...(c.return_code === undefined ? {} : { return_code: c.return_code }),
          ...(c.error ? { error: c.error } : {}),
        })),
      });
    } else {
      printHuman(ctx, o, { name, version: install.version, local, result, warnings }, realHome);
    }
    if (o.dryRun) return;
    if (failed.length) {
      throw new ObservalError(
        "UNAVAILABLE",
        `The agent's files were written, but ${failed.length} setup command(s) failed`,
        {
          remediation: [
            ...failed.map((c) => `${commandLine(c.command)}: ${c.error}`),
            "Fix that and run the pull again (the files are rewritten as needed); the pull was not recorded in the lockfile",
          ].join("\n"),
        },
      );
    }
    const now = isoSeconds(ctx.clock.now());
    const next = upsertLockedAgent(
      lock,
      {
        registry,
        serverUrl: target.kind === "remote" ? target.url : undefined,
        harness: o.facts.key,
      },
      {
        id: detail.id,
        name: detail.name,
        qualified_name: name,
        version: install.version,
        scope: o.scope,
        directory: o.targetDir,
        local_name: local,
        lock_digest: install.lock.digest,
        pulled_at: now,
      },
      now,
    );
    writeLockfile(ctx.home, next);
    if (o.facts.key === "pi") {
      const active_agent = { id: detail.id, name: local, version: install.version };
      updateConfig(ctx, (stored) => ({ ...stored, active_agent }));
    }
  },
};
