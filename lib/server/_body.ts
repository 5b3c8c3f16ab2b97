/** Request bodies: parsed with a zod schema, every failure a 400 that names the field. */
import type { Context as HonoContext } from "hono";
import type { z } from "zod";
import { ObservalError } from "../core/mod.ts";

/** Parses a JSON body with a schema; every failure is a 400 with the field named. */
export async function parseBody<T extends z.ZodType>(
  c: HonoContext,
  schema: T,
): Promise<z.infer<T>> {
  let json: unknown;
  try {
    json = await c.req.json();
  } catch {
    throw new ObservalError("INVALID_ARGUMENT", "The request body is not valid JSON", {
      remediation: "Send a JSON object with Content-Type: application/json",
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw invalid(parsed.error);
  return parsed.data;
}

export function invalid(error: z.ZodError): ObservalError {
  const issue = error.issues[0];
  const path = issue?.path.length ? issue.path.join(".") : "body";
  const detail = issue?.code === "unrecognized_keys"
    ? `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`
    : issue?.message ?? "invalid";
  return new ObservalError("INVALID_ARGUMENT", `Invalid request: ${path}: ${detail}`);
}
