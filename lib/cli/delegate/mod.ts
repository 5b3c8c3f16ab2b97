/**
 * `observal delegate`: hand a task to an approved agent and follow it. This is the group's
 * table; each command lives in its own module, imported when it runs.
 * @module
 */
import { type Group, lazy } from "../command.ts";

/** The `delegate` command group. */
export const delegateGroup: Group = {
  name: "delegate",
  summary: "Hand a task to another approved agent (registry or remote A2A)",
  commands: [
    lazy(
      "find",
      "Find approved agents for a task",
      async () => (await import("./find.ts")).findCommand,
    ),
    lazy(
      "run",
      "Delegate a task to an agent and wait for the result",
      async () => (await import("./run.ts")).runCommand,
    ),
    lazy(
      "status",
      "Show a delegated task",
      async () => (await import("./status.ts")).statusCommand,
    ),
    lazy(
      "reply",
      "Answer a remote agent that asked for input",
      async () => (await import("./reply.ts")).replyCommand,
    ),
    lazy(
      "diff",
      "Show the changes a delegated task returned",
      async () => (await import("./diff.ts")).diffCommand,
    ),
    lazy(
      "apply",
      "Apply the changes a delegated task returned to your repository",
      async () => (await import("./apply.ts")).applyCommand,
    ),
    lazy(
      "list",
      "List delegated tasks, newest first",
      async () => (await import("./list.ts")).listCommand,
    ),
    lazy(
      "logs",
      "Show the end of a delegated task's logs",
      async () => (await import("./logs.ts")).logsCommand,
    ),
    lazy(
      "cancel",
      "Cancel a delegated task",
      async () => (await import("./cancel.ts")).cancelCommand,
    ),
    lazy(
      "prune",
      "Delete settled tasks older than some days, with their logs",
      async () => (await import("./prune.ts")).pruneCommand,
    ),
    lazy(
      "recover",
      "Rebuild a lost or damaged task store from the task folders and what can be read",
      async () => (await import("./recover.ts")).recoverCommand,
    ),
    lazy(
      "mcp",
      "Serve the observal-agents MCP server on stdio (harnesses start it)",
      async () => (await import("./mcp.ts")).mcpCommand,
    ),
    lazy(
      "worker",
      "Run one delegated task (started by observal itself)",
      async () => (await import("./worker.ts")).workerCommand,
      { hidden: true },
    ),
    lazy(
      "resident",
      "Keep observal loaded for the next delegate runs (started by observal itself)",
      async () => (await import("./resident.ts")).residentCommand,
      { hidden: true },
    ),
  ],
};
