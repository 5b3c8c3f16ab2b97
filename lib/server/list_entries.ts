/**
 * One kind of entry as its list shows it: the entries the caller may see (their own,
 * pending ones they may review, approved ones), in name order, and how many there are.
 * @module
 */
import type { DatabaseSync } from "../sqlite/mod.ts";
import { type EntryRow, visibleSql } from "./entries.ts";
import type { Viewer } from "./identity.ts";

/** Most entries one list answer holds; `total` still counts them all. */
export const LIST_LIMIT = 500;

/** What {@linkcode listEntries} found: the first rows in name order, and the full count. */
export interface EntryListing {
  rows: EntryRow[];
  total: number;
}

/**
 * The registry Agents (`native`) or imported cards (`imported`) the viewer may see. The
 * rows come from a walk of the `(source_kind, display_name, identifier)` index that stops
 * at the limit; the count reads only that index and the visibility columns.
 *
 * @param db the registry database
 * @param viewer who asks
 * @param sourceKind which kind of entry
 * @param options `publicRegistry` lets anonymous callers see public approved entries
 * @returns up to {@linkcode LIST_LIMIT} rows and how many entries the viewer may see
 */
export function listEntries(
  db: DatabaseSync,
  viewer: Viewer,
  sourceKind: EntryRow["source_kind"],
  options: { publicRegistry: boolean },
): EntryListing {
  const vis = visibleSql(viewer, options);
  const sql = listingSql(vis.sql);
  const params = { ...vis.params, kind: sourceKind };
  const rows = db.prepare(sql.rows).all(params) as unknown as EntryRow[];
  const total = rows.length < LIST_LIMIT
    ? rows.length
    : (db.prepare(sql.count).get(params) as { n: number }).n;
  return { rows, total };
}

/**
 * The statements of a listing. They name their index: without statistics the planner
 * reads the visibility indexes and sorts every visible entry instead of walking the
 * listing index in name order until the limit.
 */
export function listingSql(visible: string): { rows: string; count: string } {
  const from =
    `FROM entries e INDEXED BY entries_listing WHERE e.source_kind = :kind AND ${visible}`;
  return {
    rows: `SELECT e.* ${from} ORDER BY e.display_name, e.identifier LIMIT ${LIST_LIMIT}`,
    count: `SELECT COUNT(*) AS n ${from}`,
  };
}
