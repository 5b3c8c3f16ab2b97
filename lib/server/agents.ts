/**
 * Registry Agents: portable agent definitions published to the registry, reviewed like
 * imports, and rendered per harness by the install endpoint.
 * @module
 */
import { isoSeconds, ObservalError } from "../core/mod.ts";
import {
  type AgentDefinition,
  agentDigest,
  headlessHarnesses,
  installResponse,
  normalizeHarness,
  parseAgentYaml,
  renderInstall,
} from "../harness/mod.ts";
import { HARNESS_KEYS } from "../harness/keys.ts";
import { transaction } from "../sqlite/mod.ts";
import {
  AGENT_MEDIA_TYPE,
  entryNotFound,
  type EntryRow,
  findAgentRef,
  getVisibleEntry,
  loadAgentByRef,
  loadEntry,
  VISIBILITY_TO_STORED,
  VISIBILITY_TO_WIRE,
} from "./entries.ts";
import type { Viewer } from "./identity.ts";
import { ARD_CONTEXT, fullDocument, isDelegable } from "./serialize.ts";
import { publisherDomain } from "./settings.ts";
import type { RegistryState } from "./state.ts";
import type { InstallRequest, PublishAgentRequest } from "../registry/schemas.ts";

interface VersionRow {
  agent_id: string;
  version: string;
  definition: string;
  digest: string;
  lifecycle: string;
  created_at: string;
}

/** True when some harness the agent supports can run headless (empty list = all). */
function canRunHeadless(supported: readonly string[]): boolean {
  const headless: readonly string[] = headlessHarnesses();
  return supported.length === 0 ? headless.length > 0 : supported.some((h) => headless.includes(h));
}

function agentDocument(input: {
  id: string;
  identifier: string;
  base: string;
  domain: string;
  namespace: string;
  def: AgentDefinition;
  lifecycle: string;
  visibility: string;
  digest: string;
  updatedAt: string;
}): Record<string, unknown> {
  const { def } = input;
  const queries = (def.representative_queries ?? []).slice(0, 5);
  const doc: Record<string, unknown> = {
    "@context": ARD_CONTEXT,
    identifier: input.identifier,
    displayName: def.name,
    type: AGENT_MEDIA_TYPE,
    url: `${input.base}/api/v1/artifacts/agent/${input.id}/${def.version}`,
    description: def.description || undefined,
    version: def.version,
    capabilities: def.capabilities?.length ? def.capabilities.slice(0, 24) : undefined,
    representativeQueries: queries.length >= 2 ? queries : undefined,
    tags: def.tags?.length ? def.tags.slice(0, 12) : undefined,
    trustManifest: { identity: `https://${input.domain}`, identityType: "https" },
    "obs:kind": "agent",
    "obs:nativeRef": `${input.namespace}/${def.name}@${def.version}`,
    "obs:supportedHarnesses": def.supported_harnesses ?? [],
    "obs:lifecycle": input.lifecycle,
    "obs:visibility": input.visibility,
    "obs:activatable": true,
    "obs:artifactDigest": input.digest,
    "obs:recommended": false,
    "obs:capabilitiesSource": "publisher",
    "obs:representativeQueriesSource": "publisher",
    updatedAt: input.updatedAt,
  };
  for (const k of Object.keys(doc)) if (doc[k] === undefined) delete doc[k];
  return doc;
}

/** Publishes a new agent or a new version of one; it waits for review either way. */
export function publishAgent(
  state: RegistryState,
  viewer: Viewer,
  body: PublishAgentRequest & { visibility: "private" | "team" | "public" },
  base: string,
): { created: boolean; document: Record<string, unknown> } {
  if (viewer.anonymous) {
    throw new ObservalError("UNAUTHENTICATED", "Sign in to publish agents", {
      remediation: "Send an API key as `Authorization: Bearer <key>`",
    });
  }
  const def = parseAgentYaml(body.yaml);
  const namespace = def.namespace ?? viewer.handle;
  if (namespace !== viewer.handle && viewer.role !== "admin") {
    throw new ObservalError("PERMISSION_DENIED", `You cannot publish in namespace "${namespace}"`, {
      remediation: `Drop the namespace key to publish as ${viewer.handle}`,
    });
  }
  if (body.visibility === "team" && !body.teamId) {
    throw new ObservalError("INVALID_ARGUMENT", "Team visibility needs a teamId", {
      remediation: "Pass --team HANDLE",
    });
  }
  if (body.teamId && viewer.role !== "admin" && !viewer.teams.has(body.teamId)) {
    throw new ObservalError("PERMISSION_DENIED", "You are not a member of that team");
  }
  const supported = def.supported_harnesses ?? [];
  // The same digest the install lock reports, so reviewers and installs agree.
  const digest = agentDigest(def);
  const now = isoSeconds(state.clock.now());
  const domain = publisherDomain(state.settings());
  const visibility = VISIBILITY_TO_STORED[body.visibility];
  const { db } = state;
  return transaction(db, () => {
    const existing = loadAgentByRef(db, `${namespace}/${def.name}`);
    if (existing && existing.owner_id !== viewer.userId && viewer.role !== "admin") {
      throw new ObservalError("ALREADY_EXISTS", `${namespace}/${def.name} belongs to someone else`);
    }
    const id = existing?.id ?? crypto.randomUUID();
    if (
      existing && db.prepare("SELECT 1 FROM agent_versions WHERE agent_id = ? AND version = ?")
        .get(id, def.version)
    ) {
      throw new ObservalError(
        "ALREADY_EXISTS",
        `${namespace}/${def.name}@${def.version} is already published`,
        { remediation: "Raise the version in the agent file and publish again" },
      );
    }
    const identifier = existing?.identifier ?? `urn:air:${domain}:agent:${id}`;
    const doc = agentDocument({
      id,
      identifier,
      base,
      domain,
      namespace,
      def,
      lifecycle: "pending",
      visibility: body.visibility,
      digest,
      updatedAt: now,
    });
    const values = {
      id,
      identifier,
      display_name: def.name,
      description: def.description ?? "",
      version: def.version,
      owner_id: existing?.owner_id ?? viewer.userId,
      team_id: body.visibility === "team" ? body.teamId! : null,
      visibility,
      native_ref: `${namespace}/${def.name}@${def.version}`,
      digest,
      delegable: canRunHeadless(supported) ? 1 : 0,
      harnesses: JSON.stringify(supported),
      search_queries: (def.representative_queries ?? []).join("\n"),
      search_capabilities: [...(def.capabilities ?? []), ...(def.tags ?? [])].join("\n"),
      doc: JSON.stringify(doc),
      now,
    };
    if (existing) {
      db.prepare(
        `UPDATE entries SET display_name = :display_name, description = :description,
           version = :version, owner_id = :owner_id, team_id = :team_id, visibility = :visibility,
           lifecycle = 'pending', tombstoned = 0, native_ref = :native_ref, digest = :digest,
           delegable = :delegable, harnesses = :harnesses, search_queries = :search_queries,
           search_capabilities = :search_capabilities, doc = :doc, updated_at = :now
         WHERE id = :id`,
      ).run(omitKey(values, "identifier"));
    } else {
      db.prepare(
        `INSERT INTO entries (id, identifier, kind, source_kind, type, display_name, description,
           version, owner_id, team_id, visibility, lifecycle, native_ref, digest, delegable,
           harnesses, search_queries, search_capabilities, doc, created_at, updated_at)
         VALUES (:id, :identifier, 'agent', 'native', '${AGENT_MEDIA_TYPE}', :display_name,
           :description, :version, :owner_id, :team_id, :visibility, 'pending', :native_ref,
           :digest, :delegable, :harnesses, :search_queries, :search_capabilities, :doc, :now, :now)`,
      ).run(values);
    }
    db.prepare(
      `INSERT INTO agent_versions(agent_id, version, definition, digest, lifecycle, created_at)
       VALUES (?, ?, ?, ?, 'pending', ?)`,
    ).run(id, def.version, JSON.stringify(def), digest, now);
    return { created: !existing, document: fullDocument(loadEntry(db, identifier)!) };
  });
}

function omitKey<T extends Record<string, unknown>>(obj: T, key: string): Record<string, never> {
  const out: Record<string, unknown> = { ...obj };
  delete out[key];
  return out as Record<string, never>;
}

/** After a review, mirror the entry's lifecycle onto the version it describes. */
export function syncAgentVersion(state: RegistryState, row: EntryRow): void {
  if (row.source_kind !== "native") return;
  state.db.prepare("UPDATE agent_versions SET lifecycle = ? WHERE agent_id = ? AND version = ?")
    .run(row.lifecycle, row.id, row.version);
}

/**
 * Finds an agent entry by identifier, UUID, namespace/name or a unique prefix of its
 * identifier (see getVisibleEntry), as the viewer may see it.
 */
export function findAgent(
  state: RegistryState,
  viewer: Viewer,
  ref: string,
): EntryRow {
  const publicRegistry = state.settings()["deployment.public_registry_enabled"];
  const row = getVisibleEntry(state.db, viewer, findAgentRef(state.db, ref), { publicRegistry });
  if (row.source_kind !== "native") throw entryNotFound(ref);
  return row;
}

/** Agent detail as `GET /api/v1/agents/{id}` returns it. */
export function agentDetail(state: RegistryState, viewer: Viewer, ref: string) {
  const row = findAgent(state, viewer, ref);
  const versions = state.db.prepare(
    "SELECT * FROM agent_versions WHERE agent_id = ? ORDER BY created_at DESC, rowid DESC",
  ).all(row.id) as unknown as VersionRow[];
  const current = versions.find((v) => v.version === row.version) ?? versions[0];
  const def = JSON.parse(current.definition) as AgentDefinition;
  const [namespace, rest] = row.native_ref!.split("/");
  const slug = rest.split("@")[0];
  const latestApproved = versions.find((v) => v.lifecycle === "approved");
  return {
    id: row.id,
    identifier: row.identifier,
    namespace,
    slug,
    name: def.name,
    qualified_name: `${namespace}/${slug}`,
    description: def.description ?? "",
    prompt: def.prompt,
    version: row.version,
    status: row.lifecycle,
    visibility: VISIBILITY_TO_WIRE[row.visibility],
    supported_harnesses: def.supported_harnesses ?? [],
    delegable: isDelegable(row),
    latest_version: row.version,
    latest_approved_version: latestApproved?.version ?? null,
    versions: versions.map((v) => ({ version: v.version, status: v.lifecycle, digest: v.digest })),
    digest: row.digest,
  };
}

/** Renders an approved version of an agent for one harness. */
export function installAgent(
  state: RegistryState,
  viewer: Viewer,
  ref: string,
  body: InstallRequest,
) {
  const row = findAgent(state, viewer, ref);
  const harness = normalizeHarness(body.harness);
  const versions = state.db.prepare(
    "SELECT * FROM agent_versions WHERE agent_id = ? AND lifecycle = 'approved' ORDER BY created_at DESC, rowid DESC",
  ).all(row.id) as unknown as VersionRow[];
  if (row.tombstoned || versions.length === 0) {
    throw new ObservalError("NOT_FOUND", "Agent not found or not approved for installation", {
      resource: ref,
      remediation: "A reviewer must approve it first (`observal registry agent review`)",
    });
  }
  const chosen = body.version ? versions.find((v) => v.version === body.version) : versions[0];
  if (!chosen) {
    throw new ObservalError(
      "NOT_FOUND",
      `Version ${body.version} is not published or not approved for this agent`,
      { remediation: `Approved versions: ${versions.map((v) => v.version).join(", ")}` },
    );
  }
  const def = JSON.parse(chosen.definition) as AgentDefinition;
  const supported = def.supported_harnesses ?? [];
  if (supported.length > 0 && !supported.includes(harness)) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `The agent supports ${supported.join(", ")}, not ${harness}`,
      {
        remediation: `Install it for one of: ${supported.join(", ")}`,
      },
    );
  }
  const settings = state.settings();
  const localName = body.options?.local_name?.trim() || def.name;
  return installResponse({
    agent: { id: row.id, name: localName, version: def.version, definition: def },
    harness,
    scope: body.options?.scope ?? "project",
    delegation: {
      enabled: settings["discovery.delegation_enabled"],
      command: [...state.delegationCommand],
    },
  });
}

/** What a reviewer of a registry Agent is shown beyond its entry: see {@linkcode agentReview}. */
export interface AgentReview {
  definition: AgentDefinition;
  /** The definition of the newest approved version other than this one, if any. */
  previous?: { version: string; definition: AgentDefinition };
  /** The files an install writes, per harness it can be installed for. */
  files: Array<{ harness: string; paths: string[] }>;
}

/** The current definition of `row` (a registry Agent), the last approved one, its files. */
export function agentReview(state: RegistryState, row: EntryRow): AgentReview {
  const versions = state.db.prepare(
    "SELECT * FROM agent_versions WHERE agent_id = ? ORDER BY created_at DESC, rowid DESC",
  ).all(row.id) as unknown as VersionRow[];
  const current = versions.find((v) => v.version === row.version) ?? versions[0];
  const definition = JSON.parse(current.definition) as AgentDefinition;
  const approved = versions.find((v) => v.lifecycle === "approved" && v !== current);
  const files: AgentReview["files"] = [];
  const harnesses = definition.supported_harnesses.length
    ? definition.supported_harnesses
    : HARNESS_KEYS;
  for (const harness of harnesses) {
    for (const scope of ["project", "user"] as const) {
      try {
        const { config_snippet: s } = renderInstall({
          agent: { id: row.id, name: definition.name, version: definition.version, definition },
          harness,
          scope,
          delegation: { enabled: false, command: [...state.delegationCommand] },
        });
        const mcp = s.mcp_config;
        const paths = [
          s.agent_profile?.path,
          typeof mcp?.path === "string" ? mcp.path : undefined,
          ...(s.skills ?? []).map((f) => f.path),
        ].filter((p): p is string => typeof p === "string");
        files.push({ harness, paths });
        break;
      } catch {
        // This harness has no such scope (or cannot take the agent): try the next.
      }
    }
  }
  return {
    definition,
    previous: approved
      ? { version: approved.version, definition: JSON.parse(approved.definition) }
      : undefined,
    files,
  };
}
