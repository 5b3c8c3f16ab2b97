/**
 * Reading the JSON events harness CLIs print one per line, among log lines.
 * @module
 */

/** A JSON object. */
export type Json = Record<string, unknown>;

/** Whether `v` is a JSON object (not an array, not null). */
export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The JSON objects among `text`'s lines; other lines (logs) are skipped. */
export function jsonLines(text: string): Json[] {
  const out: Json[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      const v = JSON.parse(t);
      if (isObject(v)) out.push(v);
    } catch { /* a log line */ }
  }
  return out;
}
