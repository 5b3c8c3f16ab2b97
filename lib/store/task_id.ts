/**
 * Task ids: the only strings the store turns into row keys and folder names.
 * @module
 */
import { z } from "zod";

/**
 * A task id: a UUID in canonical lower-case form (`8-4-4-4-12` hex digits).
 *
 * Upper-case spellings are refused rather than folded, so a task has exactly one name and
 * one folder, even on file systems that ignore case.
 */
export const TaskIdSchema = z.string().regex(
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  "must be a lower-case UUID",
);

/**
 * True when `value` is a canonical task id, safe to use as a folder name.
 *
 * @param value anything
 * @returns whether `value` is a lower-case UUID
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isTaskId } from "./task_id.ts";
 *
 * assert.equal(isTaskId("0b5e6a52-8f0c-4d7a-9b1e-2f3c4d5e6f70"), true);
 * assert.equal(isTaskId("0B5E6A52-8F0C-4D7A-9B1E-2F3C4D5E6F70"), false);
 * assert.equal(isTaskId("../../etc/passwd"), false);
 * ```
 */
export function isTaskId(value: unknown): value is string {
  return TaskIdSchema.safeParse(value).success;
}
