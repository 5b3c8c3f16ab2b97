/**
 * `observal config`: the settings in `$OBSERVAL_HOME/config.json`. This is the group's
 * table; the commands live in config.ts, imported when one runs.
 * @module
 */
import { commandIn, type Group, lazy } from "../command.ts";

const command = (name: string) => async () =>
  commandIn([(await import("./config.ts")).configGroup], "config", name);

/** The `config` command group. */
export const configGroup: Group = {
  name: "config",
  summary: "Show and change settings (server_url, api_key, sandbox, launcher)",
  details: `Settings live in $OBSERVAL_HOME/config.json (readable by you alone);
OBSERVAL_SERVER_URL, OBSERVAL_API_KEY and OBSERVAL_SANDBOX win over them when set.`,
  commands: [
    lazy("list", "Show every setting, its value and where it comes from", command("list")),
    lazy("get", "Print one setting's value", command("get")),
    lazy("set", "Store a setting in config.json", command("set")),
    lazy("unset", "Remove a setting from config.json", command("unset")),
  ],
};
