/** `observal agent`: install registry agents into the harnesses on this machine. */
import type { Group } from "../command.ts";
import { pullCommand } from "./pull.ts";

/** The `agent` command group. */
export const agentGroup: Group = {
  name: "agent",
  summary: "Install registry agents into your harnesses",
  commands: [pullCommand],
};
