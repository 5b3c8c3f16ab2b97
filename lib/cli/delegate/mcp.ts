/** `observal delegate mcp`: the observal-agents MCP server that harnesses start. */
import { type Context, ObservalError, VERSION } from "../../core/mod.ts";
import { exitNow } from "../../core/system/mod.ts";
import { type Command, str } from "../command.ts";
import { note } from "../output.ts";

/**
 * The caller's harness as a known key. An unknown name is kept as given (with a warning)
 * rather than refused: it only labels the caller, and a server that fails to start leaves
 * the agent with no way to delegate at all.
 */
async function callerHarness(ctx: Context, raw: string | undefined): Promise<string | undefined> {
  const name = raw?.trim();
  if (!name) return undefined;
  try {
    return (await import("../../harness/facts/mod.ts")).normalizeHarness(name);
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
    direct: {
      type: "boolean",
      description: "Serve from this process even inside a delegated workspace (the broker " +
        "outside a child's sandbox starts it so)",
    },
  },
  details: `Tools: find_agents, delegate, get_task, cancel_task. Stdout carries only MCP messages;
logs go to stderr. The server stops when the client closes its stdin: calls under way are
cancelled (a task already started keeps running), and it exits within a second.

Inside a delegated workspace (an agent's own run) it only relays to the broker that the
run keeps outside the agent's sandbox, which serves the tools there.`,
  async run(inv, ctx) {
    if (inv.flags.direct !== true) {
      const { agentsRoute, relayStdio } = await import("../../mcp/agents_relay.ts");
      const route = agentsRoute(ctx.env, ctx.cwd, ctx.home);
      if (route && "refuse" in route) {
        note(ctx, route.refuse);
        return 1;
      }
      if (route) {
        const relayed = await relayStdio(route.relay, { stderr: ctx.io.stderr });
        // stdin may still be open (the broker went first): nothing more is read from it.
        exitNow(relayed ? 0 : 1);
      }
    }
    const harness = await callerHarness(ctx, str(inv, "harness") ?? ctx.env.OBSERVAL_HARNESS);
    const agentId = str(inv, "parent-id")?.trim() || undefined;
    // The protocol owns stdout: whatever else this session might print goes to stderr.
    const io = { ...ctx.io, stdout: ctx.io.stderr, isTTY: false, color: false };
    const { createAgentsServer, serveStdio } = await import("../../mcp/mod.ts");
    // The store, the delegation service and the registry client open on the first tool
    // call, so the handshake a harness waits for at start-up loads none of them.
    let close: (() => void) | undefined;
    let drain: (() => Promise<void>) | undefined;
    let unfinished: number;
    try {
      ({ unfinished } = await serveStdio(createAgentsServer({
        open: async () => {
          const opened = (await import("./_service.ts")).openService({ ...ctx, io });
          close = opened.close;
          drain = () => opened.service.drain();
          return { service: opened.service, caller: opened.service.caller({ harness, agentId }) };
        },
        prepare: async () => (await import("./_service.ts")).loadServiceCode(ctx),
        clock: ctx.clock,
        version: VERSION,
        stderr: ctx.io.stderr,
      })));
    } finally {
      await drain?.();
      close?.();
    }
    note(ctx, "observal-agents: the client disconnected; stopped");
    // Every call was aborted and given a grace period; one that outlived it must not keep
    // the process (and its task store) alive after its client. A task it had created
    // already has its worker.
    if (unfinished > 0) {
      note(ctx, `observal-agents: ${unfinished} call(s) had not ended; exiting anyway`);
      exitNow(0);
    }
  },
};
