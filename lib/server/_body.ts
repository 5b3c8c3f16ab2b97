/** Request bodies: parsed with a zod schema, every failure a 400 that names the field. */
import type { Context as HonoContext } from "hono";
import type { z } from "zod";
import { ObservalError } from "../core/mod.ts";

/** Most bytes of one request body. */
export const MAX_BODY_BYTES = 512 * 1024;

/**
 * The error for a body past {@linkcode MAX_BODY_BYTES}; `bytes` is its size, when known (a
 * streamed body is cut off at the limit, unread).
 */
export function tooLargeBody(bytes?: number): ObservalError {
  const size = bytes === undefined ? "is" : `is ${bytes} bytes,`;
  return new ObservalError(
    "INVALID_ARGUMENT",
    `The request body ${size} larger than the ${MAX_BODY_BYTES / 1024} KiB allowed`,
    { remediation: "Send less: no field of a registry request needs that much" },
  );
}

/** Parses a JSON body with a schema; every failure is a 400 with the field named. */
export async function parseBody<T extends z.ZodType>(
  c: HonoContext,
  schema: T,
): Promise<z.infer<T>> {
  const parsed = schema.safeParse(await readJsonBody(c));
  if (!parsed.success) throw invalid(parsed.error);
  return parsed.data;
}

/** The body as JSON, not yet checked against any schema. */
export async function readJsonBody(c: HonoContext): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw notJson();
  }
}

/** The error for a body that is not JSON. */
export function notJson(): ObservalError {
  return new ObservalError("INVALID_ARGUMENT", "The request body is not valid JSON", {
    remediation: "Send a JSON object with Content-Type: application/json",
  });
}

export function invalid(error: z.ZodError): ObservalError {
  const issue = error.issues[0];
  const path = issue?.path.length ? issue.path.join(".") : "body";
  const detail = issue?.code === "unrecognized_keys"
    ? `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`
    : issue?.message ?? "invalid";
  return new ObservalError("INVALID_ARGUMENT", `Invalid request: ${path}: ${detail}`, {
    remediation: `Correct ${path} and send the request again`,
  });
}
