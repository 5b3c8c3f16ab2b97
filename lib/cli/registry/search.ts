/** `observal registry search` and `observal registry inspect`. */
import type { Context } from "../../core/mod.ts";
import type { EntryDocument, EntrySummary, SearchRequest } from "../../registry/mod.ts";
import { HARNESS_KEYS } from "../../harness/keys/mod.ts";
import { HARNESS_LIST, harnessFlag } from "../agent/harness_flag.ts";
import { choice, type Command, int, str } from "../command.ts";
import { note, paint, printJson, printList, printTable, say } from "../output.ts";
import { anonymousHint } from "../open_registry_client.ts";
import { signatureWords } from "../../a2a/ard_document.ts";
import { entryItem, printFields, stateColor, stateWords } from "./entry_item.ts";
import { clip, withClient } from "./_client.ts";

const TYPES = {
  agent: "application/vnd.observal.agent+json",
  a2a: "application/a2a-agent-card+json",
} as const;

export const searchCommand: Command = {
  name: "search",
  summary: "Search the registry",
  args: ["text"],
  variadic: true,
  flags: {
    type: { type: "string", value: "agent|a2a", description: "Only this kind of entry" },
    harness: {
      type: "string",
      value: "HARNESS",
      choices: HARNESS_KEYS,
      description: `Judge availability for a harness (${HARNESS_LIST})`,
    },
    limit: {
      type: "string",
      short: "n",
      value: "N",
      description: "Results per page (1-100)",
      default: "10",
    },
    "page-token": { type: "string", value: "TOKEN", description: "Continue a previous search" },
  },
  details: `With --json, prints {"items": [...], "total": N, "nextPageToken"?: "..."}; each item has
identifier, name, kind (agent or a2a), state, delegable, score and what else the registry knows.`,
  async run(inv, ctx) {
    const text = [inv.args.text, ...inv.rest].join(" ");
    const filter: Record<string, string[]> = {};
    const type = choice(inv, "type", ["agent", "a2a"], {
      // The media types the registry files entries under are accepted too.
      normalize: (raw) =>
        Object.entries(TYPES).find(([, media]) => media === raw)?.[0] ?? raw.toLowerCase(),
    });
    if (type) filter.type = [TYPES[type]];
    const harness = harnessFlag(inv);
    if (harness) filter["obs:harness"] = [harness];
    const request: SearchRequest = {
      query: { text, filter },
      federation: "none",
      pageSize: int(inv, "limit", 1, 100),
      pageToken: str(inv, "page-token"),
    };
    const { response, total } = await withClient(ctx, (c) => c.searchCounted(request));
    await markRunnableHere(ctx, response.results);
    const hint = response.results.length === 0 ? anonymousHint(ctx) : undefined;
    if (hint) note(ctx, paint("dim", hint));
    if (inv.json) {
      // From a registry that does not count matches, this page is all that is known.
      const count = total ?? response.results.length;
      return printList(ctx, response.results.map(entryItem), count, response.pageToken);
    }
    if (response.results.length === 0) return say(ctx, "No entries match that search.");
    const rows = response.results.map((r) => [
      clip(r.displayName, 32),
      entryItem(r).kind,
      String(r.score ?? ""),
      r["obs:delegable"] ? paint("green", "yes") : paint("dim", "no"),
      paint(stateColor(r["obs:lifecycle"]), stateWords(r["obs:lifecycle"])),
      r.identifier,
    ]);
    printTable(ctx, ["NAME", "KIND", "SCORE", "DELEGABLE", "STATE", "IDENTIFIER"], rows);
    for (const r of response.results.filter((r) => typeof r.unavailable === "string")) {
      say(ctx, paint("dim", `${r.displayName} cannot run on this machine: ${r.unavailable}.`));
    }
    if (response.pageToken) say(ctx, `More: --page-token ${response.pageToken}`);
  },
};

/**
 * The registry says whether an Agent can run headless anywhere; whether it can run here
 * depends on the harnesses installed on this machine. Delegable registry Agents that none
 * of them can run are marked not delegable, with what to install.
 */
async function markRunnableHere(ctx: Context, results: EntrySummary[]): Promise<void> {
  const agents = results.filter((r) => r.type === TYPES.agent && r["obs:delegable"] === true);
  if (agents.length === 0) return;
  const { harnessOptions, runnableHere } = await import("../../runner/runnable/mod.ts");
  const options = harnessOptions(ctx.env, ctx.cwd);
  for (const r of agents) {
    const here = runnableHere(r["obs:supportedHarnesses"] ?? [], options);
    if (!here.runnable) {
      r["obs:delegable"] = false;
      r.unavailable = here.missing;
    }
  }
}

export const inspectCommand: Command = {
  name: "inspect",
  summary: "Show one registry entry in full",
  args: ["identifier"],
  details:
    `IDENTIFIER is the whole identifier, its UUID, or a unique prefix of at least 4 characters
of either (as copied from a list). With --json, prints the entry document as the registry has it.`,
  async run(inv, ctx) {
    const doc = await withClient(ctx, (c) => c.resolveEntry(inv.args.identifier));
    if (inv.json) return printJson(ctx, doc);
    printEntry(ctx, doc);
  },
};

/** Prints the headline fields of an entry document, then the card it pins, if any. */
export function printEntry(ctx: Context, doc: EntryDocument): void {
  printFields(ctx, [
    ["Name", doc.displayName],
    ["Identifier", doc.identifier],
    ["Kind", entryItem(doc).kind === "agent" ? "registry Agent" : "remote A2A agent"],
    ["Version", doc.version],
    ["State", stateWords(doc["obs:lifecycle"])],
    ["Visibility", doc["obs:visibility"]],
    ["Delegable", doc["obs:delegable"] ? "yes" : "no"],
    ["Removed", doc["obs:removed"] ? "yes" : undefined],
    ["Digest", doc["obs:artifactDigest"]],
    ["Endpoint", doc["obs:a2aInterface"]?.url],
    ["Signature", signatureWords(doc["obs:signature"])],
    ["Review note", doc["obs:reviewNote"]],
    ["Description", doc.description],
  ]);
  if (doc["obs:agentCard"]) {
    say(ctx);
    say(ctx, "Agent Card (as reviewed):");
    say(ctx, JSON.stringify(doc["obs:agentCard"], null, 2));
  }
}
