/**
 * The install response the registry returns for `POST /api/v1/agents/{id}/install`:
 * the rendered `config_snippet`, warnings, and a lock naming the exact definition.
 * @module
 */
import { type AgentDefinition, AgentDefinitionSchema } from "./agent_definition.ts";
import { jsonDigest } from "../core/canonical_json.ts";
import { renderInstall, type RenderInstallOptions } from "./render.ts";
import type { InstallResponse } from "./install_response_schema.ts";

export {
  type InstallLock,
  InstallLockSchema,
  type InstallResponse,
  InstallResponseSchema,
} from "./install_response_schema.ts";

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
