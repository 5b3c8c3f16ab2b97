/** `observal delegate find`. */
import { type Command, int } from "../command.ts";
import { note, paint, printList, printTable, say } from "../output.ts";
import { anonymousHint } from "../open_registry_client.ts";
import { clip } from "../clip.ts";
import { withService } from "./_service.ts";

/** `observal delegate find WORDS...`. */
export const findCommand: Command = {
  name: "find",
  summary: "Find approved agents for a task",
  args: ["words"],
  variadic: true,
  flags: {
    limit: { type: "string", short: "n", value: "N", description: "How many (1-10)", default: "5" },
  },
  details: `With --json: {"items": [...], "total": N}; each item has identifier (what
\`observal delegate run\` takes), name, kind (agent or a2a), description, score, version,
harnesses, ref, delegable and, when it cannot run here, unavailable.`,
  async run(inv, ctx) {
    const text = [inv.args.words, ...inv.rest].join(" ");
    const limit = int(inv, "limit", 1, 10);
    // Run by an agent (its delegation variables set), not itself nor an agent above it.
    const agents = await withService(
      ctx,
      ({ service }) => service.find(text, limit, { caller: service.caller() }),
    );
    const hint = agents.length === 0 ? anonymousHint(ctx) : undefined;
    if (hint) note(ctx, paint("dim", hint));
    if (inv.json) return printList(ctx, agents, agents.length);
    if (agents.length === 0) return say(ctx, "No approved agent matches that task.");
    say(ctx, `Agents for: ${text}`);
    printTable(
      ctx,
      ["AGENT", "KIND", "SCORE", "IDENTIFIER"],
      agents.map((a) => [clip(a.name, 32), a.kind, String(a.score ?? ""), a.identifier]),
    );
    for (const a of agents.filter((a) => !a.delegable)) {
      say(ctx, paint("dim", `${a.name} cannot run on this machine: ${a.unavailable}.`));
    }
  },
};
