/**
 * Harnesses, the light door: the facts about each harness (keys, scopes, config paths,
 * headless mode), planning and reading a headless run, Pi's trust, and the shape of the
 * `config_snippet` an install returns. It loads neither yaml nor TOML, so choosing a
 * harness or reading a registry answer stays cheap; rendering and writing configs is behind
 * the full door, `../mod.ts`, which exports all of this too.
 *
 * @example
 * ```ts
 * import { getHarness, normalizeHarness } from "./mod.ts";
 *
 * getHarness(normalizeHarness("Claude Code")).display_name; // "Claude Code"
 * ```
 * @module
 */
export {
  type Capability,
  getHarness,
  HARNESS_KEYS,
  type HarnessFacts,
  type HarnessKey,
  HarnessKeySchema,
  type HarnessRegistry,
  headlessHarnesses,
  loadHarnessRegistry,
  normalizeHarness,
  type Scope,
  ScopeSchema,
} from "../registry.ts";
export {
  type ConfigSnippet,
  ConfigSnippetSchema,
  type SnippetFile,
  SnippetFileSchema,
  type StdioMcpEntry,
  StdioMcpEntrySchema,
} from "../config_snippet.ts";
export {
  type HeadlessAdapter,
  headlessAdapter,
  type HeadlessOutput,
  type HeadlessPlan,
  type HeadlessRequest,
  type HeadlessResult,
  inlinePrompt,
  MAX_ARG_BYTES,
  MAX_WINDOWS_COMMAND_CHARS,
  parseHeadlessOutput,
  planHeadlessRun,
  stdinHarnessNames,
  stripAnsi,
} from "../headless.ts";
export { headlessErrorLine, MAX_ERROR_LINE } from "../headless_error.ts";
export { piSessionFile, piSessionRoot } from "../pi_session.ts";
export { forksSession, RESUMABLE_HARNESSES, type ResumableSession } from "../resumable.ts";
export { piAgentDir, type PiTrust, piTrust, piTrustFix } from "../pi_trust.ts";
export {
  type InstallLock,
  InstallLockSchema,
  type InstallResponse,
  InstallResponseSchema,
} from "../install_response_schema.ts";
