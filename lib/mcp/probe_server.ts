/**
 * Starts an MCP server the way a harness would (a command, its arguments and env) and asks
 * it to initialize and list its tools, to prove a config entry really launches.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { definedEnv, errorMessage } from "../core/mod.ts";

/** What a probe found. */
export type ProbeResult =
  | { ok: true; server: string; tools: string[] }
  | { ok: false; error: string; stderr: string };

/** Options for {@linkcode probeMcpServer}. */
export interface ProbeOptions {
  command: string;
  args: readonly string[];
  /** The complete environment the server gets. */
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** @default 20_000 */
  timeoutMs?: number;
}

/**
 * Launches the server, runs initialize and tools/list, and stops it.
 *
 * @returns the server's name and tool names, or why it did not answer (with the tail of
 *   its stderr)
 */
export async function probeMcpServer(options: ProbeOptions): Promise<ProbeResult> {
  const env = definedEnv(options.env);
  const transport = new StdioClientTransport({
    command: options.command,
    args: [...options.args],
    env,
    cwd: options.cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr = (stderr + new TextDecoder().decode(chunk)).slice(-4000);
  });
  const client = new Client({ name: "observal-doctor", version: "0" });
  const timeout = options.timeoutMs ?? 20_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer = (async () => {
      await client.connect(transport);
      const { tools } = await client.listTools();
      return { server: client.getServerVersion()?.name ?? "", tools: tools.map((t) => t.name) };
    })();
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeout / 1000} s`)), timeout);
    });
    const found = await Promise.race([answer, limit]);
    return { ok: true, ...found };
  } catch (err) {
    return { ok: false, error: errorMessage(err), stderr };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}
