/**
 * A pending reply as stored in the `pending_reply` column: a JSON array of A2A parts. Rows
 * written before replies could carry data held plain text; they read back as one text part.
 * @module
 */
import { z } from "zod";
import { type Part, PartSchema } from "../a2a/tasks/mod.ts";
import { ObservalError } from "../core/mod.ts";

const ReplyPartsSchema = z.array(PartSchema).min(1);

/** Checks `parts` and returns the column value; throws INVALID_ARGUMENT for an empty reply. */
export function encodeReply(parts: readonly Part[]): string {
  const parsed = ReplyPartsSchema.safeParse(parts);
  if (!parsed.success) {
    throw new ObservalError("INVALID_ARGUMENT", "A reply needs at least one A2A part", {
      remediation: 'Pass the answer as parts, for example [{ "text": "yes" }]',
    });
  }
  return JSON.stringify(parsed.data);
}

/** The parts held in the column; anything that is not a JSON array of parts is plain text. */
export function decodeReply(raw: string): Part[] {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return [{ text: raw }];
  }
  const parsed = ReplyPartsSchema.safeParse(value);
  return parsed.success ? parsed.data : [{ text: raw }];
}
