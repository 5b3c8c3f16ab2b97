/**
 * The `config_snippet` an install returns: the files (and commands) that put one agent
 * into one harness. Paths are relative to the target directory, or start with `~/` for
 * the user's home; the writer resolves them.
 *
 * The schemas are built on first use (`z.lazy`): the registry client's wire schemas name
 * them, and every search would otherwise pay to build what only an install reads.
 * @module
 */
import { z } from "zod";
import { ScopeSchema } from "./scope.ts";

/** A stdio MCP server entry in the standard JSON shape. */
export const StdioMcpEntrySchema = z.lazy(() =>
  z.looseObject({
    command: z.string().min(1),
    args: z.array(z.string()),
    env: z.record(z.string(), z.string()),
  })
);
/** A stdio MCP server entry in the standard JSON shape. */
export type StdioMcpEntry = z.infer<typeof StdioMcpEntrySchema>;

/** One file to write: text is written as is, an object is serialised (JSON, TOML or YAML by extension) and merged where the writer merges. */
export const SnippetFileSchema = z.lazy(() =>
  z.strictObject({
    path: z.string().min(1),
    content: z.union([z.string(), z.record(z.string(), z.unknown())]),
  })
);
/** One file to write. */
export type SnippetFile = z.infer<typeof SnippetFileSchema>;

/**
 * What an install asks the writer to do. Unknown keys are kept (a newer server may send
 * keys this version does not write yet).
 */
export const ConfigSnippetSchema = z.lazy(() =>
  z.looseObject({
    /** The agent file. */
    agent_profile: SnippetFileSchema.optional(),
    /**
     * The MCP config file to merge, `{path, content: {<mcp_servers_key>: {...}}}`; for Claude
     * Code a plain name → entry map with no path, which is not written (servers are
     * registered by `mcp_setup_commands`, and headless runs pass it with `--mcp-config`).
     */
    mcp_config: z.union([SnippetFileSchema, z.record(z.string(), StdioMcpEntrySchema)]).optional(),
    /** Commands (argv, no shell) that register MCP servers with the harness. */
    mcp_setup_commands: z.array(z.array(z.string()).min(1)).optional(),
    /** Skill files (`.../<skill>/SKILL.md`). */
    skills: z.array(SnippetFileSchema).optional(),
    scope: ScopeSchema,
  })
);
/** What an install asks the writer to do. */
export type ConfigSnippet = z.infer<typeof ConfigSnippetSchema>;
