/**
 * A test A2A agent (`complete` behaviour: it answers `echo:<text>`) as a process of its own,
 * for places the test process cannot serve, such as a loopback network namespace:
 *
 * ```sh
 * deno run -A tests/support/a2a_agent_main.ts [--name NAME]
 * ```
 *
 * Prints `listening <card URL>` once serving, and exits on SIGTERM or SIGINT.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startV1Agent } from "./a2a_agents.ts";

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { name: { type: "string", default: "Echo Agent" } },
  });
  const agent = await startV1Agent({ name: values.name, behaviour: "complete" });
  const stop = async () => {
    await agent.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  console.log(`listening ${agent.cardUrl}`);
}
