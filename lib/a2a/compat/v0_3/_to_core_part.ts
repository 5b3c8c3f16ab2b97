import type { Part } from "../../task.ts";

/** ts-proto's oneof cases for a part, as a v1.0 SDK object leaks them into JSON. */
const PROTO_CASES = new Set(["text", "raw", "url", "data"]);

/**
 * A part of either version as a v1.0 part: `kind` dropped, v0.3 `file` parts flattened
 * to `url` (from `file.uri`) or `raw` (from `file.bytes`), `file.mimeType` → `mediaType`,
 * `file.name` → `filename`; a ts-proto `content: {$case, value}` is read as its member.
 * A part that carries none of text, data, url, raw or file (an unknown kind) is kept
 * whole as the `data` of a data part, never emptied. A value that is not an object
 * yields `undefined`.
 */
export function toCorePart(value: unknown): Part | undefined {
  if (!isRecord(value)) return undefined;
  const part: Part = {};
  if (typeof value.text === "string") part.text = value.text;
  if (value.data !== undefined) part.data = value.data;
  if (typeof value.url === "string") part.url = value.url;
  if (typeof value.raw === "string") part.raw = value.raw;
  const content = value.content;
  if (
    isRecord(content) && typeof content.$case === "string" && PROTO_CASES.has(content.$case) &&
    part.text === undefined && part.data === undefined && part.url === undefined &&
    part.raw === undefined
  ) {
    const member = content.$case as "text" | "raw" | "url" | "data";
    if (member === "data") part.data = content.value;
    else if (typeof content.value === "string") part[member] = content.value;
  }
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
  const hasContent = part.text !== undefined || part.data !== undefined ||
    part.url !== undefined || part.raw !== undefined;
  // An unknown kind of part is the agent's to define: keep all of it rather than `{}`.
  return hasContent ? part : { data: value };
}

function copyString(
  from: Record<string, unknown>,
  key: string,
  to: Part,
  as: "filename" | "mediaType",
): void {
  const value = from[key];
  if (typeof value === "string" && value !== "" && to[as] === undefined) to[as] = value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
