/**
 * The wire shape of an install response (`POST /api/v1/agents/{id}/install`): the rendered
 * `config_snippet`, warnings, and a lock naming the exact definition. Kept apart from the
 * renderer so the registry client can read responses without loading it, and built on
 * first use so a client that never installs never builds it.
 * @module
 */
import { z } from "zod";
import { ConfigSnippetSchema } from "./config_snippet.ts";

/** The lock part of an install response: the exact definition it installs. */
export const InstallLockSchema = z.lazy(() =>
  z.looseObject({
    lock_version: z.number().int(),
    status: z.enum(["locked", "partial", "unlocked"]),
    digest: z.string(),
    components: z.array(z.record(z.string(), z.unknown())),
  })
);
/** The lock part of an install response. */
export type InstallLock = z.infer<typeof InstallLockSchema>;

/** The answer to an install request: what to write for one harness. */
export const InstallResponseSchema = z.lazy(() =>
  z.looseObject({
    agent_id: z.string(),
    harness: z.string(),
    version: z.string(),
    config_snippet: ConfigSnippetSchema,
    warnings: z.array(z.string()),
    lock: InstallLockSchema,
  })
);
/** The answer to an install request. */
export type InstallResponse = z.infer<typeof InstallResponseSchema>;
