/**
 * Governed import of remote A2A Agent Cards: fetch safely, parse, pin the callable
 * interface and the digest, and let a reviewer approve exactly the card they looked at.
 * @module
 */
import { DIGEST_PATTERN, isoSeconds, ObservalError } from "../core/mod.ts";
import {
  A2A_AGENT_CARD_MEDIA_TYPE,
  type AgentCard,
  callableInterface,
  cardDigest,
  cardIdentifier,
  cardInterfaces,
  importedCardDocument,
  parseAgentCard,
  verifyCardSignatures,
} from "../a2a/mod.ts";
import {
  checkEndpointUrl,
  normalizeCardUrl,
  safeFetchCardJson,
  safeFetchJson,
} from "../net/mod.ts";
import { transaction } from "../sqlite/mod.ts";
import {
  entryNotFound,
  type EntryRow,
  hasReviewScope,
  loadEntry,
  loadEntryBySourceUrl,
  mayReview,
  VISIBILITY_TO_STORED,
  VISIBILITY_TO_WIRE,
} from "./entries.ts";
import type { Viewer } from "./identity.ts";
import { listEntries } from "./list_entries.ts";
import { removeEntry, signInFirst } from "./remove_entry.ts";
import { fullDocument } from "./serialize.ts";
import { publisherDomain } from "./settings.ts";
import type { ImportA2aRequest, ReviewRequest } from "../registry/schemas.ts";
import type { RegistryState } from "./state.ts";

/**
 * Fetches, parses and (if signed) verifies a card, and puts every URL it will be called
 * at through the card-URL rules. Nothing is written.
 */
async function fetchCard(state: RegistryState, cardUrl: string) {
  const settings = state.settings();
  const allowPrivateHosts = settings["discovery.a2a_private_hosts"];
  const fetchOptions = { allowPrivateHosts, resolve: state.resolve };
  const { json } = await safeFetchCardJson(cardUrl, { ...fetchOptions, label: "Agent Card" });
  const card = parseAgentCard(json);
  checkCardEndpoints(card, allowPrivateHosts);
  const signature = await verifyCardSignatures(card, {
    trustedKeys: settings["signing.trusted_keys"],
    // A key set the card points at proves something only when the card's own host
    // publishes it; keys from anywhere else must be configured by an admin.
    fetchJwks: async (jku: string) => {
      checkEndpointUrl(jku, { allowPrivateHosts, label: "the card's signing key set (jku)" });
      if (!URL.canParse(jku) || new URL(jku).hostname !== new URL(cardUrl).hostname) {
        throw new ObservalError(
          "INVALID_AGENT_CARD",
          "The card's signing keys (jku) are not on the card's host",
          {
            remediation:
              "Serve the JWK Set from the card's host, or ask an admin to add the key to signing.trusted_keys",
          },
        );
      }
      return (await safeFetchJson(jku, { ...fetchOptions, label: "signing keys" })).json;
    },
  });
  return { card, signature, raw: json };
}

/**
 * Every endpoint the card lists (the one pinned as `obs:a2aInterface` and the others)
 * must pass the rules its card URL passed, so an approved card cannot send delegated
 * work to a private address or a metadata service. Names are resolved and pinned later,
 * by whoever calls the endpoint.
 */
function checkCardEndpoints(card: AgentCard, allowPrivateHosts: readonly string[]): void {
  for (const iface of cardInterfaces(card)) {
    try {
      checkEndpointUrl(iface.url, {
        allowPrivateHosts,
        label: `the card's ${iface.protocolBinding} interface`,
      });
    } catch (err) {
      if (!(err instanceof ObservalError)) throw err;
      throw new ObservalError("INVALID_AGENT_CARD", err.message, {
        remediation: err.remediation,
        resource: err.resource,
        cause: err,
      });
    }
  }
}

/** Registers (or refreshes) a card. Returns the stored document and whether it is new. */
export async function importCard(
  state: RegistryState,
  viewer: Viewer,
  body: ImportA2aRequest & { visibility: "private" | "team" | "public" },
): Promise<{ created: boolean; document: Record<string, unknown> }> {
  const { db } = state;
  if (viewer.anonymous) throw signInFirst();
  if (body.visibility === "team" && !body.teamId) {
    throw new ObservalError("INVALID_ARGUMENT", "Team visibility needs a teamId", {
      remediation: "Pass --team HANDLE (or teamId in the request body)",
    });
  }
  if (body.teamId && body.visibility !== "team") {
    throw new ObservalError("INVALID_ARGUMENT", "teamId only goes with team visibility", {
      remediation: "Use --visibility team with --team, or drop --team",
    });
  }
  if (body.teamId && viewer.role !== "admin" && !viewer.teams.has(body.teamId)) {
    throw new ObservalError("PERMISSION_DENIED", "You are not a member of that team");
  }
  const cardUrl = normalizeCardUrl(body.cardUrl);
  const { card, signature, raw } = await fetchCard(state, cardUrl);
  const digest = cardDigest(raw);
  const iface = callableInterface(card);
  const visibility = VISIBILITY_TO_STORED[body.visibility];
  const teamId = body.visibility === "team" ? body.teamId! : null;
  const now = isoSeconds(state.clock.now());
  const domain = publisherDomain(state.settings());

  return transaction(db, () => {
    const existing = loadEntryBySourceUrl(db, cardUrl);
    let ownerId = viewer.userId;
    let lifecycle: EntryRow["lifecycle"] = "pending";
    let id: string = crypto.randomUUID();
    let created = true;
    if (existing) {
      created = false;
      id = existing.id;
      if (existing.owner_id !== viewer.userId) {
        if (existing.tombstoned) ownerId = viewer.userId;
        else if (viewer.role === "admin") ownerId = existing.owner_id;
        else {
          throw new ObservalError(
            "ALREADY_EXISTS",
            "This Agent Card is already registered by someone else",
            {
              remediation: "Ask its owner or an admin to change it",
              resource: existing.identifier,
            },
          );
        }
      }
      const unchanged = !existing.tombstoned && existing.digest === digest &&
        existing.visibility === visibility && existing.team_id === teamId;
      lifecycle = unchanged ? existing.lifecycle : "pending";
    }
    const identifier = existing?.identifier ??
      cardIdentifier(cardUrl, card.name, { registryDomain: domain, entryUuid: id });
    if (!existing) {
      const clash = loadEntry(db, identifier);
      if (clash) {
        throw new ObservalError(
          "ALREADY_EXISTS",
          `${identifier} is already registered from another URL`,
          { remediation: "Remove the other registration first, or rename the agent in its card" },
        );
      }
    }
    const doc = importedCardDocument({
      card,
      cardUrl,
      identifier,
      lifecycle,
      visibility: VISIBILITY_TO_WIRE[visibility],
      digest,
      updatedAt: now,
      signature,
    });
    const values = {
      id,
      identifier,
      display_name: String(doc.displayName),
      description: String(doc.description ?? ""),
      version: String(doc.version ?? "0.0.0"),
      owner_id: ownerId,
      team_id: teamId,
      visibility,
      lifecycle,
      source_url: cardUrl.slice(0, 255),
      digest,
      delegable: iface ? 1 : 0,
      search_queries: ((doc.representativeQueries as string[] | undefined) ?? []).join("\n"),
      search_capabilities: [
        ...((doc.capabilities as string[] | undefined) ?? []),
        ...((doc.tags as string[] | undefined) ?? []),
      ].join("\n"),
      doc: JSON.stringify(doc),
      now,
    };
    if (existing) {
      db.prepare(
        `UPDATE entries SET display_name = :display_name, description = :description,
           version = :version, owner_id = :owner_id, team_id = :team_id,
           visibility = :visibility, lifecycle = :lifecycle, tombstoned = 0,
           digest = :digest, delegable = :delegable, search_queries = :search_queries,
           search_capabilities = :search_capabilities, doc = :doc, updated_at = :now
         WHERE id = :id`,
      ).run(omit(values, ["identifier", "source_url"]));
    } else {
      db.prepare(
        `INSERT INTO entries (id, identifier, kind, source_kind, type, display_name, description,
           version, owner_id, team_id, visibility, lifecycle, source_url, digest, delegable,
           search_queries, search_capabilities, doc, created_at, updated_at)
         VALUES (:id, :identifier, 'external', 'imported', '${A2A_AGENT_CARD_MEDIA_TYPE}',
           :display_name, :description, :version, :owner_id, :team_id, :visibility, :lifecycle,
           :source_url, :digest, :delegable, :search_queries, :search_capabilities, :doc, :now, :now)`,
      ).run(values);
    }
    const row = loadEntry(db, identifier)!;
    return { created, document: fullDocument(row) };
  });
}

function omit<T extends Record<string, unknown>>(obj: T, keys: string[]): Record<string, never> {
  const out: Record<string, unknown> = { ...obj };
  for (const k of keys) delete out[k];
  return out as Record<string, never>;
}

/** Imports visible to the caller: their own, reviewable pending ones, approved ones. */
export function listImports(
  state: RegistryState,
  viewer: Viewer,
): { items: Record<string, unknown>[]; total: number } {
  if (viewer.anonymous) throw signInFirst();
  const { rows, total } = listEntries(state.db, viewer, "imported", { publicRegistry: false });
  const items = rows.map((row) => {
    const doc = fullDocument(row);
    return {
      identifier: row.identifier,
      displayName: row.display_name,
      type: row.type,
      version: row.version,
      url: doc.url,
      "obs:lifecycle": row.lifecycle,
      "obs:visibility": doc["obs:visibility"],
      "obs:delegable": doc["obs:delegable"],
      "obs:artifactDigest": row.digest,
    };
  });
  return { items, total };
}

/**
 * Approves or rejects an entry (imported card or registry agent). Approval must name the
 * digest the reviewer saw, so a card that changed in between is never approved blind.
 */
export function reviewEntry(
  state: RegistryState,
  viewer: Viewer,
  identifier: string,
  body: ReviewRequest,
): Record<string, unknown> {
  const { db } = state;
  if (viewer.anonymous) throw signInFirst();
  if (!hasReviewScope(viewer)) {
    throw new ObservalError("PERMISSION_DENIED", "You cannot review entries", {
      remediation: "Ask an admin for the reviewer role, or a team owner to make you a reviewer",
    });
  }
  if (body.action === "approve" && !body.digest) {
    throw new ObservalError("INVALID_ARGUMENT", "Approval needs the digest of what you reviewed", {
      remediation:
        `Inspect it first (\`observal registry a2a inspect ${identifier}\`) and pass --digest`,
    });
  }
  if (body.action === "approve" && !DIGEST_PATTERN.test(body.digest!)) {
    throw malformedDigest(body.digest!, identifier);
  }
  if (body.action === "reject" && !body.reason?.trim()) {
    throw new ObservalError("INVALID_ARGUMENT", "A rejection needs a reason", {
      remediation: "Pass --reason with what the owner should change",
    });
  }
  return transaction(db, () => {
    const row = loadEntry(db, identifier);
    if (!row || row.tombstoned) throw entryNotFound(identifier);
    if (!mayReview(viewer, row)) {
      // Do not confirm that a private or team entry exists to someone outside it.
      if (row.visibility !== "public") throw entryNotFound(identifier);
      throw new ObservalError(
        "PERMISSION_DENIED",
        "This public entry is outside your review scope",
        {
          remediation: "A global reviewer or an admin can review public entries",
        },
      );
    }
    if (body.action === "approve" && body.digest !== row.digest) {
      throw new ObservalError(
        "FAILED_PRECONDITION",
        "The entry changed since you inspected it",
        {
          remediation:
            `Inspect it again (\`observal registry a2a inspect ${row.identifier}\`) and review the current digest`,
          resource: row.identifier,
        },
      );
    }
    const lifecycle = body.action === "approve" ? "approved" : "rejected";
    const doc = JSON.parse(row.doc) as Record<string, unknown>;
    doc["obs:lifecycle"] = lifecycle;
    if (body.reason?.trim()) doc["obs:reviewNote"] = body.reason.trim();
    else delete doc["obs:reviewNote"];
    const now = isoSeconds(state.clock.now());
    doc.updatedAt = now;
    // The approved document is kept: the next review of this entry shows what changed.
    db.prepare(
      `UPDATE entries SET lifecycle = ?, doc = ?, updated_at = ?,
         approved_doc = CASE WHEN ? = 'approved' THEN ? ELSE approved_doc END WHERE id = ?`,
    ).run(lifecycle, JSON.stringify(doc), now, lifecycle, JSON.stringify(doc), row.id);
    return fullDocument(loadEntry(db, row.identifier)!);
  });
}

/** Tombstones an import; only its owner or an admin may. */
export function removeImport(
  state: RegistryState,
  viewer: Viewer,
  identifier: string,
): { identifier: string; removed: true } {
  return removeEntry(state, viewer, identifier, "imported");
}

/** A digest that is not one: said as such, not as a change to the entry. */
function malformedDigest(digest: string, identifier: string): ObservalError {
  return new ObservalError(
    "INVALID_ARGUMENT",
    `"${digest.slice(0, 80)}" is not a digest: one is sha256: followed by 64 hex digits`,
    { remediation: `Copy the digest that inspect shows for ${identifier}` },
  );
}
