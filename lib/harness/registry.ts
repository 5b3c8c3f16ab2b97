/**
 * The harness registry: facts about each coding-agent harness observal can install an
 * agent into or run headless. The facts live in `harness_registry.json` at the repository
 * root (data, not code); this module validates them and answers questions about them.
 * @module
 */
import { z } from "zod";
import { ObservalError } from "../core/mod.ts";
import data from "../../harness_registry.json" with { type: "json" };
import { HARNESS_KEYS, type HarnessKey, normalizeHarness } from "./keys.ts";
import { ScopeSchema } from "./scope.ts";

export { HARNESS_KEYS, type HarnessKey, normalizeHarness } from "./keys.ts";

/** A harness key such as `claude-code`. */
export const HarnessKeySchema = z.enum(HARNESS_KEYS);

export { type Scope, ScopeSchema } from "./scope.ts";

/** What a harness can take from an agent. */
export const CapabilitySchema = z.enum(["skills", "hooks", "mcp_servers", "prompts"]);
/** What a harness can take from an agent. */
export type Capability = z.infer<typeof CapabilitySchema>;

/** A path template per scope; `{name}` is replaced, `~/` means the user's home. */
const PathPairSchema = z.strictObject({
  project: z.string().min(1).nullable(),
  user: z.string().min(1).nullable(),
});

/** Facts about how the harness behaves at run time (set only once verified). */
export const HarnessRuntimeSchema = z.strictObject({
  /** How MCP servers get installed: a config file, a setup command, an adapter or user only. */
  mcp_install_mode: z.enum(["file", "setup_command", "adapter", "user_only"]),
  /** The harness honours `tools/list_changed`. */
  dynamic_tools: z.boolean(),
  prompt_context_injection: z.boolean(),
  /** Guidance files are never written: the bundled skill is the instruction channel. */
  guidance_file_write: z.boolean(),
  /** The harness has a verified non-interactive run mode delegation can use. */
  headless_run: z.boolean(),
});

/** Facts the delegation runner needs to launch the harness headless. */
export const HarnessHeadlessSchema = z.strictObject({
  /** The executable to look up on PATH; null when there is no headless entry point. */
  binary: z.string().min(1).nullable(),
  /** The harness can select an installed agent profile by name. */
  agent_flag: z.boolean(),
  /** The task is written to stdin, so task text is never read as a flag. */
  task_on_stdin: z.boolean(),
  /** How a headless run keeps the child away from an unrestricted shell. */
  shell_refusal: z.string().min(1).nullable(),
  /** Why the harness cannot run headless, when it cannot. */
  unsupported_reason: z.string().min(1).nullable(),
});

/** Everything the registry records about one harness. */
export const HarnessFactsSchema = z.strictObject({
  key: HarnessKeySchema,
  display_name: z.string().min(1),
  capabilities: z.array(CapabilitySchema),
  scopes: z.array(ScopeSchema).min(1),
  default_scope: ScopeSchema,
  /** Labels for an interactive scope choice; null when the harness has no scope choice. */
  scope_labels: z.strictObject({ project: z.string(), user: z.string() }).nullable(),
  session_parser: z.string().min(1),
  config_dir: z.string().min(1),
  agent_profile: PathPairSchema,
  agent_profile_format: z.enum([
    "markdown_frontmatter",
    "yaml_frontmatter",
    "markdown",
    "json",
    "toml",
  ]),
  mcp_config: PathPairSchema,
  mcp_servers_key: z.string().min(1),
  /** Goose only: the one config file Goose reads extensions from. */
  home_mcp_config: z.string().min(1).optional(),
  skills: PathPairSchema,
  skill_format: z.literal("yaml_frontmatter"),
  guidance_files: z.array(z.string().min(1)),
  runtime: HarnessRuntimeSchema,
  headless: HarnessHeadlessSchema,
});
/** Everything the registry records about one harness. */
export type HarnessFacts = z.infer<typeof HarnessFactsSchema>;

/** The shape of `harness_registry.json`. */
export const HarnessRegistrySchema = z
  .strictObject({
    registry_version: z.literal(1),
    harnesses: z.array(HarnessFactsSchema),
  })
  .superRefine((registry, ctx) => {
    const keys = registry.harnesses.map((h) => h.key);
    if (keys.join(",") !== HARNESS_KEYS.join(",")) {
      ctx.addIssue({
        code: "custom",
        path: ["harnesses"],
        message: `Harnesses must be listed once each in the order ${HARNESS_KEYS.join(", ")}`,
      });
    }
    registry.harnesses.forEach((h, i) => {
      if (!h.scopes.includes(h.default_scope)) {
        ctx.addIssue({
          code: "custom",
          path: ["harnesses", i, "default_scope"],
          message: `Default scope "${h.default_scope}" is not one of the harness's scopes`,
        });
      }
      if (h.runtime.headless_run && h.headless.binary === null) {
        ctx.addIssue({
          code: "custom",
          path: ["harnesses", i, "headless", "binary"],
          message: "A harness that runs headless needs a binary",
        });
      }
    });
  });
/** The shape of `harness_registry.json`. */
export type HarnessRegistry = z.infer<typeof HarnessRegistrySchema>;

/**
 * Validates and returns the harness registry bundled with observal. It is validated once
 * per process (it is constant data, and a search asks for it once per harness) and frozen,
 * so no caller can change it for the others; clone it to build a variant.
 *
 * @returns the registry, harnesses in canonical order
 * @throws {ObservalError} INTERNAL when the bundled file does not match its schema
 *
 * @example
 * ```ts
 * const registry = loadHarnessRegistry();
 * registry.harnesses[0].key; // "cursor"
 * ```
 */
export function loadHarnessRegistry(): HarnessRegistry {
  return bundled ??= validateBundled();
}

let bundled: HarnessRegistry | undefined;

function validateBundled(): HarnessRegistry {
  const parsed = HarnessRegistrySchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ObservalError(
      "INTERNAL",
      `The bundled harness registry is invalid at ${
        issue.path.join(".") || "its root"
      }: ${issue.message}`,
      { remediation: "Reinstall observal; the harness_registry.json it ships is damaged" },
    );
  }
  return deepFreeze(parsed.data);
}

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
