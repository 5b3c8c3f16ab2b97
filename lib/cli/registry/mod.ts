/** `observal registry`: the embedded registry and the client for any registry. */
import type { Group } from "../command.ts";
import { a2aGroup } from "./a2a.ts";
import { adminGroups } from "./admin.ts";
import { agentGroup } from "./agent.ts";
import { inspectCommand, searchCommand } from "./search.ts";
import { serveCommand } from "./serve.ts";

export const registryGroup: Group = {
  name: "registry",
  summary: "Search, publish and govern agents in the registry",
  details: `Without a configured server (OBSERVAL_SERVER_URL, or server_url in
$OBSERVAL_HOME/config.json) commands use the embedded registry in $OBSERVAL_HOME/registry.db
as its local admin.`,
  commands: [searchCommand, inspectCommand, agentGroup, a2aGroup, ...adminGroups, serveCommand],
};
