/**
 * Wire shapes of the registry API, shared by the server (which parses requests with them)
 * and the client (which parses every response it returns). Unknown request keys are
 * refused; unknown response keys are kept, so a newer server can add fields.
 *
 * Object schemas are built on first use (`z.lazy`): a command uses two or three of them,
 * and building all 25 cost every process that talks to the registry about 5 ms at start.
 * @module
 */
import { z } from "zod";
import { CardInterfaceSchema } from "../a2a/cards/mod.ts";

const FilterValue = z.union([z.string().max(500), z.array(z.string().max(500)).max(50)]);

export const SearchRequestSchema = z.lazy(() =>
  z.strictObject({
    query: z.strictObject({
      text: z.string().max(2000, "query.text must be at most 2000 characters"),
      filter: z.record(z.string().max(100), FilterValue).optional(),
      "@context": z.unknown().optional(),
    }),
    federation: z.enum(["auto", "referrals", "none"]).optional(),
    pageSize: z.number().int().min(1).max(100).optional(),
    pageToken: z.string().max(2000).optional(),
  })
);
export type SearchRequest = z.infer<typeof SearchRequestSchema>;

export const VisibilitySchema = z.enum(["private", "team", "public"]);
export type Visibility = z.infer<typeof VisibilitySchema>;

/**
 * What a submission's visibility defaults to, for cards and registry Agents alike: private,
 * as the reference has it for cards. Nothing becomes visible to others before its author
 * chooses, and a reviewer still sees it in their queue only if they may review it.
 */
export const DEFAULT_VISIBILITY: Visibility = "private";

export const ImportA2aRequestSchema = z.lazy(() =>
  z.strictObject({
    cardUrl: z.string().min(8).max(1000),
    visibility: VisibilitySchema.default(DEFAULT_VISIBILITY),
    teamId: z.string().uuid().optional(),
  })
);
export type ImportA2aRequest = z.input<typeof ImportA2aRequestSchema>;

export const ReviewRequestSchema = z.lazy(() =>
  z.strictObject({
    action: z.enum(["approve", "reject"]),
    reason: z.string().max(2000).optional(),
    digest: z.string().max(80).optional(),
  })
);
export type ReviewRequest = z.infer<typeof ReviewRequestSchema>;

export const PublishAgentRequestSchema = z.lazy(() =>
  z.strictObject({
    yaml: z.string().min(1).max(256 * 1024),
    visibility: VisibilitySchema.default(DEFAULT_VISIBILITY),
    teamId: z.string().uuid().optional(),
  })
);
export type PublishAgentRequest = z.input<typeof PublishAgentRequestSchema>;

export const InstallRequestSchema = z.lazy(() =>
  z.strictObject({
    harness: z.string().min(1).max(64),
    env_values: z.record(z.string(), z.record(z.string(), z.string())).optional(),
    header_values: z.record(z.string(), z.record(z.string(), z.string())).optional(),
    options: z.strictObject({
      scope: z.enum(["project", "user"]).optional(),
      local_name: z.string().max(64).optional(),
      model: z.string().max(200).optional(),
    }).optional(),
    platform: z.string().max(32).optional(),
    version: z.string().max(64).optional(),
    strict: z.boolean().optional(),
    supported_features: z.array(z.string().max(64)).max(32).optional(),
  })
);
export type InstallRequest = z.infer<typeof InstallRequestSchema>;

export const CreateUserRequestSchema = z.lazy(() =>
  z.strictObject({
    handle: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
    role: z.enum(["admin", "reviewer", "user"]).default("user"),
  })
);
export const CreateTeamRequestSchema = z.lazy(() =>
  z.strictObject({
    handle: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
    name: z.string().max(200).optional(),
  })
);
export const TeamMemberRequestSchema = z.lazy(() =>
  z.strictObject({
    user: z.string().min(1).max(64),
    role: z.enum(["owner", "reviewer", "member"]).default("member"),
  })
);
export const SettingRequestSchema = z.lazy(() =>
  z.strictObject({
    value: z.unknown(),
  })
);

/** One search result or list item as the registry returns it (ARD entry + obs:* fields). */
export const EntrySummarySchema = z.lazy(() =>
  z.looseObject({
    identifier: z.string(),
    displayName: z.string(),
    type: z.string(),
    url: z.string().optional(),
    version: z.string().optional(),
    description: z.string().optional(),
    score: z.number().optional(),
    "obs:kind": z.string().optional(),
    "obs:lifecycle": z.string().optional(),
    "obs:visibility": z.string().optional(),
    "obs:delegable": z.boolean().optional(),
    "obs:availability": z.string().optional(),
    "obs:supportedHarnesses": z.array(z.string()).optional(),
    "obs:artifactDigest": z.string().optional(),
    "obs:nativeRef": z.string().optional(),
  })
);
export type EntrySummary = z.infer<typeof EntrySummarySchema>;

export const SearchResponseSchema = z.lazy(() =>
  z.object({
    results: z.array(EntrySummarySchema),
    pageToken: z.string().optional(),
    referrals: z.array(z.unknown()).optional(),
  })
);
export type SearchResponse = z.infer<typeof SearchResponseSchema>;

export const ListResponseSchema = z.lazy(() =>
  z.object({
    items: z.array(EntrySummarySchema),
    total: z.number().int().optional(),
    pageToken: z.string().optional(),
  })
);
export type ListResponse = z.infer<typeof ListResponseSchema>;

export const ErrorEnvelopeSchema = z.lazy(() =>
  z.object({
    errorCode: z.string(),
    message: z.string(),
    remediation: z.string().optional(),
    resource: z.string().optional(),
  })
);

/**
 * One entry document as `GET /api/v1/ard/entries/{identifier}` returns it: the stored ARD
 * document (an imported card's or a registry Agent's) with the registry's current verdict.
 * Only the fields observal reads are typed; the rest is kept as sent.
 */
export const EntryDocumentSchema = z.lazy(() =>
  z.looseObject({
    identifier: z.string(),
    displayName: z.string().optional(),
    type: z.string(),
    version: z.string().optional(),
    description: z.string().optional(),
    "obs:kind": z.string().optional(),
    "obs:lifecycle": z.string().optional(),
    "obs:visibility": z.string().optional(),
    "obs:delegable": z.boolean().optional(),
    "obs:removed": z.boolean().optional(),
    "obs:artifactDigest": z.string().optional(),
    "obs:nativeRef": z.string().optional(),
    "obs:supportedHarnesses": z.array(z.string()).optional(),
    /** The callable endpoint pinned when the card was reviewed (imported cards). */
    "obs:a2aInterface": CardInterfaceSchema.optional(),
    /** The card exactly as reviewed (imported cards). */
    "obs:agentCard": z.record(z.string(), z.unknown()).optional(),
    /** Whether the endpoint's host may be private, when the registry decided it for the entry. */
    "obs:a2aPrivateHost": z.boolean().optional(),
    "obs:signature": z.unknown().optional(),
    "obs:reviewNote": z.string().optional(),
  })
);
export type EntryDocument = z.infer<typeof EntryDocumentSchema>;

/** `GET /api/v1/ard/imports`: the imported cards the caller may see. */
export const ImportsListSchema = z.lazy(() =>
  z.looseObject({
    items: z.array(EntryDocumentSchema),
    total: z.number().int(),
  })
);
export type ImportsList = z.infer<typeof ImportsListSchema>;

/** `GET /api/v1/agents`: the registry Agents the caller may see (at most 500), and how many. */
export const AgentsListSchema = z.lazy(() =>
  z.looseObject({
    items: z.array(EntrySummarySchema),
    total: z.number().int().nonnegative(),
  })
);
export type AgentsList = z.infer<typeof AgentsListSchema>;

/** The answer to removing an imported card or a registry Agent. */
export const RemovedSchema = z.lazy(() =>
  z.looseObject({
    identifier: z.string(),
    removed: z.literal(true),
  })
);
export type Removed = z.infer<typeof RemovedSchema>;

/** A registry Agent as `GET /api/v1/agents/{id}` returns it. */
export const AgentDetailSchema = z.lazy(() =>
  z.looseObject({
    id: z.string().min(1),
    name: z.string().min(1),
    identifier: z.string().optional(),
    namespace: z.string().optional(),
    slug: z.string().optional(),
    qualified_name: z.string().optional(),
    description: z.string().optional(),
    prompt: z.string().optional(),
    version: z.string().optional(),
    status: z.string().optional(),
    visibility: z.string().optional(),
    supported_harnesses: z.array(z.string()).optional(),
    delegable: z.boolean().optional(),
    digest: z.string().optional(),
    latest_version: z.string().optional(),
    latest_approved_version: z.string().nullable().optional(),
  })
);
export type AgentDetail = z.infer<typeof AgentDetailSchema>;

// The install response is the harness renderer's output; its schema lives with it.
export {
  type InstallLock,
  InstallLockSchema,
  type InstallResponse,
  InstallResponseSchema,
} from "../harness/install_response_schema.ts";

/** A team as the registry lists it (`members` in the admin list). */
export const TeamSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    handle: z.string(),
    name: z.string().optional(),
    members: z.number().int().optional(),
    created_at: z.string().optional(),
  })
);
export type Team = z.infer<typeof TeamSchema>;

/** `GET /api/v1/me`: who the caller is and the teams they belong to. */
export const MeSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    handle: z.string(),
    role: z.string(),
    teams: z.array(TeamSchema),
  })
);
export type Me = z.infer<typeof MeSchema>;

/** `GET /api/v1/admin/teams`. */
export const TeamsResponseSchema = z.lazy(() => z.looseObject({ items: z.array(TeamSchema) }));
export type TeamsResponse = z.infer<typeof TeamsResponseSchema>;

/** A user as `GET /api/v1/admin/users` lists them. */
export const UserSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    handle: z.string(),
    role: z.string(),
    created_at: z.string().optional(),
  })
);
export type User = z.infer<typeof UserSchema>;

/** `GET /api/v1/admin/users`. */
export const UsersResponseSchema = z.lazy(() => z.looseObject({ items: z.array(UserSchema) }));
export type UsersResponse = z.infer<typeof UsersResponseSchema>;

/** One registry setting as `GET /api/v1/admin/settings` lists it. */
export const SettingSchema = z.lazy(() =>
  z.looseObject({
    key: z.string(),
    value: z.unknown(),
    /** What it means. */
    help: z.string().optional(),
    /** The values it accepts, in words. */
    allowed: z.string().optional(),
  })
);
export type Setting = z.infer<typeof SettingSchema>;

/** `GET /api/v1/admin/settings`. */
export const SettingsResponseSchema = z.lazy(() =>
  z.looseObject({ items: z.array(SettingSchema) })
);
export type SettingsResponse = z.infer<typeof SettingsResponseSchema>;
