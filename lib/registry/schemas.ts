/**
 * Wire shapes of the registry API, shared by the server (which parses requests with them)
 * and the client (which parses responses). Unknown request keys are refused.
 * @module
 */
import { z } from "zod";

const FilterValue = z.union([z.string().max(500), z.array(z.string().max(500)).max(50)]);

export const SearchRequestSchema = z.strictObject({
  query: z.strictObject({
    text: z.string().max(2000, "query.text must be at most 2000 characters"),
    filter: z.record(z.string().max(100), FilterValue).optional(),
    "@context": z.unknown().optional(),
  }),
  federation: z.enum(["auto", "referrals", "none"]).optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
  pageToken: z.string().max(2000).optional(),
});
export type SearchRequest = z.infer<typeof SearchRequestSchema>;

export const VisibilitySchema = z.enum(["private", "team", "public"]);
export type Visibility = z.infer<typeof VisibilitySchema>;

export const ImportA2aRequestSchema = z.strictObject({
  cardUrl: z.string().min(8).max(1000),
  visibility: VisibilitySchema.default("private"),
  teamId: z.string().uuid().optional(),
});
export type ImportA2aRequest = z.input<typeof ImportA2aRequestSchema>;

export const ReviewRequestSchema = z.strictObject({
  action: z.enum(["approve", "reject"]),
  reason: z.string().max(2000).optional(),
  digest: z.string().max(80).optional(),
});
export type ReviewRequest = z.infer<typeof ReviewRequestSchema>;

export const PublishAgentRequestSchema = z.strictObject({
  yaml: z.string().min(1).max(256 * 1024),
  visibility: VisibilitySchema.default("public"),
  teamId: z.string().uuid().optional(),
});
export type PublishAgentRequest = z.input<typeof PublishAgentRequestSchema>;

export const InstallRequestSchema = z.strictObject({
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
});
export type InstallRequest = z.infer<typeof InstallRequestSchema>;

export const CreateUserRequestSchema = z.strictObject({
  handle: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
  role: z.enum(["admin", "reviewer", "user"]).default("user"),
});
export const CreateTeamRequestSchema = z.strictObject({
  handle: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
  name: z.string().max(200).optional(),
});
export const TeamMemberRequestSchema = z.strictObject({
  user: z.string().min(1).max(64),
  role: z.enum(["owner", "reviewer", "member"]).default("member"),
});
export const SettingRequestSchema = z.strictObject({
  value: z.unknown(),
});

/** One search result or list item as the registry returns it (ARD entry + obs:* fields). */
export const EntrySummarySchema = z.looseObject({
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
});
export type EntrySummary = z.infer<typeof EntrySummarySchema>;

export const SearchResponseSchema = z.object({
  results: z.array(EntrySummarySchema),
  pageToken: z.string().optional(),
  referrals: z.array(z.unknown()).optional(),
});
export type SearchResponse = z.infer<typeof SearchResponseSchema>;

export const ListResponseSchema = z.object({
  items: z.array(EntrySummarySchema),
  total: z.number().int().optional(),
  pageToken: z.string().optional(),
});
export type ListResponse = z.infer<typeof ListResponseSchema>;

export const ErrorEnvelopeSchema = z.object({
  errorCode: z.string(),
  message: z.string(),
  remediation: z.string().optional(),
  resource: z.string().optional(),
});
