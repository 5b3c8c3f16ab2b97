/**
 * Telling a harness's own bookkeeping in a config file apart from a real change: OpenCode
 * adds a top-level `"$schema"` key to its `opencode.json` when it starts. Private to
 * lib/workspace.
 * @module
 */
import { isDeepStrictEqual } from "node:util";

/** The largest file read to compare; anything larger counts as changed. */
export const MAX_COMPARED_BYTES = 1024 * 1024;

/**
 * True when `before` and `after` are both JSON objects that differ only in their top-level
 * `$schema` key (added, changed or removed). Formatting and key order do not count.
 */
export function onlySchemaChanged(before: Uint8Array, after: Uint8Array): boolean {
  if (before.byteLength > MAX_COMPARED_BYTES || after.byteLength > MAX_COMPARED_BYTES) {
    return false;
  }
  const a = parseObject(before);
  const b = parseObject(after);
  if (a === undefined || b === undefined) return false;
  delete a.$schema;
  delete b.$schema;
  return isDeepStrictEqual(a, b);
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, unknown>
      : undefined;
  } catch {
    return undefined;
  }
}
