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
  /** The document as last approved (JSON text), null when never approved. */
  approved_doc: string | null;
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

/** Fewest characters of an identifier that name an entry by prefix. */
export const MIN_ENTRY_PREFIX = 4;

/** Most entries an ambiguous prefix names in its refusal. */
const SHOWN_CANDIDATES = 5;

/**
 * Loads one entry the viewer may see, in any lifecycle; 404 otherwise. `ref` is its
 * identifier (`urn:ai:` accepted) or UUID, or a unique prefix of at least
 * {@linkcode MIN_ENTRY_PREFIX} characters of either the identifier or its last part (the
 * UUID, or an imported card's slug), as people copy them from a list.
 *
 * @throws {ObservalError} NOT_FOUND when nothing the viewer may see matches, or
 *   INVALID_ARGUMENT when a prefix is too short or matches more than one entry (naming up
 *   to five of them, all visible to the viewer)
 */
export function getVisibleEntry(
  db: DatabaseSync,
  viewer: Viewer,
  ref: string,
  options: { publicRegistry: boolean },
): EntryRow {
  const vis = visibleSql(viewer, options);
  const row = db.prepare(
    `SELECT e.* FROM entries e WHERE (e.identifier = :ident OR e.id = :ident) AND ${vis.sql}`,
  ).get({ ident: normalizeIdentifier(ref), ...vis.params }) as EntryRow | undefined;
  if (row) return row;
  const prefix = normalizeIdentifier(ref.trim().toLowerCase());
  if (prefix.length < MIN_ENTRY_PREFIX) {
    throw new ObservalError("INVALID_ARGUMENT", `"${ref}" is too short to name an entry`, {
      remediation:
        `Give at least ${MIN_ENTRY_PREFIX} characters of its identifier, or the whole identifier`,
      resource: ref,
    });
  }
  const matches = db.prepare(entryPrefixLookup(prefix, vis.sql)).all({
    ...vis.params,
    lo: prefix,
    hi: prefixEnd(prefix),
    limit: SHOWN_CANDIDATES + 1,
  }) as unknown as EntryRow[];
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw entryNotFound(ref);
  const shown = matches.slice(0, SHOWN_CANDIDATES).map((m) =>
    `  ${m.identifier}  ${m.display_name}`
  );
  const more = matches.length > SHOWN_CANDIDATES ? "\n  (and more)" : "";
  throw new ObservalError("INVALID_ARGUMENT", `"${ref}" matches more than one entry`, {
    remediation: `Give more of the identifier; it matches:\n${shown.join("\n")}${more}`,
    resource: ref,
  });
}

/**
 * The prefix lookup for `prefix`: a range on the identifier's index when it starts like
 * an identifier, else on its last part's, stopping after `:limit` visible rows. The index
 * is named, because the planner would otherwise read the visibility indexes (every
 * approved entry) instead; the identifier's is the one its UNIQUE constraint made.
 */
export function entryPrefixLookup(prefix: string, visible: string): string {
  const [column, index] = prefix.startsWith("urn:")
    ? ["identifier", "sqlite_autoindex_entries_2"]
    : ["identifier_tail", "entries_identifier_tail"];
  return `SELECT e.* FROM entries e INDEXED BY ${index}
    WHERE e.${column} >= :lo AND e.${column} < :hi AND ${visible}
    ORDER BY e.${column} LIMIT :limit`;
}

/** The least string above every string that starts with `prefix` (its last character + 1). */
function prefixEnd(prefix: string): string {
  const last = prefix.codePointAt(prefix.length - 1)!;
  const head = prefix.slice(0, last > 0xffff ? -2 : -1);
  return head + String.fromCodePoint(last + 1);
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

/** `namespace/name` of a registry Agent, as people and pulled configs name it. */
const AGENT_REF = /^[a-z0-9][a-z0-9_-]*\/[a-z0-9][a-z0-9_-]*$/;

/**
 * Turns `namespace/name` into the Agent's identifier (404 when there is none); any other
 * reference (identifier, UUID, prefix) is returned as it is.
 */
export function findAgentRef(db: DatabaseSync, ref: string): string {
  if (!AGENT_REF.test(ref)) return ref;
  const row = loadAgentByRef(db, ref);
  if (!row) throw entryNotFound(ref);
  return row.identifier;
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
