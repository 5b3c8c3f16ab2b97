import type { Part } from "../../task.ts";

/**
 * A part of either version as a v1.0 part: `kind` dropped, v0.3 `file` parts flattened
 * to `url` (from `file.uri`) or `raw` (from `file.bytes`), `file.mimeType` → `mediaType`,
 * `file.name` → `filename`. Only the fields the v1.0 part defines are kept; a value that
 * is not an object yields `undefined`.
 */
export function toCorePart(value: unknown): Part | undefined {
  if (!isRecord(value)) return undefined;
  const part: Part = {};
  if (typeof value.text === "string") part.text = value.text;
  if (value.data !== undefined) part.data = value.data;
  if (typeof value.url === "string") part.url = value.url;
  if (typeof value.raw === "string") part.raw = value.raw;
  copyString(value, "filename", part, "filename");
  copyString(value, "mediaType", part, "mediaType");
  if (isRecord(value.file)) {
    const file = value.file;
    if (typeof file.uri === "string") part.url ??= file.uri;
    else if (typeof file.bytes === "string") part.raw ??= file.bytes;
    copyString(file, "mimeType", part, "mediaType");
    copyString(file, "name", part, "filename");
  }
  if (isRecord(value.metadata)) part.metadata = value.metadata;
  return part;
}

function copyString(
  from: Record<string, unknown>,
  key: string,
  to: Part,
  as: "filename" | "mediaType",
): void {
  const value = from[key];
  if (typeof value === "string" && to[as] === undefined) to[as] = value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
