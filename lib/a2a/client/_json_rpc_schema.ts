import { z } from "zod";

/** A JSON-RPC 2.0 request as sent to an agent. */
export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.string(),
  method: z.string(),
  params: z.record(z.string(), z.unknown()),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

/** The error member of a JSON-RPC response; a missing message is tolerated. */
export const JsonRpcErrorObjectSchema = z.looseObject({
  code: z.number().int(),
  message: z.string().optional(),
  data: z.unknown().optional(),
});
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>;

/**
 * A JSON-RPC 2.0 response: exactly one of `result` or `error`, with the request's id (or
 * null when the server could not read it).
 */
export const JsonRpcResponseSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  result: z.unknown().optional(),
  error: JsonRpcErrorObjectSchema.optional(),
}).refine((value) => Object.hasOwn(value, "result") !== Object.hasOwn(value, "error"));
export type JsonRpcResponse = z.infer<typeof JsonRpcResponseSchema>;
