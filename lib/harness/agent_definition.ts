/**
 * The portable agent definition (`observal-agent.yaml`): what a publisher writes and the
 * registry stores, independent of any harness. Unknown keys are refused so a typo never
 * silently drops part of an agent.
 * @module
 */
import { parseDocument } from "./_yaml.ts";
import { z } from "zod";
import { errorMessage, ObservalError, utf8Length } from "../core/mod.ts";
import { describeIssue, formatPath } from "./_issues.ts";
import { flowDepth } from "./_yaml_depth.ts";
import { HARNESS_KEYS, type HarnessKey, HarnessKeySchema } from "./registry.ts";

/** Agent names, namespaces and skill names: lower-case, digits, `-` and `_`. */
export const AGENT_NAME_PATTERN: RegExp = /^[a-z0-9][a-z0-9_-]*$/;

/** The largest agent YAML file accepted, in bytes (256 KiB). */
export const MAX_AGENT_YAML_BYTES = 256 * 1024;

/** Reserved for the delegation server every pulled agent gets. */
export const DELEGATION_MCP_NAME = "observal-agents";

/** The deepest nesting on one line accepted; no agent needs more than a few levels. */
export const MAX_AGENT_YAML_DEPTH = 64;

// Alias expansion budget: enough for ordinary reuse, far below a "billion laughs" document.
const MAX_ALIAS_COUNT = 50;

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?$/;
const MCP_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Characters a shell would interpret; commands are run as argv, so none is ever needed.
const SHELL_META = /[|;&`<>\n\r]|\$\(|\$\{/;
// Programs that would turn an MCP entry into an arbitrary shell or downloader.
const REFUSED_PROGRAMS = new Set([
  "curl",
  "wget",
  "bash",
  "sh",
  "zsh",
  "fish",
  "dash",
  "python",
  "perl",
  "ruby",
  "nc",
  "ncat",
  "netcat",
  "powershell",
  "cmd",
]);

const slug = (what: string) =>
  z
    .string()
    .max(64)
    .regex(AGENT_NAME_PATTERN, {
      error:
        `must be a ${what} of lower-case letters, digits, "-" and "_", starting with a letter or digit`,
    });

const shortText = (max: number) => z.string().trim().min(1).max(max);

function programName(command: string): string {
  const base = command.split(/[\\/]/).pop() ?? command;
  return base.toLowerCase().replace(/\.exe$/, "");
}

/** One stdio MCP server the agent brings along. */
export const McpServerSchema = z.strictObject({
  name: z
    .string()
    .max(64)
    .regex(MCP_NAME, { error: 'must use only letters, digits, "-" and "_"' })
    .refine((n) => n !== DELEGATION_MCP_NAME, {
      error: `must not be "${DELEGATION_MCP_NAME}", which is reserved for delegation`,
    }),
  command: z
    .string()
    .min(1)
    .max(1024)
    .default("npx")
    .superRefine((command, ctx) => {
      if (/\s/.test(command)) {
        ctx.addIssue({
          code: "custom",
          message: "must be a program alone; put its arguments in args",
        });
      } else if (SHELL_META.test(command)) {
        ctx.addIssue({ code: "custom", message: "must not contain shell operators" });
      } else if (REFUSED_PROGRAMS.has(programName(command))) {
        ctx.addIssue({
          code: "custom",
          message:
            `must not be "${command}": shells, interpreters run bare and downloaders are refused`,
        });
      }
    }),
  /** A string is split on spaces, as `npx -y pkg` would be. */
  args: z
    .union([z.string(), z.array(z.string().max(4096)).max(256)], {
      error: "must be a list of strings (or one string split on spaces)",
    })
    .default([])
    .transform((args) => (typeof args === "string" ? args.split(" ").filter(Boolean) : args))
    .superRefine((args, ctx) => {
      args.forEach((arg, i) => {
        if (SHELL_META.test(arg)) {
          ctx.addIssue({
            code: "custom",
            path: [i],
            message: "must not contain shell operators",
          });
        }
      });
    }),
  env: z
    .record(
      z.string().regex(ENV_NAME, {
        error: "is not a valid environment variable name (use names like API_TOKEN)",
      }),
      z.string().max(8192),
    )
    .default({}),
});
/** One stdio MCP server the agent brings along. */
export type McpServer = z.infer<typeof McpServerSchema>;

/** A skill carried inline: the fields become SKILL.md front matter, `content` its body. */
export const InlineSkillSchema = z.strictObject({
  name: slug("skill name"),
  description: shortText(1024),
  content: z
    .string()
    .max(100_000)
    .refine((c) => c.trim().length > 0, { error: "must not be empty" })
    .refine((c) => !/^\uFEFF?---\r?\n/.test(c), {
      error: "must be the SKILL.md body only; name and description come from their own fields",
    }),
});
/** A skill carried inline: the fields become SKILL.md front matter, `content` its body. */
export type InlineSkill = z.infer<typeof InlineSkillSchema>;

const harnessName = z.string().transform((name, ctx): HarnessKey => {
  const key = name.trim().toLowerCase().replaceAll("_", "-");
  const parsed = HarnessKeySchema.safeParse(key);
  if (parsed.success) return parsed.data;
  ctx.addIssue({
    code: "custom",
    message: `names unknown harness "${name}"; use one of ${HARNESS_KEYS.join(", ")}`,
  });
  return z.NEVER;
});

function uniqueNames(what: string) {
  return (items: { name: string }[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.name)) {
        ctx.addIssue({
          code: "custom",
          path: [i, "name"],
          message: `repeats the ${what} name "${item.name}"`,
        });
      }
      seen.add(item.name);
    });
  };
}

const AgentDefinitionObject = z.strictObject({
  name: slug("name"),
  /** The publisher's user handle unless given; the registry fills it in. */
  namespace: slug("namespace").optional(),
  version: z.string().regex(SEMVER, {
    error: 'must be a semantic version such as "1.0.0" or "1.1.0-beta.1"',
  }),
  description: z.string().max(2000).default(""),
  prompt: z
    .string()
    .max(100_000)
    .refine((p) => p.trim().length > 0, { error: "must not be empty" }),
  mcp_servers: z.array(McpServerSchema).max(64).default([]).superRefine(uniqueNames("server")),
  skills: z.array(InlineSkillSchema).max(64).default([]).superRefine(uniqueNames("skill")),
  /** Empty means every harness. */
  supported_harnesses: z
    .array(harnessName)
    .default([])
    .transform((keys) => [...new Set(keys)]),
  model_name: shortText(200).optional(),
  models_by_harness: z
    .record(z.string(), shortText(200))
    .transform((models, ctx) => {
      const out: Partial<Record<HarnessKey, string>> = {};
      for (const [name, model] of Object.entries(models)) {
        const key = harnessName.safeParse(name);
        if (key.success) out[key.data] = model;
        else ctx.addIssue({ code: "custom", path: [name], message: key.error.issues[0].message });
      }
      return out;
    })
    .optional(),
  /** Example tasks, used by search and by callers deciding whether to delegate. */
  representative_queries: z.array(shortText(500)).max(20).optional(),
  tags: z.array(shortText(64)).max(32).optional(),
  capabilities: z.array(shortText(200)).max(32).optional(),
});

/** Accepts `external_mcps` (the older key) as an alias of `mcp_servers`. */
function renameAlias(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  if (!("external_mcps" in record) || "mcp_servers" in record) return value;
  const { external_mcps, ...rest } = record;
  return { ...rest, mcp_servers: external_mcps };
}

/** The portable agent definition; strict: unknown keys are refused. */
export const AgentDefinitionSchema = z.preprocess(renameAlias, AgentDefinitionObject);
/** The portable agent definition, after defaults are applied. */
export type AgentDefinition = z.infer<typeof AgentDefinitionSchema>;

/**
 * Validates an agent definition that is already a JS value (for example a JSON body).
 *
 * @param value the decoded definition
 * @returns the definition with defaults applied and harness names normalised
 * @throws {ObservalError} INVALID_AGENT naming each offending field
 *
 * @example
 * ```ts
 * const agent = parseAgentDefinition({ name: "reviewer", version: "1.0.0", prompt: "Review." });
 * agent.mcp_servers; // []
 * ```
 */
export function parseAgentDefinition(value: unknown): AgentDefinition {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ObservalError("INVALID_AGENT", "An agent definition must be a mapping of fields", {
      remediation: "Write the agent as a YAML mapping with at least name, version and prompt",
    });
  }
  const record = value as Record<string, unknown>;
  const aliased = "external_mcps" in record && !("mcp_servers" in record);
  if ("external_mcps" in record && "mcp_servers" in record) {
    throw new ObservalError(
      "INVALID_AGENT",
      'The agent definition sets both "mcp_servers" and its alias "external_mcps"',
      { remediation: 'Move every server under "mcp_servers" and delete "external_mcps"' },
    );
  }
  const input = renameAlias(value);
  const parsed = AgentDefinitionSchema.safeParse(input);
  if (parsed.success) return parsed.data;

  const issues = parsed.error.issues.map((issue) => {
    // Report the key the author actually wrote.
    const path = aliased && issue.path[0] === "mcp_servers"
      ? ["external_mcps", ...issue.path.slice(1)]
      : issue.path;
    const shown = { ...issue, path } as z.core.$ZodIssue;
    // For unknown keys the interesting place is the key itself, not its parent.
    const at = issue.code === "unrecognized_keys" ? [...path, issue.keys[0]] : path;
    return { path: at, text: describeIssue(shown, value, "the agent definition") };
  });
  const shown = issues.slice(0, 5).map((i) => i.text);
  const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : "";
  throw new ObservalError("INVALID_AGENT", `Invalid agent definition: ${shown.join("; ")}${more}`, {
    remediation: "Correct or remove the fields named above and try again",
    resource: formatPath(issues[0].path) || undefined,
  });
}

// prettyErrors appends the position and a code excerpt; we report the position ourselves.
function firstLine(message: string): string {
  return message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
}

/**
 * Parses and validates `observal-agent.yaml` text. The text is limited to 256 KiB, must
 * hold a single YAML mapping, and may not expand aliases beyond a small budget (so an
 * alias bomb is refused rather than expanded).
 *
 * @param text the YAML source
 * @returns the validated definition
 * @throws {ObservalError} INVALID_AGENT for oversized, malformed or invalid definitions
 *
 * @example
 * ```ts
 * const agent = parseAgentYaml("name: reviewer\nversion: 1.0.0\nprompt: Review the diff.\n");
 * agent.name; // "reviewer"
 * ```
 */
export function parseAgentYaml(text: string): AgentDefinition {
  const bytes = utf8Length(text);
  if (bytes > MAX_AGENT_YAML_BYTES) {
    throw new ObservalError(
      "INVALID_AGENT",
      `The agent definition is ${bytes} bytes, more than the ${MAX_AGENT_YAML_BYTES} allowed`,
      { remediation: "Move long reference material into skills or shorten the prompt" },
    );
  }
  if (!text.trim()) {
    throw new ObservalError("INVALID_AGENT", "The agent definition is empty", {
      remediation:
        "Write at least name, version and prompt (see examples/agent/observal-agent.yaml)",
    });
  }
  const depth = flowDepth(text);
  if (depth > MAX_AGENT_YAML_DEPTH) throw tooDeep(`${depth} levels`);
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, logLevel: "error" });
  } catch (err) {
    if (err instanceof RangeError) throw tooDeep("too many levels", err);
    throw err;
  }
  const failure = doc.errors[0];
  // The parser reports its own stack overflow as a syntax error.
  if (failure && /call stack/i.test(failure.message)) throw tooDeep("too many levels", failure);
  if (failure) {
    const line = failure.linePos?.[0];
    const at = line ? ` at line ${line.line}, column ${line.col}` : "";
    if (failure.code === "MULTIPLE_DOCS") {
      throw new ObservalError(
        "INVALID_AGENT",
        `The agent definition holds more than one YAML document`,
        {
          remediation: `Keep one document: remove the "---" separator${at} and what follows`,
        },
      );
    }
    throw new ObservalError(
      "INVALID_AGENT",
      `The agent definition is not valid YAML${at}: ${firstLine(failure.message)}`,
      { remediation: "Fix the YAML syntax at that position and try again" },
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    if (err instanceof RangeError) throw tooDeep("too many levels", err);
    const detail = errorMessage(err);
    throw new ObservalError(
      "INVALID_AGENT",
      `The agent definition uses YAML aliases too heavily to expand safely: ${detail}`,
      {
        remediation: "Write the repeated values out instead of using anchors and aliases",
        cause: err,
      },
    );
  }
  try {
    return parseAgentDefinition(value);
  } catch (err) {
    // Deep values that parsed can still be too deep to check (zod recurses too).
    if (err instanceof RangeError) throw tooDeep("too many levels", err);
    throw err;
  }
}

function tooDeep(depth: string, cause?: unknown): ObservalError {
  return new ObservalError(
    "INVALID_AGENT",
    `The agent definition nests ${depth} deep; at most ${MAX_AGENT_YAML_DEPTH} are accepted`,
    {
      remediation: "Flatten the nested lists and mappings: no agent field needs that depth",
      ...(cause === undefined ? {} : { cause }),
    },
  );
}
