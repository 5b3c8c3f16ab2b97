/**
 * The shape of `harness_registry.json`, the facts about each harness. Commands read the
 * bundled file as it is (see `registry.ts`); the tests hold it to this schema.
 * @module
 */
import { z } from "zod";
import { HarnessKeySchema } from "./registry.ts";
import { HARNESS_KEYS } from "./keys.ts";
import { ScopeSchema } from "./scope.ts";

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
  /**
   * Where the harness keeps its own state (sessions, credentials, caches), which a sandboxed
   * run may write. `~` is the home folder and `${VAR:-default}` a variable with a fallback;
   * a path ending in "/" is a folder (made when missing), any other a file (used if present).
   */
  state_paths: z.array(z.string().min(1)),
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
