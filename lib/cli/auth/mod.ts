/**
 * `observal auth`: sign in to an Observal server. This is the group's table; the commands
 * live in auth.ts, imported when one runs.
 * @module
 */
import { commandIn, type Group, lazy } from "../command.ts";

const command = (name: string) => async () =>
  commandIn([(await import("./auth.ts")).authGroup], "auth", name);

/** The `auth` command group. */
export const authGroup: Group = {
  name: "auth",
  summary: "Sign in to an Observal server, and see who you are signed in as",
  commands: [
    lazy("login", "Sign in to an Observal server with an API key", command("login")),
    lazy("status", "Show which server you use and who you are signed in as", command("status")),
    lazy("logout", "Remove the saved API key", command("logout")),
  ],
};
