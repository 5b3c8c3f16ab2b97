/**
 * A small MCP server for tools: `initialize`, `ping`, `tools/list` and `tools/call` over any
 * message transport, with cancellation. It speaks what the MCP SDK's `McpServer` speaks for
 * a server that only has tools (the same protocol versions, capabilities and tool listing),
 * without loading the SDK: a harness starts this server at the start of every session, and
 * the SDK's server alone took longer to load than the rest of `observal delegate mcp`.
 * Real SDK clients and the MCP Inspector drive it in the tests.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  CallToolResult,
  InitializeResult,
  Tool as ListedTool,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import {
  ErrorCode,
  isNotification,
  isRequest,
  JsonRpcError,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type RequestId,
} from "./_json_rpc.ts";
import { callTool } from "./_tool_calls.ts";
import { quoted } from "./_invalid_arguments.ts";

/**
 * The protocol versions this server speaks, newest first: those of the MCP SDK it is tested
 * against (1.32). A client asking for another gets the newest, and decides whether to go on.
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** Where messages come from and go to: {@linkcode StdioTransport}, or a test's pair. */
export interface MessageTransport {
  start(): Promise<void>;
  send(message: JSONRPCMessage): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
}

/** One tool: how it is listed, the arguments it takes and the work it does. */
export interface Tool {
  name: string;
  title: string;
  description: string;
  /** The arguments: validated before `run`, and listed as JSON Schema. */
  input: z.ZodObject;
  annotations?: ToolAnnotations;
  /**
   * Does the work with arguments that passed `input`. A failure of the work itself is a
   * result with `isError` (the model reads it); a throw becomes a JSON-RPC error.
   */
  run(args: Record<string, unknown>, extra: { signal: AbortSignal }): Promise<CallToolResult>;
}

/** Options for {@linkcode ToolServer}. */
export interface ToolServerOptions {
  /** Told to the client at `initialize`: when and how to use the tools. */
  instructions?: string;
  tools: readonly Tool[];
  /**
   * Called once, when the first `tools/list` answer has been sent: the client's start-up
   * handshake is over, and the server may get ready for its first call.
   */
  onListed?: () => void;
}

/**
 * An MCP server whose capabilities are its tools. Connect it to a transport; it answers
 * requests until the transport closes or {@linkcode ToolServer.close} is called. Requests
 * other than `initialize`, `ping`, `tools/list` and `tools/call` get -32601; a request the
 * client cancels (`notifications/cancelled`) gets no answer, as MCP asks.
 *
 * @example
 * ```ts ignore
 * const server = new ToolServer({ name: "demo", version: "1.0.0" }, { tools: [echoTool] });
 * await server.connect(new StdioTransport());
 * ```
 */
export class ToolServer {
  /** Called once, when the connection closes. */
  onclose?: () => void;
  /** Called with transport failures and messages that could not be answered. */
  onerror?: (error: Error) => void;

  readonly #info: { name: string; version: string };
  readonly #instructions?: string;
  readonly #tools: ReadonlyMap<string, Tool>;
  /** The listing, made at the first `tools/list`. */
  #listed?: ListedTool[];
  /** Cleared once called. */
  #onListed?: () => void;
  /** Requests being answered, so a cancel can stop one. */
  readonly #running = new Map<RequestId, AbortController>();
  /** Every answer under way, its write included, so closing can wait for them. */
  readonly #pending = new Set<Promise<void>>();
  #transport?: MessageTransport;

  /**
   * @param info the server's name and version, as `initialize` reports them
   * @param options the tools and the instructions
   */
  constructor(info: { name: string; version: string }, options: ToolServerOptions) {
    this.#info = info;
    this.#instructions = options.instructions;
    this.#tools = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.#onListed = options.onListed;
  }

  /** Starts answering messages from `transport`. */
  async connect(transport: MessageTransport): Promise<void> {
    if (this.#transport) throw new Error("ToolServer is already connected");
    this.#transport = transport;
    transport.onmessage = (message) => this.#onMessage(message);
    transport.onerror = (error) => this.onerror?.(error);
    transport.onclose = () => {
      for (const controller of this.#running.values()) controller.abort();
      this.#running.clear();
      this.#transport = undefined;
      this.onclose?.();
    };
    await transport.start();
  }

  /**
   * Closes the transport (which calls `onclose`). Requests under way are aborted, then
   * waited for, at most `graceMs`: a tool stops at its next safe point (a delegation that
   * was being started still gets its worker), so the process can end as soon as this
   * returns.
   *
   * @param graceMs how long to wait for requests under way to end. @default no limit
   * @returns how many requests were still under way when the wait ended (0: all ended)
   */
  async close(graceMs = Infinity): Promise<number> {
    await this.#transport?.close();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const graceOver = graceMs === Infinity
      ? []
      : [new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))];
    await Promise.race([Promise.allSettled(this.#pending), ...graceOver]);
    clearTimeout(timer);
    // Each answer leaves the set as it settles.
    return this.#pending.size;
  }

  #onMessage(message: JSONRPCMessage): void {
    if (isRequest(message)) this.#onRequest(message);
    else if (isNotification(message)) this.#onNotification(message);
    // Responses are ignored: this server sends no requests.
  }

  #onNotification(notification: JSONRPCNotification): void {
    if (notification.method !== "notifications/cancelled") return;
    const id = (notification.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof id === "string" || typeof id === "number") this.#running.get(id)?.abort();
  }

  #onRequest(request: JSONRPCRequest): void {
    const transport = this.#transport;
    const controller = new AbortController();
    this.#running.set(request.id, controller);
    const answer = async (message: JSONRPCMessage) => {
      if (controller.signal.aborted || this.#transport !== transport) return;
      await transport?.send(message).catch((err) => this.onerror?.(toError(err)));
    };
    const pending = this.#answer(request, controller.signal).then(
      async (result) => {
        await answer({ jsonrpc: "2.0", id: request.id, result });
        if (request.method === "tools/list") this.#listedOnce();
      },
      (err) => {
        const e = toError(err);
        const code = err instanceof JsonRpcError ? err.code : ErrorCode.InternalError;
        return answer({ jsonrpc: "2.0", id: request.id, error: { code, message: e.message } });
      },
    ).finally(() => {
      if (this.#running.get(request.id) === controller) this.#running.delete(request.id);
      this.#pending.delete(pending);
    });
    this.#pending.add(pending);
  }

  #listedOnce(): void {
    const listed = this.#onListed;
    this.#onListed = undefined;
    try {
      listed?.();
    } catch (err) {
      // Getting ready is a courtesy: its failure is reported, never the session's end.
      this.onerror?.(toError(err));
    }
  }

  async #answer(request: JSONRPCRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    switch (request.method) {
      case "initialize":
        return this.#initialize(request.params);
      case "ping":
        return {};
      case "tools/list":
        return { tools: this.#listed ??= [...this.#tools.values()].map(listing) };
      case "tools/call":
        return await callTool(this.#tools, request.params, signal);
      default:
        throw new JsonRpcError(
          ErrorCode.MethodNotFound,
          `Method not found: ${quoted(request.method)}`,
        );
    }
  }

  #initialize(params: unknown): InitializeResult {
    const requested = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof requested !== "string") {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        "Invalid initialize: `protocolVersion` must be a string",
      );
    }
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : SUPPORTED_PROTOCOL_VERSIONS[0],
      capabilities: { tools: { listChanged: true } },
      serverInfo: this.#info,
      ...(this.#instructions ? { instructions: this.#instructions } : {}),
    };
  }
}

/** A tool as `tools/list` shows it: its input as JSON Schema (draft 7), as the SDK lists it. */
function listing(tool: Tool): ListedTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, {
      target: "draft-7",
      io: "input",
    }) as ListedTool["inputSchema"],
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    execution: { taskSupport: "forbidden" },
  };
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
