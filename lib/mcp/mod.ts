/**
 * The `observal-agents` MCP server that every pulled agent gets: `find_agents`, `delegate`,
 * `get_task` and `cancel_task` over the delegation service, served on stdio by
 * `observal delegate mcp`.
 *
 * @example
 * ```ts ignore
 * import { createAgentsServer, serveStdio } from "./mod.ts";
 *
 * const server = createAgentsServer({ service, caller, clock: systemClock, version: VERSION });
 * await serveStdio(server); // until the client disconnects
 * ```
 * @module
 */
export {
  AGENTS_SERVER_NAME,
  type AgentsServerCommon,
  type AgentsServerOptions,
  type AgentsServerWork,
  createAgentsServer,
} from "./agents_server.ts";
export { DEFAULT_TOOL_WAIT_SECONDS, MAX_TOOL_WAIT_SECONDS } from "./_inputs.ts";
export {
  CLOSE_GRACE_MS,
  type ServeOutcome,
  serveStdio,
  type ServeStdioOptions,
} from "./serve_stdio.ts";
export {
  type ByteReader,
  type ByteWriter,
  MAX_LINE_BYTES,
  StdioTransport,
  type StdioTransportOptions,
} from "./stdio_transport.ts";
export {
  type MessageTransport,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
  ToolServer,
  type ToolServerOptions,
} from "./tool_server.ts";
