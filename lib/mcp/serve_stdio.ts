/**
 * Serving an MCP server over stdio until the client goes away.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import process from "node:process";
import type { Readable, Writable } from "node:stream";

/** Options for {@linkcode serveStdio}. */
export interface ServeStdioOptions {
  /** Where requests arrive. @default process.stdin */
  stdin?: Readable;
  /** Where protocol messages go, and nothing else. @default process.stdout */
  stdout?: Writable;
  /** Stops serving when aborted (a signal to the process, say). */
  signal?: AbortSignal;
}

/**
 * Connects `server` to stdio and resolves once the client disconnects (stdin ends), the
 * server closes, or `signal` aborts; the server is closed by then. The SDK's transport does
 * not watch for the end of stdin itself, and a server that outlives its client would hold
 * its task store open for nothing.
 *
 * @param server an MCP server that is not connected yet
 * @param options the streams to use and a signal to stop early
 *
 * @example
 * ```ts ignore
 * await serveStdio(createAgentsServer(options));
 * ```
 */
export async function serveStdio(
  server: McpServer,
  options: ServeStdioOptions = {},
): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const { promise: done, resolve } = Promise.withResolvers<void>();
  const stop = () => resolve();
  stdin.once("end", stop);
  stdin.once("close", stop);
  options.signal?.addEventListener("abort", stop, { once: true });
  server.server.onclose = stop;
  try {
    if (options.signal?.aborted) return;
    await server.connect(transport);
    await done;
  } finally {
    stdin.off("end", stop);
    stdin.off("close", stop);
    options.signal?.removeEventListener("abort", stop);
    await server.close();
  }
}
