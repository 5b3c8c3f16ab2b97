/**
 * Serving an MCP server over stdio until the client goes away.
 * @module
 */
import type { Readable, Writable } from "node:stream";
import type { Writer } from "../core/mod.ts";
import { hostStream } from "../core/system/mod.ts";
import { type ByteReader, type ByteWriter, StdioTransport } from "./stdio_transport.ts";
import type { ToolServer } from "./tool_server.ts";

/** Options for {@linkcode serveStdio}. */
export interface ServeStdioOptions {
  /** Where requests arrive: a stream, a file descriptor or a reader. @default the process's stdin */
  stdin?: Readable | number | ByteReader;
  /** Where protocol messages go, and nothing else. @default the process's stdout */
  stdout?: Writable | ByteWriter;
  /** Where rejected lines and transport failures are logged. @default the process's stderr */
  stderr?: Writer;
  /** Lines longer than this many bytes are refused. @default MAX_LINE_BYTES */
  maxLineBytes?: number;
  /**
   * Stops serving when aborted (a signal to the process, say). A read of the default stdin
   * that is under way still holds the process until input arrives or stdin ends.
   */
  signal?: AbortSignal;
  /**
   * How long calls under way may take to end once serving stops (each is aborted first).
   * @default CLOSE_GRACE_MS
   */
  graceMs?: number;
}

/**
 * How long aborted calls may take to end when the client goes away. They stop at once at
 * their next await (registry calls, store waits); this only bounds one that does not, so
 * that the server exits within a second of its client.
 */
export const CLOSE_GRACE_MS = 500;

/** How serving ended. */
export interface ServeOutcome {
  /** Calls still under way when the grace period ran out; 0 when every call ended. */
  unfinished: number;
}

/**
 * Connects `server` to stdio and resolves once the client disconnects (stdin ends), the
 * server closes, or `signal` aborts; the server is closed by then, its calls under way
 * aborted and given `graceMs` to end. A server that outlived its client would hold its
 * task store open for nothing. Lines that are not JSON-RPC messages are answered with
 * errors (see {@linkcode StdioTransport}) and logged.
 *
 * @param server an MCP server that is not connected yet
 * @param options the streams to use, the line cap, a signal to stop early and the grace
 * @returns how many calls had not ended by the end of the grace period
 *
 * @example
 * ```ts ignore
 * await serveStdio(createAgentsServer(options));
 * ```
 */
export async function serveStdio(
  server: ToolServer,
  options: ServeStdioOptions = {},
): Promise<ServeOutcome> {
  if (options.signal?.aborted) return { unfinished: 0 };
  const stderr = options.stderr ?? hostStream("stderr");
  const transport = new StdioTransport({
    stdin: options.stdin,
    stdout: options.stdout,
    maxLineBytes: options.maxLineBytes,
  });
  const { promise: done, resolve } = Promise.withResolvers<void>();
  const stop = () => resolve();
  options.signal?.addEventListener("abort", stop, { once: true });
  server.onclose = stop;
  server.onerror = (err) => stderr.write(`observal-agents: ${oneLine(err.message)}\n`);
  let unfinished: number;
  try {
    await server.connect(transport);
    await done;
  } finally {
    options.signal?.removeEventListener("abort", stop);
    unfinished = await server.close(options.graceMs ?? CLOSE_GRACE_MS);
  }
  return { unfinished };
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
