/** `observal delegate mcp`: the observal-agents MCP server that harnesses start. */
import { type Context, ObservalError, VERSION } from "../../core/mod.ts";
import { type Command, str } from "../command.ts";
import { note } from "../output.ts";
import { harnessKey } from "./_follow.ts";
import { withService } from "./_service.ts";

/**
 * The caller's harness as a known key. An unknown name is kept as given (with a warning)
 * rather than refused: it only labels the caller, and a server that fails to start leaves
 * the agent with no way to delegate at all.
 */
async function callerHarness(ctx: Context, raw: string | undefined): Promise<string | undefined> {
  const name = raw?.trim();
  if (!name) return undefined;
  try {
    return await harnessKey(name);
  } catch (err) {
    if (!(err instanceof ObservalError)) throw err;
    note(ctx, `observal-agents: unknown harness "${name}"; using it as given`);
    return name;
  }
}

/** `observal delegate mcp`: the observal-agents MCP server on stdio. */
export const mcpCommand: Command = {
  name: "mcp",
  summary: "Serve the observal-agents MCP server on stdio (harnesses start it)",
  flags: {
    harness: {
      type: "string",
      value: "HARNESS",
      description: "Harness the calling agent runs in (default: $OBSERVAL_HARNESS)",
    },
    "parent-id": {
      type: "string",
      value: "AGENT_ID",
      description: "Registry agent id of the calling agent (default: $OBSERVAL_AGENT_ID)",
    },
  },
  details: `Tools: find_agents, delegate, get_task, cancel_task. Stdout carries only MCP messages;
logs go to stderr. The server stops when the client closes its stdin.`,
  async run(inv, ctx) {
    const harness = await callerHarness(ctx, str(inv, "harness") ?? ctx.env.OBSERVAL_HARNESS);
    const agentId = str(inv, "parent-id")?.trim() || undefined;
    // The protocol owns stdout: whatever else this session might print goes to stderr.
    const io = { ...ctx.io, stdout: ctx.io.stderr, isTTY: false, color: false };
    // Loaded here: the MCP SDK is the heaviest import, and no other command needs it.
    const { createAgentsServer, serveStdio } = await import("../../mcp/mod.ts");
    await withService({ ...ctx, io }, ({ service }) =>
      serveStdio(createAgentsServer({
        service,
        caller: service.caller({ harness, agentId }),
        clock: ctx.clock,
        version: VERSION,
        stderr: ctx.io.stderr,
      })));
    note(ctx, "observal-agents: the client disconnected; stopped");
  },
};
