/**
 * Entry rows → the JSON the registry returns: search results, list items, the manifest.
 * @module
 */
import type { EntryRow } from "./entries.ts";
import { VISIBILITY_TO_WIRE } from "./entries.ts";

export const ARD_CONTEXT = [
  "https://agenticresourcediscovery.org/context/v1",
  { obs: "https://observal.io/ns#" },
];

/** Parsed stored document of a row. */
export function entryDocument(row: EntryRow): Record<string, unknown> {
  return JSON.parse(row.doc) as Record<string, unknown>;
}

/** Delegable now: approved, not removed, and able to run (callable interface / harness). */
export function isDelegable(row: EntryRow): boolean {
  return row.lifecycle === "approved" && row.tombstoned === 0 && row.delegable === 1;
}

function availability(row: EntryRow, harness?: string): string {
  if (row.lifecycle === "archived") return "archived";
  if (row.lifecycle !== "approved") return "not-approved";
  if (row.source_kind === "imported") return "delegate";
  const supported = JSON.parse(row.harnesses) as string[];
  if (harness && supported.length > 0 && !supported.includes(harness)) {
    return "unsupported-in-harness";
  }
  return "next-session";
}

function publisherOf(identifier: string): string {
  return identifier.split(":")[2] ?? "";
}

function drop<T extends Record<string, unknown>>(obj: T): T {
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) delete obj[key];
  }
  return obj;
}

/** The fields shared by search results and list items. */
export function entrySummary(
  row: EntryRow,
  options: { harness?: string } = {},
): Record<string, unknown> {
  const doc = entryDocument(row);
  const description = row.description.length > 280
    ? `${row.description.slice(0, 279)}…`
    : row.description;
  return drop({
    identifier: row.identifier,
    displayName: row.display_name,
    type: row.type,
    url: doc.url as string | undefined,
    version: row.version,
    description: description || undefined,
    capabilities: Array.isArray(doc.capabilities) ? doc.capabilities.slice(0, 8) : undefined,
    "obs:kind": row.kind,
    "obs:nativeRef": row.native_ref ?? undefined,
    "obs:approval": row.lifecycle,
    "obs:lifecycle": row.lifecycle,
    "obs:visibility": VISIBILITY_TO_WIRE[row.visibility],
    "obs:supportedHarnesses": JSON.parse(row.harnesses) as string[],
    "obs:availability": availability(row, options.harness),
    "obs:activatable": row.kind === "agent",
    "obs:delegable": isDelegable(row),
    "obs:artifactDigest": row.digest,
    "obs:publisher": publisherOf(row.identifier),
    "obs:provider": doc["obs:provider"] as string | undefined,
    "obs:recommended": row.recommended === 1 ? true : undefined,
  });
}

/** A search result: the summary plus score, source and what matched. */
export function searchResult(
  row: EntryRow,
  hit: { score: number; matchedOn: string[] },
  options: { source: string; harness?: string },
): Record<string, unknown> {
  const summary = entrySummary(row, options);
  return drop({ ...summary, score: hit.score, source: options.source, matchedOn: hit.matchedOn });
}

/** The full stored document with the current lifecycle and delegability. */
export function fullDocument(row: EntryRow): Record<string, unknown> {
  const doc = entryDocument(row);
  doc["obs:lifecycle"] = row.lifecycle;
  doc["obs:visibility"] = VISIBILITY_TO_WIRE[row.visibility];
  doc["obs:delegable"] = isDelegable(row);
  doc["obs:artifactDigest"] = row.digest;
  if (row.tombstoned) doc["obs:removed"] = true;
  return doc;
}
