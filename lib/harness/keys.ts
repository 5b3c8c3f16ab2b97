/**
 * The harness keys and how a typed name becomes one. Kept apart from the harness registry
 * so a command that only checks a `--harness` value does not load every harness's facts.
 * @module
 */
import { ObservalError } from "../core/mod.ts";

/** Every harness key, in canonical order (the order used by help text and validation). */
export const HARNESS_KEYS = [
  "cursor",
  "kiro",
  "claude-code",
  "codex",
  "copilot",
  "copilot-cli",
  "opencode",
  "antigravity",
  "goose",
  "pi",
  "gemini-cli",
] as const;

/** A harness key such as `claude-code`. */
export type HarnessKey = (typeof HARNESS_KEYS)[number];

/**
 * Turns a user-supplied harness name into its canonical key: trimmed, lower-cased and
 * with `_` read as `-` (so `Claude_Code` is `claude-code`).
 *
 * @param name the name as typed
 * @returns the canonical harness key
 * @throws {ObservalError} INVALID_ARGUMENT naming the valid keys when the name is unknown
 *
 * @example
 * ```ts
 * normalizeHarness("claude_code"); // "claude-code"
 * ```
 */
export function normalizeHarness(name: string): HarnessKey {
  const key = String(name).trim().toLowerCase().replaceAll("_", "-");
  if ((HARNESS_KEYS as readonly string[]).includes(key)) return key as HarnessKey;
  throw new ObservalError("INVALID_ARGUMENT", `Unknown harness "${name}"`, {
    remediation: `Use one of: ${HARNESS_KEYS.join(", ")}`,
    resource: String(name),
  });
}
