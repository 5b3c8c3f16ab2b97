/**
 * Harnesses, the keys door: every harness key and how a typed name becomes one, without
 * the harness registry's facts. `--harness` is checked through it by commands that load
 * the facts only when they need them (`registry search`).
 *
 * @example
 * ```ts
 * import { normalizeHarness } from "./mod.ts";
 *
 * normalizeHarness("Claude_Code"); // "claude-code"
 * ```
 * @module
 */
export { HARNESS_KEYS, type HarnessKey, normalizeHarness } from "../keys.ts";
