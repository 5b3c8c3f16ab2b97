/**
 * The entries table as rows, and who may see or review each one.
 * @module
 */
import { ObservalError } from "../core/mod.ts";
import type { DatabaseSync } from "../sqlite/mod.ts";
import type { Viewer } from "./identity.ts";

/** A row of `entries`. `doc` is the stored ARD document (JSON text). */
export interface EntryRow {
  rowid: number;
  id: string;
  identifier: string;
  kind: "agent" | "external";
  source_kind: "native" | "imported";
  type: string;
  display_name: string;
  description: string;
  version: string;
  owner_id: string;
  team_id: string | null;
  visibility: "owner" | "team" | "public";
  lifecycle: "draft" | "pending" | "approved" | "rejected" | "archived";
  tombstoned: number;
  source_url: string | null;
  native_ref: string | null;
  /** `namespace/name` of a native agent (native_ref without the version); null otherwise. */
  agent_ref: string | null;
  digest: string;
  delegable: number;
  recommended: number;
  harnesses: string;
  search_queries: string;
  search_capabilities: string;
  doc: string;
  created_at: string;
  updated_at: string;
}

export const AGENT_MEDIA_TYPE = "application/vnd.observal.agent+json";

/** Wire visibility names ↔ stored ones (private is stored as owner-visible). */
export const VISIBILITY_TO_STORED = { private: "owner", team: "team", public: "public" } as const;
export const VISIBILITY_TO_WIRE = { owner: "private", team: "team", public: "public" } as const;

/**
 * SQL that is true when the viewer may see an entry (table alias `e`) in any lifecycle the
 * caller then narrows. Privacy: public to all, private to its owner, team to members,
 * everything to admins. Lifecycle: approved to all who pass privacy; pending, rejected and
 * draft to the owner; pending also to whoever may review it.
 */
export function visibleSql(viewer: Viewer, options: { publicRegistry: boolean }): {
  sql: string;
  params: Record<string, string | number>;
} {
  if (viewer.anonymous) {
    if (!options.publicRegistry) return { sql: "0", params: {} };
    return {
      sql:
        "(e.tombstoned = 0 AND e.visibility = 'public' AND e.lifecycle IN ('approved', 'archived'))",
      params: {},
    };
  }
  const admin = viewer.role === "admin" ? 1 : 0;
  const globalReviewer = viewer.role === "admin" || viewer.role === "reviewer" ? 1 : 0;
  const sql = `(e.tombstoned = 0
    AND (:v_admin = 1 OR e.visibility = 'public'
         OR (e.visibility = 'owner' AND e.owner_id = :v_uid)
         OR (e.visibility = 'team' AND e.team_id IN
             (SELECT team_id FROM team_members WHERE user_id = :v_uid)))
    AND (e.lifecycle IN ('approved', 'archived')
         OR e.owner_id = :v_uid
         OR (e.lifecycle = 'pending' AND (
              (e.visibility = 'owner' AND :v_admin = 1)
           OR (e.visibility = 'public' AND :v_reviewer = 1)
           OR (e.visibility = 'team' AND (:v_admin = 1 OR e.team_id IN
               (SELECT team_id FROM team_members WHERE user_id = :v_uid
                AND role IN ('owner', 'reviewer'))))))))`;
  return { sql, params: { v_admin: admin, v_reviewer: globalReviewer, v_uid: viewer.userId } };
}

/** May this viewer approve or reject the entry? */
export function mayReview(viewer: Viewer, row: EntryRow): boolean {
  if (viewer.anonymous) return false;
  if (viewer.role === "admin") return true;
  if (row.visibility === "public") return viewer.role === "reviewer";
  if (row.visibility === "team" && row.team_id) {
    const role = viewer.teams.get(row.team_id);
    return role === "owner" || role === "reviewer";
  }
  return false;
}

/** True when the viewer has any review scope at all. */
export function hasReviewScope(viewer: Viewer): boolean {
  if (viewer.anonymous) return false;
  if (viewer.role === "admin" || viewer.role === "reviewer") return true;
  for (const role of viewer.teams.values()) {
    if (role === "owner" || role === "reviewer") return true;
  }
  return false;
}

/** Normalises `urn:ai:` to `urn:air:` (older clients wrote the former). */
export function normalizeIdentifier(identifier: string): string {
  return identifier.startsWith("urn:ai:") ? `urn:air:${identifier.slice(7)}` : identifier;
}

/** Loads one entry the viewer may see, in any lifecycle; 404 otherwise. */
export function getVisibleEntry(
  db: DatabaseSync,
  viewer: Viewer,
  identifier: string,
  options: { publicRegistry: boolean },
): EntryRow {
  const vis = visibleSql(viewer, options);
  const row = db.prepare(
    `SELECT e.* FROM entries e WHERE (e.identifier = :ident OR e.id = :ident) AND ${vis.sql}`,
  ).get({ ident: normalizeIdentifier(identifier), ...vis.params }) as EntryRow | undefined;
  if (!row) throw entryNotFound(identifier);
  return row;
}

export function entryNotFound(identifier: string): ObservalError {
  return new ObservalError("NOT_FOUND", "Entry not found", {
    resource: identifier,
    remediation:
      "Check the identifier with `observal registry search` or `observal registry a2a list`",
  });
}

/**
 * The lookups publish, import, review and install run. Each is an equality on an indexed
 * column, so their cost does not grow with the registry.
 */
export const ENTRY_LOOKUPS = {
  byIdentifierOrId: "SELECT * FROM entries WHERE identifier = ? OR id = ?",
  byAgentRef: "SELECT * FROM entries WHERE agent_ref = ?",
  bySourceUrl: "SELECT * FROM entries WHERE source_url = ?",
} as const;

/** Loads an entry by identifier (`urn:ai:` accepted) or id, whoever may see it. */
export function loadEntry(db: DatabaseSync, identifier: string): EntryRow | undefined {
  return db.prepare(ENTRY_LOOKUPS.byIdentifierOrId).get(
    normalizeIdentifier(identifier),
    identifier,
  ) as EntryRow | undefined;
}

/** Loads the native agent `namespace/name`, whichever version is current. */
export function loadAgentByRef(db: DatabaseSync, agentRef: string): EntryRow | undefined {
  return db.prepare(ENTRY_LOOKUPS.byAgentRef).get(agentRef) as EntryRow | undefined;
}

/** Loads the import registered from a card URL (already normalised), removed ones included. */
export function loadEntryBySourceUrl(db: DatabaseSync, cardUrl: string): EntryRow | undefined {
  return db.prepare(ENTRY_LOOKUPS.bySourceUrl).get(cardUrl.slice(0, 255)) as
    | EntryRow
    | undefined;
}
