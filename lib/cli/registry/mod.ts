/**
 * `observal registry`: the embedded registry and the client for any registry. This is the
 * group's table; each command's module is imported when the command runs.
 * @module
 */
import { commandIn, type Group, lazy } from "../command.ts";

const a2a = (name: string) => async () =>
  commandIn([(await import("./a2a.ts")).a2aGroup], "a2a", name);
const agent = (name: string) => async () =>
  commandIn([(await import("./agent.ts")).agentGroup], "agent", name);
const admin = (group: string, name: string) => async () =>
  commandIn((await import("./admin.ts")).adminGroups, group, name);

/** The `registry` command group. */
export const registryGroup: Group = {
  name: "registry",
  summary: "Search, publish and govern agents in the registry",
  details: `Without a configured server (OBSERVAL_SERVER_URL, or server_url in
$OBSERVAL_HOME/config.json) commands use the embedded registry in $OBSERVAL_HOME/registry.db
as its local admin.`,
  commands: [
    lazy("search", "Search the registry", async () => (await import("./search.ts")).searchCommand),
    lazy(
      "inspect",
      "Show one registry entry in full",
      async () => (await import("./search.ts")).inspectCommand,
    ),
    {
      name: "agent",
      summary: "Publish and review registry Agents",
      commands: [
        lazy("publish", "Publish an agent file (observal-agent.yaml) for review", agent("publish")),
        lazy("list", "List registry Agents you can see", agent("list")),
        lazy("inspect", "Show an agent, its state and its digest", agent("inspect")),
        lazy("show", "Show an agent (same as inspect)", agent("show"), { hidden: true }),
        lazy("review", "Approve or reject a published agent version", agent("review")),
        lazy("remove", "Remove a registry Agent with all its versions", agent("remove")),
        lazy(
          "install",
          "Print the configuration an agent installs for a harness (writes nothing)",
          agent("install"),
        ),
      ],
    },
    {
      name: "a2a",
      summary: "Register and review remote A2A agents",
      commands: [
        lazy(
          "submit",
          "Register remote agents by an Agent Card URL, or all an ARD manifest lists",
          a2a("submit"),
        ),
        lazy("list", "List registered remote agents you can see", a2a("list")),
        lazy("inspect", "Show a registered card and its digest", a2a("inspect")),
        lazy("review", "Approve or reject a registered card", a2a("review")),
        lazy("remove", "Remove a registered card", a2a("remove")),
      ],
    },
    {
      name: "user",
      summary: "Manage registry users and their API keys",
      commands: [
        lazy("add", "Create a user and print their API key (shown once)", admin("user", "add")),
        lazy("key", "Issue another API key for a user", admin("user", "key")),
        lazy("list", "List users", admin("user", "list")),
      ],
    },
    {
      name: "team",
      summary: "Manage teams and their members",
      commands: [
        lazy("add", "Create a team", admin("team", "add")),
        lazy("list", "List teams", admin("team", "list")),
        lazy(
          "member",
          "Add a user to a team, or change their team role",
          admin("team", "member"),
        ),
        lazy("remove-member", "Remove a user from a team", admin("team", "remove-member")),
      ],
    },
    {
      name: "settings",
      summary: "Show or change registry settings",
      commands: [
        lazy("list", "Show every setting with its value", admin("settings", "list")),
        lazy("get", "Print one setting", admin("settings", "get")),
        lazy("set", "Change one setting", admin("settings", "set")),
      ],
    },
    lazy(
      "serve",
      "Serve the embedded registry over HTTP",
      async () => (await import("./serve.ts")).serveCommand,
    ),
  ],
};
