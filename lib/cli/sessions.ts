/**
 * `observal sessions attribute`: which delegated agent, and which version, a harness
 * session belongs to. Session uploads and hooks ask this first, so a delegated child's
 * session is attributed to the agent that ran it, also after its workspace is gone.
 * @module
 */
import { resolve } from "node:path";
import { openTaskStore } from "../store/mod.ts";
import { attributeSession } from "../telemetry/mod.ts";
import { type Command, str } from "./command.ts";
import { printJson, say } from "./output.ts";

/** `observal sessions attribute`. */
export const attributeCommand: Command = {
  name: "attribute",
  summary: "Say which delegated agent a harness session belongs to",
  flags: {
    cwd: { type: "string", value: "DIR", description: "The session's working directory" },
    "session-id": { type: "string", value: "ID", description: "The session's id" },
    "parent-session-id": {
      type: "string",
      value: "ID",
      description: "The id of the session that started it (a subagent's parent)",
    },
  },
  details: `Looks at the session id, then the parent session id, then whether the directory lies in
a delegated workspace. Prints nothing (exit 0) for a session that is not a delegated one; with
--json, {"attributed": false}.`,
  run(inv, ctx) {
    const cwd = str(inv, "cwd");
    const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
    try {
      const found = attributeSession(store, {
        home: ctx.home,
        cwd: cwd === undefined ? undefined : resolve(ctx.cwd, cwd),
        sessionId: str(inv, "session-id"),
        parentSessionId: str(inv, "parent-session-id"),
      });
      if (inv.json) {
        return printJson(ctx, found ? { attributed: true, ...found } : { attributed: false });
      }
      if (!found) return;
      say(ctx, `${found.target}${found.version ? `@${found.version}` : ""}`);
      say(ctx, `agent ${found.agentId}, task ${found.taskId}, matched by ${found.matchedBy}`);
    } finally {
      store.close();
    }
  },
};
