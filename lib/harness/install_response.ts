/**
 * The install response the registry returns for `POST /api/v1/agents/{id}/install`:
 * the rendered `config_snippet`, warnings, and a lock naming the exact definition.
 * @module
 */
import { z } from "zod";
import { type AgentDefinition, AgentDefinitionSchema } from "./agent_definition.ts";
import { jsonDigest } from "../core/canonical_json.ts";
import { ConfigSnippetSchema } from "./config_snippet.ts";
import { renderInstall, type RenderInstallOptions } from "./render.ts";

/** The lock part of an install response. */
export const InstallLockSchema = z.looseObject({
  lock_version: z.number().int(),
  status: z.enum(["locked", "partial", "unlocked"]),
  digest: z.string(),
  components: z.array(z.record(z.string(), z.unknown())),
});
/** The lock part of an install response. */
export type InstallLock = z.infer<typeof InstallLockSchema>;

/** The response to an install request. */
export const InstallResponseSchema = z.looseObject({
  agent_id: z.string(),
  harness: z.string(),
  version: z.string(),
  config_snippet: ConfigSnippetSchema,
  warnings: z.array(z.string()),
  lock: InstallLockSchema,
});
/** The response to an install request. */
export type InstallResponse = z.infer<typeof InstallResponseSchema>;

/**
 * The digest of an agent definition: `sha256:` and the hex SHA-256 of its canonical JSON
 * (keys sorted, defaults applied), so equal definitions always match.
 *
 * @example
 * ```ts
 * import { parseAgentYaml } from "./agent_definition.ts";
 *
 * const definition = parseAgentYaml("name: r\nversion: 1.0.0\nprompt: Review.\n");
 * agentDigest(definition).startsWith("sha256:"); // true
 * ```
 */
export function agentDigest(definition: AgentDefinition): string {
  return jsonDigest(AgentDefinitionSchema.parse(definition));
}

/**
 * Builds the full install response for one agent, harness and scope.
 *
 * @param options as for {@linkcode renderInstall}
 * @returns `{agent_id, harness, version, config_snippet, warnings, lock}`
 * @throws {ObservalError} as {@linkcode renderInstall} does
 */
export function installResponse(options: RenderInstallOptions): InstallResponse {
  const { harness, config_snippet, warnings } = renderInstall(options);
  return {
    agent_id: options.agent.id,
    harness,
    version: options.agent.version,
    config_snippet,
    warnings,
    lock: {
      lock_version: 1,
      status: "locked",
      digest: agentDigest(options.agent.definition),
      components: [],
    },
  };
}
