/**
 * `observal mcp`: wire the observal-agents MCP server into a harness. This is the group's
 * table; `install` lives in its own module, imported when it runs.
 * @module
 */
import { type Group, lazy } from "../command.ts";

/** The `mcp` command group. */
export const mcpGroup: Group = {
  name: "mcp",
  summary: "Wire the observal-agents MCP server into a harness",
  commands: [
    lazy(
      "install",
      "Add the observal-agents MCP server to a harness's config",
      async () => (await import("./install.ts")).installCommand,
    ),
  ],
};
