/**
 * The ARD document the registry stores (and serves) for an imported Agent Card.
 * @module
 */
import { z } from "zod";
import { A2A_AGENT_CARD_MEDIA_TYPE, type AgentCard } from "./card.ts";
import { callableInterface, cardInterfaces, CardInterfaceSchema } from "./interfaces.ts";
import type { CardSignatureStatus } from "./signature.ts";

/** Media type of an ARD entry for a registry. */
export const AI_REGISTRY_MEDIA_TYPE = "application/ai-registry+json";
/** JSON-LD context of every ARD document observal writes. */
export const ARD_CONTEXT = [
  "https://agenticresourcediscovery.org/context/v1",
  { obs: "https://observal.io/ns#" },
] as const;

/** Caps on the derived lists; the ARD schema allows 2 to 5 representative queries. */
const MAX_CAPABILITIES = 24;
const MAX_TAGS = 12;
const MAX_QUERIES = 5;
const MIN_QUERIES = 2;
const MAX_QUERY_LENGTH = 120;

/** Review state of a registry entry. */
export const LifecycleSchema = z.enum(["draft", "pending", "approved", "rejected", "archived"]);
export type Lifecycle = z.infer<typeof LifecycleSchema>;

/**
 * Who may see an entry. The import API says `private`; the store says `owner`. The
 * document carries whichever the caller passes.
 */
export const VisibilitySchema = z.enum(["public", "team", "private", "owner"]);
export type Visibility = z.infer<typeof VisibilitySchema>;

/** `obs:signature`: the outcome of verifying the card's signatures at import. */
export const SignatureStatusSchema = z.lazy(() =>
  z.discriminatedUnion("status", [
    z.object({ status: z.literal("none") }),
    z.object({ status: z.literal("verified"), keyId: z.string() }),
  ])
);

/**
 * The signature state of an imported card, in words: `verified (key K)`, `unsigned`, or the
 * raw value for a state this client does not know.
 */
export function signatureWords(signature: unknown): string | undefined {
  if (signature === undefined || signature === null) return undefined;
  const s = signature as { status?: unknown; keyId?: unknown };
  if (s.status === "none") return "unsigned";
  if (s.status === "verified") {
    return typeof s.keyId === "string" && s.keyId ? `verified (key ${s.keyId})` : "verified";
  }
  return JSON.stringify(signature);
}

/**
 * The stored ARD document of an imported card (built when first used: only tests and
 * tools that check a stored document parse one).
 */
export const ImportedCardDocumentSchema = z.lazy(() =>
  z.looseObject({
    "@context": z.array(z.unknown()),
    identifier: z.string(),
    displayName: z.string(),
    type: z.literal(A2A_AGENT_CARD_MEDIA_TYPE),
    url: z.string(),
    description: z.string().optional(),
    version: z.string(),
    capabilities: z.array(z.string()),
    representativeQueries: z.array(z.string()).min(MIN_QUERIES).max(MAX_QUERIES).optional(),
    tags: z.array(z.string()),
    trustManifest: z.object({ identity: z.string(), identityType: z.literal("https") }),
    "obs:kind": z.literal("external"),
    "obs:protocol": z.literal("a2a"),
    "obs:source": z.literal("imported"),
    "obs:lifecycle": LifecycleSchema,
    "obs:visibility": VisibilitySchema,
    "obs:activatable": z.literal(false),
    "obs:delegable": z.boolean(),
    "obs:artifactDigest": z.string(),
    "obs:capabilitiesSource": z.literal("publisher"),
    "obs:representativeQueriesSource": z.literal("publisher"),
    "obs:a2aInterface": CardInterfaceSchema.optional(),
    "obs:a2aSecuritySchemes": z.array(z.string()),
    "obs:agentCard": z.record(z.string(), z.unknown()),
    "obs:provider": z.string().optional(),
    "obs:reviewNote": z.string().optional(),
    "obs:signature": SignatureStatusSchema,
    updatedAt: z.string(),
  })
);
export type ImportedCardDocument = z.infer<typeof ImportedCardDocumentSchema>;

/** Input of {@linkcode importedCardDocument}. */
export interface ImportedCardInput {
  /** The parsed card (the raw card with unknown fields kept). */
  card: AgentCard;
  /** Where the card was fetched from; becomes `url`. */
  cardUrl: string;
  /** From `cardIdentifier()`. */
  identifier: string;
  lifecycle: Lifecycle;
  visibility: Visibility;
  /** From `cardDigest()` over the raw card. */
  digest: string;
  updatedAt: Date | string;
  /** The reviewer's reason, after a review. */
  reviewNote?: string;
  /** From `verifyCardSignatures()`. @default {status: "none"} */
  signature?: CardSignatureStatus;
}

/**
 * Builds the ARD document stored for an imported card. Everything searchable
 * (capabilities, queries, tags) is derived from the card, so its source is the
 * publisher; the card itself rides along as `obs:agentCard`.
 *
 * @param input The card and the registry's facts about it.
 * @returns A document that validates as an ARD `catalogEntry`.
 */
export function importedCardDocument(input: ImportedCardInput): ImportedCardDocument {
  const { card } = input;
  const iface = callableInterface(card);
  const doc: ImportedCardDocument = {
    "@context": [ARD_CONTEXT[0], { ...ARD_CONTEXT[1] }],
    identifier: input.identifier,
    displayName: card.name,
    type: A2A_AGENT_CARD_MEDIA_TYPE,
    url: input.cardUrl,
    version: card.version?.trim() || "0.0.0",
    capabilities: capabilities(card),
    tags: tags(card),
    trustManifest: {
      identity: `https://${new URL(input.cardUrl).hostname}`,
      identityType: "https",
    },
    "obs:kind": "external",
    "obs:protocol": "a2a",
    "obs:source": "imported",
    "obs:lifecycle": input.lifecycle,
    "obs:visibility": input.visibility,
    "obs:activatable": false,
    "obs:delegable": input.lifecycle === "approved" && iface !== undefined,
    "obs:artifactDigest": input.digest,
    "obs:capabilitiesSource": "publisher",
    "obs:representativeQueriesSource": "publisher",
    "obs:a2aSecuritySchemes": Object.keys(card.securitySchemes ?? {}).sort(),
    "obs:agentCard": card,
    "obs:signature": input.signature ?? { status: "none" },
    updatedAt: typeof input.updatedAt === "string"
      ? input.updatedAt
      : input.updatedAt.toISOString(),
  };
  const description = card.description?.trim();
  if (description) doc.description = description;
  const queries = representativeQueries(card);
  if (queries.length >= MIN_QUERIES) doc.representativeQueries = queries;
  if (iface) doc["obs:a2aInterface"] = iface;
  const provider = card.provider?.organization?.trim();
  if (provider) doc["obs:provider"] = provider;
  if (input.reviewNote) doc["obs:reviewNote"] = input.reviewNote;
  return doc;
}

function capabilities(card: AgentCard): string[] {
  const out = new Set<string>();
  for (const skill of card.skills ?? []) out.add(`a2a-skill:${skill.id}`);
  for (const iface of cardInterfaces(card)) {
    out.add(`binding:${iface.protocolBinding.toLowerCase()}`);
  }
  if (card.capabilities?.streaming) out.add("streaming");
  if (card.capabilities?.pushNotifications) out.add("push-notifications");
  return [...out].slice(0, MAX_CAPABILITIES);
}

function tags(card: AgentCard): string[] {
  const out = new Set(["a2a", "remote-agent"]);
  for (const skill of card.skills ?? []) {
    for (const tag of skill.tags ?? []) {
      const clean = tag.trim();
      if (clean) out.add(clean);
    }
  }
  return [...out].slice(0, MAX_TAGS);
}

/** Skill examples, then the description's first sentence, then skill descriptions. */
function representativeQueries(card: AgentCard): string[] {
  const candidates: string[] = [];
  for (const skill of card.skills ?? []) candidates.push(...(skill.examples ?? []));
  if (card.description) candidates.push(firstSentence(card.description));
  for (const skill of card.skills ?? []) {
    if (skill.description) candidates.push(skill.description);
  }
  const out = new Set<string>();
  for (const candidate of candidates) {
    const text = candidate.replace(/\s+/g, " ").trim().slice(0, MAX_QUERY_LENGTH).trimEnd();
    if (text) out.add(text);
    if (out.size === MAX_QUERIES) break;
  }
  return [...out];
}

function firstSentence(text: string): string {
  const match = /^.*?[.!?](?=\s|$)/s.exec(text.trim());
  return match ? match[0] : text;
}
