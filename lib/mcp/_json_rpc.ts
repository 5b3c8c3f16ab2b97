/**
 * JSON-RPC 2.0 as MCP frames it: the message shapes (checked as strictly as the MCP SDK
 * checks them), the error codes and an error that carries one. The server uses the SDK's
 * types but none of its code: building the SDK's schemas for the whole protocol, and the
 * JSON Schema validator its server loads, took longer than the rest of the server's start.
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  RequestId,
};

/** The JSON-RPC error codes the server answers with. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** A failure answered with its own code and message, as they are. */
export class JsonRpcError extends Error {
  readonly code: number;

  /**
   * @param code the JSON-RPC error code
   * @param message one line that says what was wrong
   */
  constructor(code: number, message: string) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
  }
}

/** The message shapes, built when the first line is read. */
const messageSchema = (() => {
  let built: z.ZodType<JSONRPCMessage> | undefined;
  return () => (built ??= buildMessageSchema());
})();

function buildMessageSchema(): z.ZodType<JSONRPCMessage> {
  const id = z.union([z.string(), z.number().int()]);
  const meta = z.looseObject({
    progressToken: z.union([z.string(), z.number().int()]).optional(),
    "io.modelcontextprotocol/related-task": z.object({ taskId: z.string() }).optional(),
  });
  const params = z.looseObject({ _meta: meta.optional() }).optional();
  const version = z.literal("2.0");
  return z.union([
    z.strictObject({ jsonrpc: version, id, method: z.string(), params }),
    z.strictObject({ jsonrpc: version, method: z.string(), params }),
    z.strictObject({ jsonrpc: version, id, result: z.looseObject({ _meta: meta.optional() }) }),
    z.strictObject({
      jsonrpc: version,
      id: id.optional(),
      error: z.object({
        code: z.number().int(),
        message: z.string(),
        data: z.unknown().optional(),
      }),
    }),
  ]) as unknown as z.ZodType<JSONRPCMessage>;
}

/**
 * The value as a JSON-RPC message (a request, a notification or a response), or undefined
 * when it is none of them.
 */
export function asJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  const parsed = messageSchema().safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** Whether a message is a request (it has a method and an id). */
export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return "method" in message && "id" in message;
}

/** Whether a message is a notification (a method, no id). */
export function isNotification(message: JSONRPCMessage): message is JSONRPCNotification {
  return "method" in message && !("id" in message);
}
