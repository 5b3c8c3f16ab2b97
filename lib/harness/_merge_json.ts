/**
 * JSON config files (`.cursor/mcp.json`, `.vscode/mcp.json`, `opencode.json`, ...): written
 * with two-space indentation, merged by the root-section rule.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { type Doc, isPlainObject, mergeData, mergeRefused } from "./_merge_common.ts";

/** JSON text for a new file: two-space indent and a final newline. */
export function jsonText(content: Doc): string {
  return `${JSON.stringify(content, null, 2)}\n`;
}

/**
 * Merges `incoming` into the JSON text of an existing file.
 *
 * @returns the new text, or `existing` itself when the data would not change
 * @throws {ObservalError} FAILED_PRECONDITION when the file is not a JSON object or its
 *   root section is not an object
 */
export function mergeJson(existing: string, incoming: Doc, file: string): string {
  let data: unknown;
  if (existing.trim() === "") data = {};
  else {
    try {
      data = JSON.parse(existing);
    } catch (err) {
      throw mergeRefused(file, `it is not valid JSON (${(err as Error).message})`);
    }
  }
  if (!isPlainObject(data)) throw mergeRefused(file, "it does not hold a JSON object");
  const merged = mergeData(data, incoming, file);
  return isDeepStrictEqual(merged, data) ? existing : jsonText(merged);
}
