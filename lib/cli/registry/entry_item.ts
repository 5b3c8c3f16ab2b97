/**
 * One registry entry as every registry list prints it under `--json` (`registry search`,
 * `registry agent list`, `registry a2a list`): the same names for the same things as
 * `delegate find` (`identifier`, `name`, `kind`, `state`), whatever the wire calls them.
 * Also the words people read for each state.
 * @module
 */
import { z } from "zod";
import type { EntryDocument, EntrySummary } from "../../registry/mod.ts";
import { entryKind } from "../../registry/mod.ts";
import type { Context } from "../../core/mod.ts";
import { say } from "../output.ts";

/** An entry in a list's `items`. */
export const EntryItemSchema = z.object({
  identifier: z.string(),
  name: z.string(),
  kind: z.enum(["agent", "a2a"]),
  /** Review state: `draft`, `pending`, `approved`, `rejected` or `archived`. */
  state: z.string(),
  visibility: z.string().optional(),
  version: z.string().optional(),
  description: z.string().optional(),
  /** Whether it can be delegated to (from here, for registry Agents found by search). */
  delegable: z.boolean().optional(),
  /** Why it cannot run on this machine, when it cannot. */
  unavailable: z.string().optional(),
  /** `namespace/name@version` of a registry Agent. */
  ref: z.string().optional(),
  harnesses: z.array(z.string()).optional(),
  /** Search relevance, 1-100 (search only). */
  score: z.number().optional(),
  digest: z.string().optional(),
  url: z.string().optional(),
}).strict();

/** An entry in a list's `items`. */
export type EntryItem = z.infer<typeof EntryItemSchema>;

/**
 * Maps a search result, list item or entry document to the list item every registry list
 * prints; fields the registry did not send are left out.
 */
export function entryItem(entry: EntrySummary | EntryDocument): EntryItem {
  const item: EntryItem = {
    identifier: entry.identifier,
    name: entry.displayName ?? entry.identifier,
    kind: entryKind(entry),
    state: entry["obs:lifecycle"] ?? "approved",
    visibility: entry["obs:visibility"],
    version: entry.version,
    description: entry.description,
    delegable: entry["obs:delegable"],
    unavailable: typeof entry.unavailable === "string" ? entry.unavailable : undefined,
    ref: entry["obs:nativeRef"],
    harnesses: entry["obs:supportedHarnesses"],
    score: typeof entry.score === "number" ? entry.score : undefined,
    digest: entry["obs:artifactDigest"],
    url: typeof entry.url === "string" ? entry.url : undefined,
  };
  for (const key of Object.keys(item) as Array<keyof EntryItem>) {
    if (item[key] === undefined) delete item[key];
  }
  return item;
}

const STATE_WORDS: Record<string, string> = {
  draft: "draft",
  pending: "pending review",
  approved: "approved",
  rejected: "rejected",
  archived: "archived",
};

/**
 * A review state in words, for people: `pending` reads "pending review"; an unknown state
 * (from a newer registry) is shown lower-cased with spaces, never as a raw enum name.
 */
export function stateWords(state: string | undefined): string {
  if (!state) return "unknown";
  return STATE_WORDS[state] ?? state.toLowerCase().replace(/[_-]+/g, " ");
}

/** The colour a state is shown in. */
export function stateColor(state: string | undefined): "green" | "yellow" | "red" | "dim" {
  return state === "approved"
    ? "green"
    : state === "pending"
    ? "yellow"
    : state === "rejected"
    ? "red"
    : "dim";
}

/**
 * Prints `Label: value` lines, labels padded to one column, as every `inspect` shows an
 * entry. Empty values (undefined, null, "", []) are left out; lists are joined with commas.
 */
export function printFields(ctx: Context, fields: ReadonlyArray<[string, unknown]>): void {
  const shown = fields.filter(([, v]) =>
    v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && v.length === 0)
  );
  const width = Math.max(0, ...shown.map(([label]) => label.length)) + 2;
  for (const [label, v] of shown) {
    const text = Array.isArray(v)
      ? v.join(", ")
      : typeof v === "string"
      ? v
      : typeof v === "object"
      ? JSON.stringify(v)
      : String(v);
    say(ctx, `${`${label}:`.padEnd(width)}${text}`);
  }
}
