/**
 * Harnesses: the registry of harness facts, the portable agent definition, and rendering
 * an agent into the files each harness reads. This full door loads yaml and TOML; code that
 * only needs the facts, headless runs or the config snippet shape imports the light door,
 * `facts/mod.ts`.
 *
 * @example
 * ```ts
 * import { parseAgentYaml, renderInstall } from "./mod.ts";
 *
 * const definition = parseAgentYaml("name: reviewer\nversion: 1.0.0\nprompt: Review.\n");
 * const { config_snippet } = renderInstall({
 *   agent: { id: "a1", name: definition.name, version: definition.version, definition },
 *   harness: "claude-code",
 *   scope: "project",
 *   delegation: { enabled: false, command: [] },
 * });
 * ```
 * @module
 */
// The light door (facts, snippets, headless plans, schemas), the harness registry file's
// schema, and what needs the renderer.
export * from "./facts/mod.ts";
export { resumableSession, sessionRoot } from "./resume_session.ts";
export {
  CapabilitySchema,
  HarnessFactsSchema,
  HarnessHeadlessSchema,
  HarnessRegistrySchema,
  HarnessRuntimeSchema,
} from "./registry_schema.ts";
export {
  AGENT_NAME_PATTERN,
  type AgentDefinition,
  AgentDefinitionSchema,
  DELEGATION_MCP_NAME,
  type InlineSkill,
  InlineSkillSchema,
  MAX_AGENT_YAML_BYTES,
  type McpServer,
  McpServerSchema,
  parseAgentDefinition,
  parseAgentYaml,
} from "./agent_definition.ts";
export {
  agentBody,
  type DelegationOption,
  type InstallAgent,
  type RenderedInstall,
  renderInstall,
  type RenderInstallOptions,
} from "./render.ts";
export { agentDigest, installResponse } from "./install_response.ts";
export { toToml } from "./to_toml.ts";
export { type InstallPath, type InstallPathOptions, resolveInstallPath } from "./install_path.ts";
export {
  type FileStatus,
  planSnippet,
  type SetupCommandResult,
  type SnippetFilePlan,
  type SnippetPlan,
  writeFileAtomic,
  writeSnippet,
  type WriteSnippetOptions,
  type WriteSnippetResult,
  type WrittenFile,
} from "./write_snippet.ts";
export { type DelegationLauncher, withDelegationLauncher } from "./launcher.ts";
export {
  type DelegationInstall,
  delegationInstall,
  findDelegationEntry,
  type FoundEntry,
} from "./mcp_entry.ts";
export {
  type AllowWrite,
  allowWrites,
  applyAllowWrite,
  CLAUDE_ALLOW_RULE,
  CODEX_APPROVE,
  headlessNotes,
  type HeadlessVerdict,
  headlessVerdict,
  mcpDefaultScope,
} from "./headless_allow.ts";
