/**
 * The `observal-agents` entry an install renders names a placeholder command: only the
 * client that writes the config knows how observal is installed on this machine. This
 * rewrites every form the entry takes in a `config_snippet` (an MCP server map, OpenCode's
 * command array, Goose's extension, Copilot CLI's profile front matter, Claude Code's setup
 * command) to the given launcher.
 * @module
 */
import { parse, stringify } from "./_yaml.ts";
import { DELEGATION_MCP_NAME } from "./agent_definition.ts";
import type { ConfigSnippet } from "./config_snippet.ts";
import type { HarnessKey } from "./registry.ts";

/** How the observal-agents server is started. */
export interface DelegationLauncher {
  /** argv prefix: the program and its arguments up to (not including) `delegate mcp`. */
  command: readonly string[];
  /**
   * Variables the server needs to reach the same registry and store as the user (never a
   * key's value: a key stays in config.json or in the user's environment).
   */
  env: Readonly<Record<string, string>>;
}

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The rewritten form of one entry, keeping the shape it came in. */
function rewriteEntry(entry: Json, argv: string[], env: Readonly<Record<string, string>>): Json {
  if (Array.isArray(entry.command)) {
    // OpenCode: the whole command line in one array, variables under `environment`.
    const environment = { ...(isRecord(entry.environment) ? entry.environment : {}), ...env };
    return { ...entry, command: argv, ...(Object.keys(environment).length ? { environment } : {}) };
  }
  if (typeof entry.cmd === "string") {
    // Goose: cmd, args and envs.
    const envs = { ...(isRecord(entry.envs) ? entry.envs : {}), ...env };
    return { ...entry, cmd: argv[0], args: argv.slice(1), envs };
  }
  if (typeof entry.command === "string") {
    const out: Json = { ...entry, command: argv[0], args: argv.slice(1) };
    // Profile front matter (Copilot CLI) carries no env; elsewhere the entry does.
    if ("env" in entry || Object.keys(env).length) {
      out.env = { ...(isRecord(entry.env) ? entry.env : {}), ...env };
    }
    return out;
  }
  return entry;
}

/** Walks a parsed config, rewriting every `observal-agents` entry it finds. */
function rewriteTree(
  node: unknown,
  argv: string[],
  env: Readonly<Record<string, string>>,
): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteTree(n, argv, env));
  if (!isRecord(node)) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === DELEGATION_MCP_NAME && isRecord(v)
      ? rewriteEntry(v, argv, env)
      : rewriteTree(v, argv, env);
  }
  return out;
}

/** Markdown with YAML front matter whose `mcp-servers` may name observal-agents. */
function rewriteFrontMatter(
  text: string,
  argv: string[],
  env: Readonly<Record<string, string>>,
): string {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match || !match[1].includes(DELEGATION_MCP_NAME)) return text;
  const fields = parse(match[1], { logLevel: "error" });
  if (!isRecord(fields)) return text;
  const header = stringify(rewriteTree(fields, argv, env), { lineWidth: 0 });
  return `---\n${header}---\n${text.slice(match[0].length)}`;
}

/** Claude Code's `claude mcp add <name> ... -- <command> <args...>` for observal-agents. */
function rewriteSetupCommand(
  argv: readonly string[],
  server: string[],
  env: Readonly<Record<string, string>>,
): string[] {
  if (argv[3] !== DELEGATION_MCP_NAME) return [...argv];
  const end = argv.indexOf("--");
  if (end < 0) return [...argv];
  const vars = Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  return [...argv.slice(0, end), ...vars, "--", ...server];
}

/**
 * Points the snippet's `observal-agents` entries at `launcher`, for `harness`.
 *
 * @param snippet a rendered `config_snippet`
 * @param harness the harness it was rendered for (its key goes after `--harness`)
 * @param launcher the argv prefix and env that start observal here
 * @returns a new snippet; the input is not changed
 *
 * @example
 * ```ts ignore
 * const snippet = withDelegationLauncher(install.config_snippet, "codex", {
 *   command: ["/usr/local/bin/observal"],
 *   env: { OBSERVAL_HOME: "/home/u/.observal" },
 * });
 * ```
 */
export function withDelegationLauncher(
  snippet: ConfigSnippet,
  harness: HarnessKey,
  launcher: DelegationLauncher,
): ConfigSnippet {
  const argv = [...launcher.command, "delegate", "mcp", "--harness", harness];
  const out = rewriteTree(snippet, argv, launcher.env) as ConfigSnippet;
  const profile = out.agent_profile;
  if (profile && typeof profile.content === "string") {
    out.agent_profile = { ...profile, content: rewriteFrontMatter(profile.content, argv, {}) };
  }
  if (out.mcp_setup_commands) {
    out.mcp_setup_commands = out.mcp_setup_commands.map((c) =>
      rewriteSetupCommand(c, argv, launcher.env)
    );
  }
  return out;
}
