/**
 * Removing an entry (an imported card, or a registry Agent with every version): a
 * tombstone, so its identifier is never reused for something else.
 * @module
 */
import { isoSeconds, ObservalError } from "../core/mod.ts";
import { transaction } from "../sqlite/mod.ts";
import { entryNotFound, type EntryRow, loadEntry } from "./entries.ts";
import type { Viewer } from "./identity.ts";
import type { RegistryState } from "./state.ts";

/** The refusal for anonymous callers of routes that need a signed-in user. */
export function signInFirst(): ObservalError {
  return new ObservalError("UNAUTHENTICATED", "Sign in to manage registry entries", {
    remediation: "Send an API key as `Authorization: Bearer <key>`",
  });
}

/**
 * Tombstones an entry of one kind (an import, or a registry Agent with every version);
 * only its owner or an admin may. Someone who cannot see it is told it does not exist.
 */
export function removeEntry(
  state: RegistryState,
  viewer: Viewer,
  identifier: string,
  sourceKind: EntryRow["source_kind"],
): { identifier: string; removed: true } {
  const { db } = state;
  if (viewer.anonymous) throw signInFirst();
  return transaction(db, () => {
    const row = loadEntry(db, identifier);
    if (!row || row.tombstoned || row.source_kind !== sourceKind) {
      throw entryNotFound(identifier);
    }
    if (row.owner_id !== viewer.userId && viewer.role !== "admin") {
      if (row.visibility !== "public" && !viewer.teams.has(row.team_id ?? "")) {
        throw entryNotFound(identifier);
      }
      throw new ObservalError(
        "PERMISSION_DENIED",
        "Only the owner or an admin can remove this agent",
      );
    }
    db.prepare("UPDATE entries SET tombstoned = 1, updated_at = ? WHERE id = ?").run(
      isoSeconds(state.clock.now()),
      row.id,
    );
    return { identifier: row.identifier, removed: true as const };
  });
}
