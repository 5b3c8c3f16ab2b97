/**
 * `observal a2a`: registry Agents as A2A agents. This is the group's table; each command's
 * module is imported when the command runs.
 * @module
 */
import { type Group, lazy } from "../command.ts";

/** The `a2a` command group. */
export const a2aGroup: Group = {
  name: "a2a",
  summary: "Serve approved registry Agents to any A2A client",
  commands: [
    lazy(
      "serve",
      "Serve approved registry Agents over A2A (v1.0 and v0.3 JSON-RPC)",
      async () => (await import("./serve.ts")).serveCommand,
    ),
  ],
};
