/**
 * Installing a registry Agent into a task's copy: its definition fetched from the registry
 * for the chosen harness, checked against the digest the task pinned, and written into the
 * copy with its own observal-agents server pointing at this observal.
 * @module
 */
import process from "node:process";
import { z } from "zod";
import type { Task } from "../a2a/mod.ts";
import { type Context, ObservalError, selfLauncher, serverEnv, VERSION } from "../core/mod.ts";
import {
  type ConfigSnippet,
  getHarness,
  type HarnessKey,
  type StdioMcpEntry,
  StdioMcpEntrySchema,
  withDelegationLauncher,
  writeSnippet,
} from "../harness/mod.ts";
import type { RegistryClient } from "../registry/mod.ts";
import type { Workspace } from "../workspace/mod.ts";
import { AGENTS_SOCKET_ENV } from "../workspace/roots/mod.ts";

/** What an install needs. */
export interface InstallDeps {
  ctx: Context;
  registry: () => RegistryClient;
}

/** The agent as installed into the copy. */
export interface InstalledAgent {
  /** Its local name (its profile file's name). */
  name: string;
  displayName: string;
  instructions: string;
  version: string;
  /** Its MCP servers (and observal-agents), as the install rendered them. */
  servers: Record<string, StdioMcpEntry>;
  /** Absolute paths the install wrote. */
  written: string[];
}

/** A name safe for profile files: lower-case letters, digits, "-" and "_". */
function localName(raw: string): string {
  const name = raw.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(
    /^-+|-+$/g,
    "",
  ).slice(0, 64).replace(/-+$/, "");
  return /^[a-z0-9]/.test(name) ? name : "agent";
}

/** The MCP servers an install declares, whichever shape the harness's snippet has. */
function snippetServers(snippet: ConfigSnippet, key: HarnessKey): Record<string, StdioMcpEntry> {
  const mcp = snippet.mcp_config;
  if (mcp && "path" in mcp && typeof mcp.path === "string") {
    const content = typeof mcp.content === "object"
      ? mcp.content[getHarness(key).mcp_servers_key]
      : undefined;
    return stdioEntries(content);
  }
  if (mcp) return stdioEntries(mcp);
  const profile = snippet.agent_profile?.content;
  return typeof profile === "object" ? stdioEntries(profile.mcpServers) : {};
}

const StdioServersSchema = z.record(z.string(), StdioMcpEntrySchema);

/** The name → stdio entry map inside a config file's content, parsed; {} when there is none. */
function stdioEntries(value: unknown): Record<string, StdioMcpEntry> {
  const parsed = StdioServersSchema.safeParse(value);
  return parsed.success ? parsed.data : {};
}

/** The agent's configuration as fetched for the copy, not yet written. */
export interface FetchedAgent extends Omit<InstalledAgent, "written"> {
  snippet: ConfigSnippet;
}

/**
 * Fetches the agent's configuration for `harness` exactly as approved (the digest the task
 * pinned), with its observal-agents server pointing at this observal. It needs no copy:
 * a run fetches it while the copy is made.
 *
 * @param agentsSocket the run's broker socket, which the agent's observal-agents entry names
 * @throws {ObservalError} FAILED_PRECONDITION when the definition changed since approval
 */
export async function fetchAgent(
  deps: InstallDeps,
  task: Task,
  harness: HarnessKey,
  agentsSocket?: string,
): Promise<FetchedAgent> {
  const meta = task.metadata.observal;
  const registry = deps.registry();
  const agentId = meta.agentId!;
  const detail = await registry.agent(agentId);
  const name = localName(detail.slug ?? detail.name);
  // The client parses the answer: an install this version cannot read is a NETWORK error.
  const install = await registry.installAgent(agentId, {
    harness,
    options: { scope: "project", local_name: name },
    platform: process.platform,
    version: meta.version,
    supported_features: [],
  });
  // The approval pinned a digest; install exactly that definition or nothing.
  if (meta.digest && install.lock.digest !== meta.digest) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      "The agent's definition changed since it was approved for this task",
      { remediation: "Ask a reviewer to approve the current version, then delegate again" },
    );
  }
  // The agent's own observal-agents server is this observal, for nested delegation; it
  // relays to the run's broker, named here too for a harness that filters the variables.
  const env = serverEnv(deps.ctx);
  if (agentsSocket) env[AGENTS_SOCKET_ENV] = agentsSocket;
  const snippet = withDelegationLauncher(install.config_snippet, harness, {
    command: selfLauncher("self", { version: VERSION, home: deps.ctx.home, socket: agentsSocket }),
    env,
  });
  return {
    name,
    displayName: detail.name,
    instructions: detail.prompt ?? "",
    version: install.version,
    servers: snippetServers(snippet, harness),
    snippet,
  };
}

/**
 * Writes a fetched agent into the workspace, with the same writer as `observal agent pull`.
 * @returns the agent as installed, with the absolute paths the install wrote
 */
export async function writeAgent(
  deps: InstallDeps,
  fetched: FetchedAgent,
  ws: Workspace,
): Promise<InstalledAgent> {
  const { snippet, ...agent } = fetched;
  const written = await writeSnippet(snippet, {
    targetDir: ws.path,
    scope: "project",
    home: deps.ctx.env.HOME ?? ws.root,
    setupCommands: "skip",
    // The copy is removed after the run.
    flush: false,
  });
  // Absolute paths: the workspace decides what lies in its tree.
  return { ...agent, written: written.files.map((f) => f.path) };
}
