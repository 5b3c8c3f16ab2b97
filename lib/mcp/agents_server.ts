/**
 * The `observal-agents` MCP server: four tools over the delegation service, so an agent in
 * any harness can find a specialist, hand it a part of its task and collect the result.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Part, Task } from "../a2a/mod.ts";
import type { Clock, Writer } from "../core/mod.ts";
import { ObservalError } from "../core/mod.ts";
import { hostStream } from "../core/system/mod.ts";
import type { Caller, DelegationService } from "../delegation/mod.ts";
import { cancelTaskInput, delegateInput, findAgentsInput, getTaskInput } from "./_inputs.ts";
import { toolResult } from "./_tool_result.ts";
import { type Tool, ToolServer } from "./tool_server.ts";

/** The name every harness config knows this server by. */
export const AGENTS_SERVER_NAME = "observal-agents";

/** What the tools work with. */
export interface AgentsServerWork {
  /** Does the work; the server only translates. */
  service: DelegationService;
  /** Who delegates: fixed for the session (harness, parent agent, depth, chain). */
  caller: Caller;
}

/**
 * What {@linkcode createAgentsServer} needs: the service and the caller, or `open`, which
 * makes them on the first tool call. A harness starts the server at the start of every
 * session and lists its tools at once; with `open`, that handshake loads nothing of the
 * delegation service, the task store or the registry.
 */
export type AgentsServerOptions =
  & AgentsServerCommon
  & (AgentsServerWork | {
    /** Makes the service and the caller; called once, by the first tool call. */
    open(): Promise<AgentsServerWork>;
    /**
     * Loads the code the first call runs, opening nothing; started when the handshake is
     * over, so that call finds it loaded. A failure here is left for that call to meet.
     */
    prepare?(): Promise<unknown>;
  });

/** The options every server takes. */
export interface AgentsServerCommon {
  /** Marks when each tool call began, so its wait budget includes lookup and launch. */
  clock: Clock;
  /** Reported as the server's version. */
  version: string;
  /** Where unexpected failures are logged. @default the process's stderr */
  stderr?: Writer;
}

/** How a tool is advertised in `tools/list`. */
interface ToolConfig<Shape extends z.ZodRawShape> {
  title: string;
  description: string;
  inputSchema: Shape;
  annotations?: ToolAnnotations;
}

const INSTRUCTIONS =
  `observal-agents lets you hand part of your task to an approved specialist agent.
When a self-contained piece of work would be done better by a specialist, call find_agents with \
a short description of it, then delegate to one of the identifiers it returns.
The delegated agent does not see this conversation: its message must be a complete brief (goal, \
context, relevant files, constraints, and what to return).
Registry agents work in a throwaway copy of the repository; their file changes come back as a \
patch for you to review. Nothing is applied to your repository automatically.
A call returns after at most 50 seconds; if the task is still running, follow it with get_task.`;

const NO_MATCH = "No approved agent in the registry matches that task. Do it yourself.";

/**
 * Builds the `observal-agents` server with its tools: `find_agents`, `delegate`, `get_task`
 * and `cancel_task`. Connect it to a transport to serve it. Arguments that do not fit a
 * tool's schema get a JSON-RPC -32602 error with a one-line message; refusals from the
 * service become `isError` results that say what to do next.
 *
 * @param options the service and the caller (or how to open them), and the clock the tools use
 * @returns a server not yet connected
 *
 * @example
 * ```ts ignore
 * const server = createAgentsServer({ service, caller, clock: systemClock, version: VERSION });
 * await serveStdio(server);
 * ```
 */
export function createAgentsServer(options: AgentsServerOptions): ToolServer {
  const { clock } = options;
  let opened: Promise<AgentsServerWork> | undefined;
  const open = () =>
    opened ??= "open" in options
      // A failure to open (a damaged store, say) is tried again by the next call, so the
      // session recovers once the cause is fixed.
      ? options.open().catch((err) => {
        opened = undefined;
        throw err;
      })
      : Promise.resolve({ service: options.service, caller: options.caller });
  const stderr = options.stderr ?? hostStream("stderr");

  const tools: Tool[] = [];
  /**
   * Declares a tool: its listing, its arguments' schema and its work, typed by one shape.
   * The work gets the service and the caller, when the call began (its wait budget
   * includes opening the service) and the call's signal, which aborts when the client
   * cancels the call or goes away: the work passes it to everything it waits on. It
   * answers with text, or with a task to summarise (the summary, and the A2A task model it
   * reads, load with the first call).
   */
  function addTool<Shape extends z.ZodRawShape>(
    name: string,
    config: ToolConfig<Shape>,
    work: (
      args: z.output<z.ZodObject<Shape>>,
      at: AgentsServerWork & { since: Date; signal: AbortSignal },
    ) => Promise<string | Task>,
  ): void {
    const { inputSchema, ...listed } = config;
    tools.push({
      name,
      ...listed,
      input: z.object(inputSchema),
      // The arguments passed `input`, which is built from `Shape`.
      run: (args, { signal }) =>
        toolResult(name, stderr, signal, async () => {
          const since = clock.now();
          const opened = await open();
          signal.throwIfAborted();
          const out = await work(args as z.output<z.ZodObject<Shape>>, {
            ...opened,
            since,
            signal,
          });
          return typeof out === "string" ? out : (await import("./summarize.ts")).summarize(out);
        }),
    });
  }

  addTool("find_agents", {
    title: "Find agents",
    description: "List approved agents that could take a self-contained part of your task, " +
      "best match first. Pass an identifier from the result to delegate.",
    inputSchema: findAgentsInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async (args, { service, caller, signal }) => {
    // Not itself, nor an agent above it: the cycle guard would refuse those.
    const agents = await service.find(args.task, args.limit, { signal, caller });
    if (agents.length > 0) return JSON.stringify({ agents }, null, 2);
    const access = service.registryAccess();
    // An anonymous caller sees public agents only: an empty answer may mean "not signed in".
    if (access.kind === "remote" && !access.signedIn) {
      return `No agent matched, but observal-agents is not signed in to the registry at ${access.url}, ` +
        "so it sees only public agents. Ask the user to set OBSERVAL_API_KEY in the env of the " +
        "observal-agents entry in this harness's MCP config (or api_key in " +
        "$OBSERVAL_HOME/config.json) and restart the session. Meanwhile, do this part yourself.";
    }
    return NO_MATCH;
  });

  addTool("delegate", {
    title: "Delegate",
    description: "Hand a self-contained task to an agent from find_agents, or answer a task " +
      "that asked for input (pass its task_id, and your answer as message, as data, or " +
      "both). The message must be a complete brief: the " +
      "agent does not see this conversation. Registry agents work in a throwaway copy; file " +
      "changes come back as a patch that is NOT applied. Returns the task's state and results.",
    inputSchema: delegateInput,
  }, async (args, { service, caller, since, signal }) => {
    const waitSeconds = args.wait_seconds;
    if (args.task_id) {
      const parts: Part[] = args.message.trim() ? [{ text: args.message }] : [];
      if (args.data !== undefined) parts.push({ data: args.data });
      return await service.reply(args.task_id, parts, { waitSeconds, since, signal });
    }
    if (args.data !== undefined) {
      throw new ObservalError("INVALID_ARGUMENT", "`data` answers a task; it cannot start one", {
        remediation: "Pass `task_id` with `data` to answer a task that asked for input, or " +
          "put everything the agent needs in `message`",
      });
    }
    if (!args.agent) {
      throw new ObservalError("INVALID_ARGUMENT", "delegate needs an agent to start a task", {
        remediation: "Pass the agent identifier from find_agents (urn:air:...) as `agent`, " +
          "or pass `task_id` to answer a task that is waiting for input",
      });
    }
    return await service.start(args.agent, args.message, { caller, waitSeconds, since, signal });
  });

  addTool("get_task", {
    title: "Get task",
    description: "Show a delegated task's state and results; with wait_seconds, wait for it " +
      "to finish first.",
    inputSchema: getTaskInput,
    annotations: { readOnlyHint: true },
  }, async (args, { service, since, signal }) => {
    return await service.wait(args.task_id, args.wait_seconds, { since, signal });
  });

  addTool("cancel_task", {
    title: "Cancel task",
    description: "Cancel a delegated task you no longer need. Returns its final state.",
    inputSchema: cancelTaskInput,
    annotations: { destructiveHint: true, idempotentHint: true },
  }, async (args, { service, signal }) => await service.cancel(args.task_id, { signal }));

  // While the model decides on its first call, the code for it loads.
  const onListed = () => {
    const loads = [
      import("./summarize.ts"),
      "prepare" in options ? options.prepare?.() : undefined,
    ];
    for (const load of loads) load?.catch(() => {/* the call that needs it reports it */});
  };
  return new ToolServer(
    { name: AGENTS_SERVER_NAME, version: options.version },
    { instructions: INSTRUCTIONS, tools, onListed },
  );
}
