/**
 * `observal agent`: install registry agents into the harnesses on this machine. This is the
 * group's table; `pull` lives in its own module, imported when it runs.
 * @module
 */
import { type Group, lazy } from "../command.ts";

/** The `agent` command group. */
export const agentGroup: Group = {
  name: "agent",
  summary: "Install registry agents into your harnesses",
  commands: [
    lazy(
      "pull",
      "Install an approved registry agent into a harness's config files",
      async () => (await import("./pull.ts")).pullCommand,
    ),
  ],
};
