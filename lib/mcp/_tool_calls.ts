/**
 * Our own `tools/call` handler. The SDK (1.32.2) turns arguments that fail a tool's schema
 * into an `isError` result holding a multi-line zod dump, and a malformed `params` into an
 * internal error; we answer both with a JSON-RPC -32602 error whose message is one line
 * naming the argument and what it must be. Failures of the tool's own work stay `isError`
 * results, which the model reads.
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type CallToolResult, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import {
  argumentExpectations,
  describeValue,
  invalidArgumentsMessage,
  quoted,
} from "./_invalid_arguments.ts";

/** A tool as the router runs it. */
export interface ToolRoute {
  /** The arguments' schema: the one the tool is advertised with. */
  input: z.ZodObject;
  /** Runs the tool with arguments that passed `input`. */
  run(args: Record<string, unknown>): Promise<CallToolResult>;
}

/**
 * An error the SDK sends as is: it answers a failed request with the thrown error's `code`
 * and `message`. Its `McpError` would prefix the message with "MCP error <code>: ", which
 * the client's SDK then prefixes again.
 */
class JsonRpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Makes `routes` answer `tools/call` on `server`, in place of the SDK's handler. Register
 * the tools with `server.registerTool` first: `tools/list` still comes from there.
 *
 * @param server the server whose tools are in `routes`
 * @param routes each tool's input schema and work, by name
 */
export function routeToolCalls(server: McpServer, routes: ReadonlyMap<string, ToolRoute>): void {
  const expectations = new Map(
    [...routes].map(([name, route]) => [name, argumentExpectations(route.input)]),
  );
  const known = [...routes.keys()].sort().join(", ");
  // The SDK's own handler parses `params` before any code of ours runs, so it is removed and
  // calls reach the fallback handler with the request as it arrived.
  server.server.removeRequestHandler("tools/call");
  server.server.fallbackRequestHandler = async (request) => {
    if (request.method !== "tools/call") {
      throw new JsonRpcError(
        ErrorCode.MethodNotFound,
        `Method not found: ${quoted(request.method)}`,
      );
    }
    const params = request.params ?? {};
    const name = params.name;
    if (typeof name !== "string") {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Invalid tools/call: \`name\` must be the name of a tool (${known}), not ` +
          describeValue(name),
      );
    }
    const route = routes.get(name);
    if (!route) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Unknown tool ${quoted(name)}; the tools are ${known}`,
      );
    }
    const args = params.arguments ?? {};
    if (!isPlainObject(args)) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Invalid arguments for ${name}: \`arguments\` must be an object of named arguments, ` +
          `not ${describeValue(args)}`,
      );
    }
    const parsed = route.input.safeParse(args);
    if (!parsed.success) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        invalidArgumentsMessage(name, expectations.get(name)!, args, parsed.error.issues),
      );
    }
    return await route.run(parsed.data);
  };
}
