/**
 * Canonical JSON and the sha256 digests reviewers approve (Agent Cards, agent
 * definitions): equal values always hash the same, whatever their key order.
 * @module
 */
import { nodeCrypto } from "./host.ts";

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
 * `"sha256:"` + hex SHA-256 of a value's canonical JSON (UTF-8). Key order and
 * whitespace do not change it; any value does.
 *
 * @param value A JSON-compatible value (for a card: exactly as served, signatures included).
 * @returns For example `"sha256:9f86d0…"`.
 */
export function jsonDigest(value: unknown): string {
  // node:crypto loads on the first digest, not with core: most commands take none.
  return `sha256:${
    nodeCrypto().createHash("sha256").update(canonicalJson(value), "utf8").digest("hex")
  }`;
}

/** What {@linkcode jsonDigest} returns: `sha256:` and 64 lower-case hex digits. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
