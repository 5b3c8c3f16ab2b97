/**
 * Agent Card schemas (A2A v1.0 and v0.3) and {@linkcode parseAgentCard}, which turns an
 * untrusted JSON value into a typed card or refuses it with `INVALID_AGENT_CARD`.
 *
 * Both versions are `looseObject`s: fields we do not know are kept, because the raw card
 * is what a reviewer approves and what the digest covers.
 *
 * Limits (skills, text length, tags and examples per skill) are enforced by refusing the
 * card, not by trimming it: a trimmed card would no longer be the card the publisher
 * serves, and the reviewer must approve exactly what is called.
 * @module
 */
import { z } from "zod";
import { cardError } from "./_card_error.ts";
import { cardInterfaces } from "./interfaces.ts";

/** Media type of an ARD entry that points at an A2A Agent Card. */
export const A2A_AGENT_CARD_MEDIA_TYPE = "application/a2a-agent-card+json";
/** The most skills a card may list. */
export const MAX_SKILLS = 32;
/** The longest text field (name, description, skill text, tag, example), in characters. */
export const MAX_TEXT = 2000;
/** The most tags one skill may carry. */
export const MAX_SKILL_TAGS = 12;
/** The most examples one skill may carry. */
export const MAX_SKILL_EXAMPLES = 6;

/**
 * Builds the card schemas. They are built when a card is first parsed, not when this module
 * loads: every command loads this folder's door, and most never read a card.
 */
function buildCardSchemas() {
  const Text = z.string().max(MAX_TEXT);

  const AgentInterfaceSchema = z.looseObject({
    url: Text,
    protocolBinding: z.string().optional(),
    /** Some v1.0 drafts and hybrid cards spell the binding `transport`. */
    transport: z.string().optional(),
    protocolVersion: z.string().optional(),
    tenant: z.string().optional(),
  });

  const AdditionalInterfaceSchema = z.looseObject({
    url: Text,
    transport: z.string().optional(),
  });

  const AgentCapabilitiesSchema = z.looseObject({
    streaming: z.boolean().optional(),
    pushNotifications: z.boolean().optional(),
    extendedAgentCard: z.boolean().optional(),
    /** v0.3 only; dropped in v1.0. */
    stateTransitionHistory: z.boolean().optional(),
    extensions: z.array(z.looseObject({ uri: z.string() })).optional(),
  });

  const AgentSkillSchema = z.looseObject({
    id: Text,
    name: Text.optional(),
    description: Text.optional(),
    tags: z.array(Text).max(MAX_SKILL_TAGS).optional(),
    examples: z.array(Text).max(MAX_SKILL_EXAMPLES).optional(),
    inputModes: z.array(z.string()).optional(),
    outputModes: z.array(z.string()).optional(),
  });

  const AgentProviderSchema = z.looseObject({
    organization: Text.optional(),
    url: Text.optional(),
  });

  const V1SecuritySchemeSchema = z.looseObject({
    apiKeySecurityScheme: z.looseObject({
      location: z.string().optional(),
      name: z.string().optional(),
      description: z.string().optional(),
    }).optional(),
    httpAuthSecurityScheme: z.looseObject({
      scheme: z.string().optional(),
      bearerFormat: z.string().optional(),
      description: z.string().optional(),
    }).optional(),
    oauth2SecurityScheme: z.looseObject({}).optional(),
    openIdConnectSecurityScheme: z.looseObject({ openIdConnectUrl: z.string().optional() })
      .optional(),
    mtlsSecurityScheme: z.looseObject({}).optional(),
  });

  const V03SecuritySchemeSchema = z.looseObject({
    type: z.string(),
    /** `apiKey`: where the key goes (`header`, `query`, `cookie`). */
    in: z.string().optional(),
    /** `apiKey`: the header, query or cookie name. */
    name: z.string().optional(),
    /** `http`: the HTTP auth scheme, e.g. `bearer`. */
    scheme: z.string().optional(),
    bearerFormat: z.string().optional(),
    description: z.string().optional(),
  });

  const SecuritySchemeSchema = z.union([V03SecuritySchemeSchema, V1SecuritySchemeSchema]);

  const SecurityRequirementSchema = z.looseObject({
    schemes: z.record(z.string(), z.looseObject({ list: z.array(z.string()).optional() }))
      .optional(),
  });

  const AgentCardSignatureSchema = z.looseObject({
    protected: z.string(),
    signature: z.string(),
    header: z.record(z.string(), z.unknown()).optional(),
  });

  const common = {
    name: Text,
    description: Text.optional(),
    version: Text.optional(),
    provider: AgentProviderSchema.optional(),
    documentationUrl: Text.optional(),
    iconUrl: Text.optional(),
    capabilities: AgentCapabilitiesSchema.optional(),
    securitySchemes: z.record(z.string(), SecuritySchemeSchema).optional(),
    defaultInputModes: z.array(z.string()).optional(),
    defaultOutputModes: z.array(z.string()).optional(),
    skills: z.array(AgentSkillSchema).max(MAX_SKILLS).optional(),
    signatures: z.array(AgentCardSignatureSchema).optional(),
  };

  const legacy = {
    url: Text.optional(),
    preferredTransport: z.string().optional(),
    additionalInterfaces: z.array(AdditionalInterfaceSchema).optional(),
    protocolVersion: z.string().optional(),
    supportsAuthenticatedExtendedCard: z.boolean().optional(),
    security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  };

  const AgentCardV1Schema = z.looseObject({
    ...common,
    ...legacy,
    supportedInterfaces: z.array(AgentInterfaceSchema),
    securityRequirements: z.array(SecurityRequirementSchema).optional(),
  });

  const AgentCardV03Schema = z.looseObject({
    ...common,
    ...legacy,
    url: Text,
  });
  return {
    AgentInterfaceSchema,
    AdditionalInterfaceSchema,
    AgentCapabilitiesSchema,
    AgentSkillSchema,
    AgentProviderSchema,
    V1SecuritySchemeSchema,
    V03SecuritySchemeSchema,
    SecuritySchemeSchema,
    SecurityRequirementSchema,
    AgentCardSignatureSchema,
    AgentCardV1Schema,
    AgentCardV03Schema,
  };
}

/** The card schemas, built on first use. */
const cardSchemas = (() => {
  let built: ReturnType<typeof buildCardSchemas> | undefined;
  return () => (built ??= buildCardSchemas());
})();

/** A v1.0 interface: one endpoint speaking one binding at one protocol version. */
export const AgentInterfaceSchema = z.lazy(() => cardSchemas().AgentInterfaceSchema);
export type AgentInterface = z.infer<typeof AgentInterfaceSchema>;

/** A v0.3 `additionalInterfaces[]` entry. */
export const AdditionalInterfaceSchema = z.lazy(() => cardSchemas().AdditionalInterfaceSchema);
export type AdditionalInterface = z.infer<typeof AdditionalInterfaceSchema>;

/** What the agent can do beyond plain request/response. */
export const AgentCapabilitiesSchema = z.lazy(() => cardSchemas().AgentCapabilitiesSchema);
export type AgentCapabilities = z.infer<typeof AgentCapabilitiesSchema>;

/** One skill the agent advertises. */
export const AgentSkillSchema = z.lazy(() => cardSchemas().AgentSkillSchema);
export type AgentSkill = z.infer<typeof AgentSkillSchema>;

/** Who publishes the agent. */
export const AgentProviderSchema = z.lazy(() => cardSchemas().AgentProviderSchema);
export type AgentProvider = z.infer<typeof AgentProviderSchema>;

/** A v1.0 security scheme: a ProtoJSON oneof, one member set. */
export const V1SecuritySchemeSchema = z.lazy(() => cardSchemas().V1SecuritySchemeSchema);
export type V1SecurityScheme = z.infer<typeof V1SecuritySchemeSchema>;

/** A v0.3 security scheme: OpenAPI style, discriminated by `type`. */
export const V03SecuritySchemeSchema = z.lazy(() => cardSchemas().V03SecuritySchemeSchema);
export type V03SecurityScheme = z.infer<typeof V03SecuritySchemeSchema>;

/**
 * Either form of security scheme. Unknown shapes still parse (as a v1.0 object with no
 * known member) so one odd scheme does not make the whole card unreadable.
 */
export const SecuritySchemeSchema = z.lazy(() => cardSchemas().SecuritySchemeSchema);
export type SecurityScheme = z.infer<typeof SecuritySchemeSchema>;

/** v1.0 requirement: `{schemes: {name: {list: [scope]}}}`. */
export const SecurityRequirementSchema = z.lazy(() => cardSchemas().SecurityRequirementSchema);
export type SecurityRequirement = z.infer<typeof SecurityRequirementSchema>;

/** One JWS (flattened JSON, detached payload) over the card; see `signature.ts`. */
export const AgentCardSignatureSchema = z.lazy(() => cardSchemas().AgentCardSignatureSchema);
export type AgentCardSignature = z.infer<typeof AgentCardSignatureSchema>;

/**
 * An A2A v1.0 Agent Card. The v0.3 endpoint fields are accepted too, because dual-version
 * servers serve "hybrid" cards carrying both.
 */
export const AgentCardV1Schema = z.lazy(() => cardSchemas().AgentCardV1Schema);
export type AgentCardV1 = z.infer<typeof AgentCardV1Schema>;

/** An A2A v0.3 Agent Card: one main `url` plus optional `additionalInterfaces`. */
export const AgentCardV03Schema = z.lazy(() => cardSchemas().AgentCardV03Schema);
export type AgentCardV03 = z.infer<typeof AgentCardV03Schema>;

/** A parsed card of either version. */
export type AgentCard = AgentCardV1 | AgentCardV03;

/** Which protocol generation a card is written for. */
export type CardVersion = "1.0" | "0.3";

/**
 * Tells a v1.0 card from a v0.3 one, as a2a-js does: a non-empty `supportedInterfaces`
 * means v1.0 (even when v0.3 fields are present too); anything else is v0.3.
 *
 * @param card A JSON object.
 * @returns `"1.0"` or `"0.3"`.
 */
export function cardVersion(card: Record<string, unknown>): CardVersion {
  const ifaces = card.supportedInterfaces;
  return Array.isArray(ifaces) && ifaces.length > 0 ? "1.0" : "0.3";
}

/**
 * Parses an untrusted value as an Agent Card of either version.
 *
 * @param input The decoded JSON of a card.
 * @returns The card, unknown fields kept.
 * @throws {ObservalError} `INVALID_AGENT_CARD` when the value is not an object, has no
 * name, breaks a field type or a limit, or declares no http(s) endpoint.
 *
 * @example
 * ```ts
 * const card = parseAgentCard({ name: "Echo", url: "https://echo.example.com/a2a" });
 * ```
 */
export function parseAgentCard(input: unknown): AgentCard {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw cardError("The Agent Card is not a JSON object", {
      remediation: "Point to a URL that serves the agent's card as a JSON object",
    });
  }
  const raw = input as Record<string, unknown>;
  if (typeof raw.name !== "string" || raw.name.trim() === "") {
    throw cardError("The Agent Card has no name", {
      remediation: "Ask the agent's owner to set a non-empty name in the card",
    });
  }
  const version = cardVersion(raw);
  // A card with neither interfaces nor a main url has nothing to call: say that first.
  if (version === "0.3" && raw.url === undefined) throw noEndpoint();
  const result = (version === "1.0" ? AgentCardV1Schema : AgentCardV03Schema).safeParse(raw);
  if (!result.success) {
    throw cardError(`The Agent Card is invalid: ${describeIssue(result.error.issues[0])}`, {
      remediation: "Ask the agent's owner to fix the card, then import it again",
    });
  }
  const card = result.data;
  if (cardInterfaces(card).length === 0) throw noEndpoint();
  return card;
}

function noEndpoint() {
  return cardError(
    "The Agent Card declares no http(s) endpoint in supportedInterfaces or url",
    { remediation: "Ask the agent's owner to list an http(s) interface URL in the card" },
  );
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "unknown problem";
  const where = issue.path.length === 0
    ? "the card"
    : `field "${
      issue.path.map((p, i) => typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)
        .join("")
    }"`;
  if (issue.code === "too_big") {
    const unit = issue.origin === "string" ? "characters" : "entries";
    return `${where} has more than ${issue.maximum} ${unit}`;
  }
  if (issue.code === "invalid_type") return `${where} should be of type ${issue.expected}`;
  return `${where}: ${issue.message}`;
}
