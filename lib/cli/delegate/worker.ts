/**
 * `observal delegate worker TASK_ID`: the detached process that runs one task. It loads the
 * task store, the registry client and, once it has read the task, the runner it needs,
 * and nothing else: no delegation service, no MCP, no harness renderers for a remote task.
 * @module
 */
import { runWorker } from "../../runner/worker/mod.ts";
import type { RegistryClient } from "../../registry/mod.ts";
import { openTaskStore } from "../../store/mod.ts";
import type { Command } from "../command.ts";
import { openRegistryClient } from "../open_registry_client.ts";

/** `observal delegate worker TASK_ID` (started by observal itself). */
export const workerCommand: Command = {
  name: "worker",
  summary: "Run one delegated task (started by observal itself)",
  args: ["task-id"],
  hidden: true,
  async run(inv, ctx) {
    const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
    let client: RegistryClient | undefined;
    try {
      return await runWorker(
        { ctx, store, registry: () => (client ??= openRegistryClient(ctx)) },
        inv.args["task-id"],
      );
    } finally {
      client?.close();
      store.close();
    }
  },
};
