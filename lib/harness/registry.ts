/**
 * The harness registry: facts about each coding-agent harness observal can install an
 * agent into or run headless. The facts live in `harness_registry.json` at the repository
 * root (data, not code); this module answers questions about them. Their schema is in
 * `registry_schema.ts`, and the tests hold the bundled file to it, so no command pays to
 * build the schema and check constant data.
 * @module
 */
import { z } from "zod";
import { ObservalError } from "../core/mod.ts";
import data from "../../harness_registry.json" with { type: "json" };
import { HARNESS_KEYS, type HarnessKey, normalizeHarness } from "./keys.ts";
import type { HarnessFacts, HarnessRegistry } from "./registry_schema.ts";

export { HARNESS_KEYS, type HarnessKey, normalizeHarness } from "./keys.ts";

/** A harness key such as `claude-code`. */
export const HarnessKeySchema = z.enum(HARNESS_KEYS);

export { type Scope, ScopeSchema } from "./scope.ts";
export type { Capability, HarnessFacts, HarnessRegistry } from "./registry_schema.ts";

/**
 * The harness registry bundled with observal, frozen, so no caller can change it for the
 * others (clone it to build a variant). tests/harness/registry_test.ts holds the file to
 * `HarnessRegistrySchema` (registry_schema.ts), in the form every build ships it.
 *
 * @returns the registry, harnesses in canonical order
 *
 * @example
 * ```ts
 * const registry = loadHarnessRegistry();
 * registry.harnesses[0].key; // "cursor"
 * ```
 */
export function loadHarnessRegistry(): HarnessRegistry {
  return bundled ??= deepFreeze(data as HarnessRegistry);
}

let bundled: HarnessRegistry | undefined;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Looks up one harness's facts.
 *
 * @param name a harness key or an alias accepted by {@linkcode normalizeHarness}
 * @param registry the registry to read; the bundled one by default
 * @returns that harness's facts
 */
export function getHarness(
  name: string,
  registry: HarnessRegistry = loadHarnessRegistry(),
): HarnessFacts {
  const key = normalizeHarness(name);
  const facts = registry.harnesses.find((h) => h.key === key);
  // The schema guarantees every key is present; this only guards a hand-built registry.
  if (!facts) {
    throw new ObservalError("INTERNAL", `The harness registry has no entry for "${key}"`, {
      remediation: "Reinstall observal; its harness registry is incomplete",
    });
  }
  return facts;
}

/**
 * The harnesses delegation may run headless, in canonical order: those whose registry
 * entry says `headless_run` and names a binary. Whether the binary is on PATH is for the
 * caller to check.
 *
 * @param registry the registry to read; the bundled one by default
 * @returns harness keys
 *
 * @example
 * ```ts
 * headlessHarnesses().includes("goose"); // false
 * ```
 */
export function headlessHarnesses(registry: HarnessRegistry = loadHarnessRegistry()): HarnessKey[] {
  return registry.harnesses
    .filter((h) => h.runtime.headless_run && h.headless.binary !== null)
    .map((h) => h.key);
}
