/**
 * `tools/call`: arguments that do not fit a tool's schema, and a malformed `params`, are
 * answered with a JSON-RPC -32602 error whose message is one line naming the argument and
 * what it must be (the MCP SDK answers them with a multi-line zod dump). Failures of the
 * tool's own work stay `isError` results, which the model reads.
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, JsonRpcError } from "./_json_rpc.ts";
import {
  argumentExpectations,
  describeValue,
  invalidArgumentsMessage,
  quoted,
} from "./_invalid_arguments.ts";
import type { Tool } from "./tool_server.ts";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Runs the tool a `tools/call` names with its arguments once they fit its schema.
 *
 * @param tools the server's tools, by name
 * @param params the request's `params`, as they arrived
 * @param signal aborted when the client cancels the call
 * @returns the tool's result
 * @throws {JsonRpcError} -32602 when the call names no known tool or its arguments do not fit
 */
export async function callTool(
  tools: ReadonlyMap<string, Tool>,
  params: unknown,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const known = () => [...tools.keys()].sort().join(", ");
  const request = isPlainObject(params) ? params : {};
  const name = request.name;
  if (typeof name !== "string") {
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      `Invalid tools/call: \`name\` must be the name of a tool (${known()}), not ` +
        describeValue(name),
    );
  }
  const tool = tools.get(name);
  if (!tool) {
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      `Unknown tool ${quoted(name)}; the tools are ${known()}`,
    );
  }
  const args = request.arguments ?? {};
  if (!isPlainObject(args)) {
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      `Invalid arguments for ${name}: \`arguments\` must be an object of named arguments, ` +
        `not ${describeValue(args)}`,
    );
  }
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      invalidArgumentsMessage(name, argumentExpectations(tool.input), args, parsed.error.issues),
    );
  }
  return await tool.run(parsed.data as Record<string, unknown>, { signal });
}
