/**
 * `observal registry a2a`: register, list, inspect, review and remove remote A2A agents,
 * and the pieces `registry agent` shares with it (visibility, review, the list table).
 * @module
 */
import { type Context, DIGEST_PATTERN, ObservalError } from "../../core/mod.ts";
import {
  DEFAULT_VISIBILITY,
  type EntryDocument,
  type EntryKind,
  type RegistryClient,
  type Visibility,
} from "../../registry/mod.ts";
import { choice, type Command, type Flag, type Group, type Invocation, str } from "../command.ts";
import { paint, printJson, printList, printTable, say } from "../output.ts";
import { entryItem, stateColor, stateWords } from "./entry_item.ts";
import { printEntry } from "./search.ts";
import { clip, withClient } from "./_client.ts";
import { cardUrlsIn, isManifestUrl, MAX_MANIFEST_CARDS } from "./ard_manifest.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What an identifier argument accepts, for help text. */
export const IDENTIFIER_HELP =
  "IDENTIFIER is the whole identifier, its UUID, or a unique prefix of at least 4 characters\nof either (as copied from a list).";

/** Turns `--team HANDLE|UUID` into a team id the caller belongs to. */
export async function resolveTeam(client: RegistryClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref.toLowerCase();
  const me = await client.me();
  const team = me.teams.find((t) => t.handle === ref);
  if (team) return team.id;
  try {
    const all = await client.teams();
    const found = all.items.find((t) => t.handle === ref);
    if (found) return found.id;
  } catch { /* not an admin: fall through to the clear error below */ }
  throw new ObservalError("NOT_FOUND", `No team "${ref}" that you belong to`, {
    remediation:
      "Pass the team's handle or id; an admin can add you with `observal registry team member`",
  });
}

const VISIBILITIES: readonly Visibility[] = ["private", "team", "public"];

/** Shared flags for `--visibility` / `--team` (cards and registry Agents alike). */
export const visibilityFlags = {
  visibility: {
    type: "string" as const,
    value: VISIBILITIES.join("|"),
    description: "Who can see it once approved",
    default: DEFAULT_VISIBILITY,
  },
  team: {
    type: "string" as const,
    value: "TEAM",
    description: "Team handle or id (with --visibility team)",
  },
};

/** The visibility part of a submission, from `--visibility` and `--team`. */
export async function visibilityBody(client: RegistryClient, inv: Invocation) {
  const visibility = choice(inv, "visibility", VISIBILITIES) ?? DEFAULT_VISIBILITY;
  const team = str(inv, "team");
  if (visibility === "team" && !team) {
    throw new ObservalError("USAGE", "Team visibility needs --team", {
      remediation: "Pass --team HANDLE, or choose --visibility private or public",
    });
  }
  return { visibility, teamId: team ? await resolveTeam(client, team) : undefined };
}

/** `review` for imports and agents: exactly one of --approve / --reject. */
export function reviewBody(inv: Invocation, inspectCommand: string) {
  const approve = inv.flags.approve === true;
  const reject = inv.flags.reject === true;
  if (approve === reject) {
    throw new ObservalError("USAGE", "Pass exactly one of --approve or --reject");
  }
  const digest = str(inv, "digest");
  if (approve && !digest) {
    throw new ObservalError("USAGE", "Approving needs --digest", {
      remediation: `Run \`${inspectCommand} ${inv.args.identifier}\` and pass the digest it shows`,
    });
  }
  if (approve && !DIGEST_PATTERN.test(digest!)) {
    throw new ObservalError("USAGE", `"${digest!.slice(0, 80)}" is not a digest`, {
      remediation:
        `A digest is sha256: followed by 64 hex digits; copy it from \`${inspectCommand} ${inv.args.identifier}\``,
    });
  }
  const reason = str(inv, "reason");
  if (reject && !reason?.trim()) {
    throw new ObservalError("USAGE", "Rejecting needs --reason", {
      remediation: "Say what the owner should change",
    });
  }
  return { action: approve ? "approve" as const : "reject" as const, digest, reason };
}

export const reviewFlags = {
  approve: { type: "boolean" as const, description: "Approve it" },
  reject: { type: "boolean" as const, description: "Reject it" },
  digest: {
    type: "string" as const,
    value: "sha256:…",
    description: "Digest you reviewed (required to approve)",
  },
  reason: {
    type: "string" as const,
    value: "TEXT",
    description: "Review note (required to reject)",
  },
};

/** `--yes` for removals. */
export const removeFlags = {
  yes: { type: "boolean" as const, short: "y", description: "Confirm the removal" },
};

/** Refuses a removal that was not confirmed, naming the command that confirms it. */
export function confirmRemoval(inv: Invocation, kind: EntryKind): void {
  if (inv.flags.yes !== true) {
    throw new ObservalError("USAGE", "Removing needs --yes", {
      remediation: `Run \`observal registry ${kind} remove ${inv.args.identifier} --yes\``,
    });
  }
}

/** The lifecycle states a list can be narrowed to, as the wire's `obs:lifecycle` names them. */
const LIST_STATES = ["pending", "approved", "rejected"] as const;

/** The `--state` flag of the list commands. */
export const stateFlag: Record<string, Flag> = {
  state: {
    type: "string",
    value: "STATE",
    choices: LIST_STATES,
    description: `List only entries in this state: ${LIST_STATES.join(", ")}`,
  },
};

/** One kind's list as the registry answers it. */
type EntryList = { items: Parameters<typeof entryItem>[0][]; total: number };

/**
 * Reads `--state` (checked before the registry is asked, so a wrong value costs no
 * request) and returns what narrows a list to it.
 */
export function stateFilter(inv: Invocation): (list: EntryList) => EntryList & { of?: number } {
  const state = choice(inv, "state", LIST_STATES, { normalize: (s) => s.toLowerCase() });
  // The list APIs (GET /api/v1/agents, /api/v1/ard/imports) take no lifecycle filter, so
  // the items returned are filtered here; past the list's limit only the first ones are.
  return (list) => {
    if (state === undefined) return list;
    const items = list.items.filter((i) => i["obs:lifecycle"] === state);
    return list.total > list.items.length
      ? { items, total: items.length, of: list.items.length }
      : { items, total: items.length };
  };
}

/**
 * Prints one kind's list: the envelope under `--json`, else a table with states in words
 * and, past the list's limit, how many more there are. `of` is set when the list was
 * narrowed to a state after the registry cut it at its limit: how many were narrowed.
 */
export function printEntries(
  ctx: Context,
  inv: Invocation,
  list: EntryList & { of?: number },
  empty: string,
): void {
  if (inv.json) return printList(ctx, list.items.map(entryItem), list.total);
  if (list.of !== undefined) {
    say(
      ctx,
      `Only the first ${list.of} by name were looked at for --state; narrow with \`observal registry search\`.`,
    );
  }
  if (list.items.length === 0) return say(ctx, str(inv, "state") ? "None in that state." : empty);
  printTable(
    ctx,
    ["NAME", "STATE", "VISIBILITY", "IDENTIFIER"],
    list.items.map((i) => [
      clip(String(i.displayName), 32),
      paint(stateColor(i["obs:lifecycle"]), stateWords(i["obs:lifecycle"])),
      String(i["obs:visibility"] ?? ""),
      i.identifier,
    ]),
  );
  if (list.total > list.items.length) {
    say(
      ctx,
      `Showing ${list.items.length} of ${list.total}; find others with \`observal registry search\`.`,
    );
  }
}

const submit: Command = {
  name: "submit",
  summary: "Register remote agents by an Agent Card URL, or all an ARD manifest lists",
  args: ["card-url"],
  flags: visibilityFlags,
  details: `The card is fetched safely (https, public addresses only, unless an admin allowed the
host). A URL ending in /.well-known/ard.json (or ai-catalog.json) is an ARD manifest, as
\`observal a2a serve\` publishes for several Agents: every Agent Card it lists on its own
origin is registered (at most ${MAX_MANIFEST_CARDS}), each fetched and checked like one given
alone. --json prints the registered entry (for a manifest: the list, with any failures).`,
  async run(inv, ctx) {
    const url = inv.args["card-url"];
    if (isManifestUrl(url)) return await submitManifest(inv, ctx, url);
    const doc = await withClient(ctx, async (c) => {
      const vis = await visibilityBody(c, inv);
      return c.submitCard({ cardUrl: url, ...vis });
    });
    if (inv.json) return printJson(ctx, doc);
    sayRegistered(ctx, doc);
  },
};

/** Tells what was registered and, until it is approved, how to review it. */
function sayRegistered(ctx: Context, doc: EntryDocument): void {
  say(
    ctx,
    `Registered ${doc.displayName} as ${doc.identifier} (${stateWords(doc["obs:lifecycle"])}).`,
  );
  say(ctx, `Digest: ${doc["obs:artifactDigest"]}`);
  if (doc["obs:lifecycle"] !== "approved") {
    say(ctx, "A reviewer must approve it before agents can delegate to it:");
    say(ctx, `  observal registry a2a inspect ${doc.identifier}`);
    say(
      ctx,
      `  observal registry a2a review ${doc.identifier} --approve --digest ${
        doc["obs:artifactDigest"]
      }`,
    );
  }
}

/** Registers every card an ARD manifest lists; exit 1 when any of them failed. */
async function submitManifest(inv: Invocation, ctx: Context, url: string): Promise<number> {
  const { done, failed } = await withClient(ctx, async (c) => {
    const vis = await visibilityBody(c, inv);
    const done: EntryDocument[] = [];
    const failed: { card: string; error: string }[] = [];
    for (const cardUrl of await cardUrlsIn(c, url)) {
      try {
        done.push(await c.submitCard({ cardUrl, ...vis }));
      } catch (err) {
        if (!(err instanceof ObservalError)) throw err;
        failed.push({ card: cardUrl, error: err.message });
      }
    }
    return { done, failed };
  });
  if (inv.json) printJson(ctx, { items: done, failed });
  else {
    for (const doc of done) sayRegistered(ctx, doc);
    for (const f of failed) say(ctx, `Not registered: ${f.card}: ${f.error}`);
  }
  return failed.length > 0 ? 1 : 0;
}

const list: Command = {
  name: "list",
  summary: "List registered remote agents you can see",
  flags: stateFlag,
  details: `Lists your own in any state, the pending ones you may review and the approved ones, by
name (at most 500). --state keeps those in one state. With --json, prints
{"items": [...], "total": N}.`,
  async run(inv, ctx) {
    const narrow = stateFilter(inv);
    const out = await withClient(ctx, (c) => c.listImports());
    printEntries(ctx, inv, narrow(out), "No remote agents registered yet.");
  },
};

const inspect: Command = {
  name: "inspect",
  summary: "Show a registered card and its digest",
  args: ["identifier"],
  details: IDENTIFIER_HELP,
  async run(inv, ctx) {
    const doc = await withClient(ctx, (c) => c.resolveEntry(inv.args.identifier, { kind: "a2a" }));
    if (inv.json) return printJson(ctx, doc);
    printEntry(ctx, doc);
  },
};

const review: Command = {
  name: "review",
  summary: "Approve or reject a registered card",
  args: ["identifier"],
  flags: reviewFlags,
  details: IDENTIFIER_HELP,
  async run(inv, ctx) {
    const body = reviewBody(inv, "observal registry a2a inspect");
    const doc = await withClient(ctx, async (c) => {
      const entry = await c.resolveEntry(inv.args.identifier, { kind: "a2a" });
      return c.reviewImport(entry.identifier, body);
    });
    if (inv.json) return printJson(ctx, doc);
    say(ctx, `${doc.displayName} is now ${stateWords(doc["obs:lifecycle"])}.`);
  },
};

const remove: Command = {
  name: "remove",
  summary: "Remove a registered card",
  args: ["identifier"],
  flags: removeFlags,
  details: IDENTIFIER_HELP,
  async run(inv, ctx) {
    confirmRemoval(inv, "a2a");
    const out = await withClient(ctx, async (c) => {
      const entry = await c.resolveEntry(inv.args.identifier, { kind: "a2a" });
      return c.removeImport(entry.identifier);
    });
    if (inv.json) return printJson(ctx, out);
    say(ctx, `Removed ${out.identifier}.`);
  },
};

export const a2aGroup: Group = {
  name: "a2a",
  summary: "Register and review remote A2A agents",
  commands: [submit, list, inspect, review, remove],
};
