/**
 * Canonical JSON and the card digest a reviewer approves.
 * @module
 */
import { createHash } from "node:crypto";

/**
 * Serialises a JSON value canonically: object keys sorted by UTF-16 code units at every
 * level, no whitespace, strings and numbers as `JSON.stringify` writes them (non-ASCII
 * kept raw). For the values JSON parsing yields this is RFC 8785 (JCS).
 *
 * `undefined` object members are skipped and `undefined` array items become `null`, as
 * in `JSON.stringify`.
 *
 * @param value A JSON-compatible value.
 * @returns The canonical text.
 * @throws {TypeError} For numbers that JSON cannot carry (NaN, Infinity) and for
 * values such as functions, symbols and bigints.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true, "é"] }); // '{"a":[true,"é"],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
    case "string":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`Cannot canonicalise the number ${value}`);
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) {
        const items = value.map((item) => item === undefined ? "null" : canonicalJson(item));
        return `[${items.join(",")}]`;
      }
      const record = value as Record<string, unknown>;
      const members = Object.keys(record).sort()
        .filter((key) => record[key] !== undefined)
        .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
      return `{${members.join(",")}}`;
    }
    default:
      throw new TypeError(`Cannot canonicalise a value of type ${typeof value}`);
  }
}

/**
 * The digest of a raw Agent Card: `"sha256:"` + hex SHA-256 of its canonical JSON
 * (UTF-8). Key order and whitespace do not change it; any value does.
 *
 * @param card The card exactly as served (all fields, signatures included).
 * @returns For example `"sha256:9f86d0…"`.
 */
export function cardDigest(card: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(card), "utf8").digest("hex")}`;
}
