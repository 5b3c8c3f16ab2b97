/** `observal registry a2a`: register, review and remove remote A2A agents. */
import { ObservalError } from "../../core/mod.ts";
import type { RegistryClient } from "../../registry/mod.ts";
import { type Command, type Group, type Invocation, str } from "../command.ts";
import { paint, type Piece, printJson, printTable, say } from "../output.ts";
import { printEntry } from "./search.ts";
import { clip, withClient } from "./_client.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** Shared flags and body for `--visibility` / `--team`. */
export const visibilityFlags = {
  visibility: {
    type: "string" as const,
    value: "private|team|public",
    description: "Who can see it once approved",
    default: "private",
  },
  team: {
    type: "string" as const,
    value: "TEAM",
    description: "Team handle or id (with --visibility team)",
  },
};

export async function visibilityBody(client: RegistryClient, inv: Invocation) {
  const visibility = str(inv, "visibility") as "private" | "team" | "public";
  if (!["private", "team", "public"].includes(visibility)) {
    throw new ObservalError("USAGE", `--visibility must be private, team or public`);
  }
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

function stateCell(inv: Invocation, state: string): Piece {
  if (inv.json) return state;
  const color = state === "approved"
    ? "green"
    : state === "pending"
    ? "yellow"
    : state === "rejected"
    ? "red"
    : "dim";
  return paint(color, state);
}

const submit: Command = {
  name: "submit",
  summary: "Register a remote agent by its Agent Card URL",
  args: ["card-url"],
  flags: visibilityFlags,
  details:
    "The card is fetched safely (https, public addresses only, unless an admin allowed the host).",
  async run(inv, ctx) {
    const doc = await withClient(ctx, async (c) => {
      const vis = await visibilityBody(c, inv);
      return c.submitCard({ cardUrl: inv.args["card-url"], ...vis });
    });
    if (inv.json) return printJson(ctx, doc);
    say(ctx, `Registered ${doc.displayName} as ${doc.identifier} (${doc["obs:lifecycle"]}).`);
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
  },
};

const list: Command = {
  name: "list",
  summary: "List registered remote agents you can see",
  async run(inv, ctx) {
    const out = await withClient(ctx, (c) => c.listImports());
    if (inv.json) return printJson(ctx, out);
    if (out.items.length === 0) return say(ctx, "No remote agents registered yet.");
    printTable(
      ctx,
      ["NAME", "STATE", "VISIBILITY", "IDENTIFIER"],
      out.items.map((i) => [
        clip(String(i.displayName), 32),
        stateCell(inv, String(i["obs:lifecycle"])),
        String(i["obs:visibility"]),
        String(i.identifier),
      ]),
    );
  },
};

const inspect: Command = {
  name: "inspect",
  summary: "Show a registered card and its digest",
  args: ["identifier"],
  async run(inv, ctx) {
    const doc = await withClient(ctx, (c) => c.entry(inv.args.identifier));
    if (inv.json) return printJson(ctx, doc);
    printEntry(ctx, doc);
  },
};

const review: Command = {
  name: "review",
  summary: "Approve or reject a registered card",
  args: ["identifier"],
  flags: reviewFlags,
  async run(inv, ctx) {
    const body = reviewBody(inv, "observal registry a2a inspect");
    const doc = await withClient(ctx, (c) => c.reviewImport(inv.args.identifier, body));
    if (inv.json) return printJson(ctx, doc);
    say(ctx, `${doc.displayName} is now ${doc["obs:lifecycle"]}.`);
  },
};

const remove: Command = {
  name: "remove",
  summary: "Remove a registered card",
  args: ["identifier"],
  flags: { yes: { type: "boolean", short: "y", description: "Confirm the removal" } },
  async run(inv, ctx) {
    if (inv.flags.yes !== true) {
      throw new ObservalError("USAGE", "Removing needs --yes", {
        remediation: `Run \`observal registry a2a remove ${inv.args.identifier} --yes\``,
      });
    }
    const out = await withClient(ctx, (c) => c.removeImport(inv.args.identifier));
    if (inv.json) return printJson(ctx, out);
    say(ctx, `Removed ${out.identifier}.`);
  },
};

export const a2aGroup: Group = {
  name: "a2a",
  summary: "Register and review remote A2A agents",
  commands: [submit, list, inspect, review, remove],
};
