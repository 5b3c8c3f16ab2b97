/**
 * The card digest a reviewer approves.
 * @module
 */
import { jsonDigest } from "../core/canonical_json.ts";

export { canonicalJson } from "../core/canonical_json.ts";

/**
 * The digest of a raw Agent Card: `"sha256:"` + hex SHA-256 of its canonical JSON.
 *
 * @param card The card exactly as served (all fields, signatures included).
 * @returns For example `"sha256:9f86d0…"`.
 */
export function cardDigest(card: unknown): string {
  return jsonDigest(card);
}
