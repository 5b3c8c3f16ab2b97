/**
 * Full-text search over entries with SQLite FTS5. The score is relevance only (0–100,
 * derived from bm25); approval, delegability and availability are separate fields and never
 * blended into it.
 * @module
 */
import { createHash } from "node:crypto";
import { ObservalError } from "../core/mod.ts";
import type { DatabaseSync } from "../sqlite/mod.ts";
import { type EntryRow, visibleSql } from "./entries.ts";
import type { Viewer } from "./identity.ts";

/** Filter keys the search accepts, with their aliases folded. */
const FILTER_KEYS: Record<string, string> = {
  type: "type",
  tags: "tags",
  capabilities: "capabilities",
  publisher: "publisher",
  version: "version",
  kind: "kind",
  "obs:kind": "kind",
  "obs:supportedHarnesses": "harness",
  "obs:harness": "harness",
  "obs:lifecycle": "lifecycle",
  "obs:activatable": "activatable",
};

export interface SearchInput {
  text: string;
  filter: Record<string, string | string[]>;
  pageSize: number;
  pageToken?: string;
}

export interface SearchHit {
  row: EntryRow;
  score: number;
  matchedOn: string[];
}

export interface SearchOutput {
  hits: SearchHit[];
  pageToken?: string;
  /** The single harness named by the filter, used to judge availability. */
  harness?: string;
}

/** Field weights for relevance: name, representative queries, capabilities/tags, description. */
const FIELD_WEIGHTS = [1.0, 0.85, 0.7, 0.5] as const;
const BM25_WEIGHTS = "10.0, 8.5, 7.0, 5.0";
/** How many bm25-best matches are scored exactly. */
const CANDIDATES = 200;

/** Lower-case word tokens of the query, at most 32. */
export function queryTokens(text: string): string[] {
  const seen = new Set<string>();
  for (const t of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (seen.size >= 32) break;
    seen.add(t);
  }
  return [...seen];
}

function ftsQuery(tokens: string[], join: "AND" | "OR"): string {
  // Tokens are letters and digits only, so quoting them is enough to keep FTS syntax out.
  return tokens.map((t) => (t.length >= 4 ? `"${t}"*` : `"${t}"`)).join(` ${join} `);
}

function normalizeFilter(filter: Record<string, string | string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [key, value] of Object.entries(filter)) {
    const canonical = FILTER_KEYS[key];
    if (!canonical) {
      throw new ObservalError("INVALID_ARGUMENT", `Unsupported filter term: ${key}`, {
        remediation: `Filter on one of: ${Object.keys(FILTER_KEYS).join(", ")}`,
      });
    }
    const values = (Array.isArray(value) ? value : [value]).map((v) => v.trim()).filter(Boolean);
    out.set(canonical, [...(out.get(canonical) ?? []), ...values]);
  }
  return out;
}

/** A short hash binding a page token to the request and caller that made it. */
export function fingerprint(parts: unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 16);
}

/** Encodes a page token bound to the query, filter and caller. */
export function encodePageToken(offset: number, fp: string): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fp })).toString("base64url");
}

/** Decodes a page token; anything malformed or bound to another query is refused. */
export function decodePageToken(token: string, fp: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (
      parsed && typeof parsed === "object" && Number.isSafeInteger(parsed.o) && parsed.o >= 0 &&
      parsed.f === fp
    ) return parsed.o;
  } catch { /* refused below */ }
  throw new ObservalError("INVALID_ARGUMENT", "Invalid pageToken", {
    remediation: "Repeat the first request without pageToken; tokens only work for the same query",
  });
}

/** Builds the SQL for the structured filters; values go in as parameters. */
function filterSql(
  filter: Map<string, string[]>,
): { sql: string[]; params: Record<string, string> } {
  const sql: string[] = [];
  const params: Record<string, string> = {};
  let n = 0;
  const list = (values: string[]) =>
    values.map((v) => {
      const name = `f${n++}`;
      params[name] = v;
      return `:${name}`;
    }).join(", ");
  for (const [key, values] of filter) {
    if (values.length === 0) continue;
    switch (key) {
      case "type":
        sql.push(`e.type IN (${list(values)})`);
        break;
      case "version":
        sql.push(`e.version IN (${list(values)})`);
        break;
      case "kind":
        sql.push(`e.kind IN (${list(values.map((v) => (v === "a2a" ? "external" : v)))})`);
        break;
      case "lifecycle":
        sql.push(`e.lifecycle IN (${list(values)})`);
        break;
      case "tags":
      case "capabilities":
        sql.push(
          `EXISTS (SELECT 1 FROM json_each(e.doc, '$.${key}') j WHERE j.value IN (${
            list(values)
          }))`,
        );
        break;
      case "publisher": {
        const patterns = values.map((v) => `urn:air:${v.replace(/[\\%_]/g, "\\$&")}:%`);
        sql.push(
          `(${
            list(patterns).split(", ").map((p) => `e.identifier LIKE ${p} ESCAPE '\\'`).join(" OR ")
          })`,
        );
        break;
      }
      case "activatable": {
        const kinds = values.map((v) => (v === "true" ? "agent" : "external"));
        sql.push(`e.kind IN (${list(kinds)})`);
        break;
      }
      case "harness":
        break; // judged per result as availability, not a filter
    }
  }
  if (!filter.has("lifecycle")) sql.push("e.lifecycle != 'archived'");
  return { sql, params };
}

/** Runs one search page for a viewer. */
export function searchEntries(
  db: DatabaseSync,
  viewer: Viewer,
  input: SearchInput,
  options: { publicRegistry: boolean },
): SearchOutput {
  const filter = normalizeFilter(input.filter);
  const tokens = queryTokens(input.text);
  const fp = fingerprint([tokens, [...filter].sort(), viewer.userId, input.pageSize]);
  const offset = input.pageToken ? decodePageToken(input.pageToken, fp) : 0;
  const vis = visibleSql(viewer, options);
  const f = filterSql(filter);
  const where = [vis.sql, ...f.sql].join(" AND ");
  const params: Record<string, string | number> = {
    ...vis.params,
    ...f.params,
    limit: input.pageSize + 1,
    offset,
  };
  let rows: Array<EntryRow & { score: number }>;
  const order = "(e.lifecycle = 'approved') DESC, e.recommended DESC, e.display_name, e.identifier";
  if (tokens.length > 0) {
    // Two stages keep large registries fast: FTS5 ranks the visible matches by bm25 (in C)
    // and keeps the best few hundred; obs_relevance() then scores only those, so the score
    // does not depend on corpus statistics. Entries that match every word are the
    // candidates when there are enough of them, which spares ranking every partial match.
    params.tokens = JSON.stringify(tokens);
    params.phrase = phraseOf(input.text);
    params.candidates = Math.max(CANDIDATES, offset + input.pageSize * 2 + 1);
    const ranked = (q: string) =>
      db.prepare(
        `SELECT * FROM (
           SELECT e.*, obs_relevance(e.display_name, e.search_queries, e.search_capabilities,
                                     e.description, :tokens, :phrase) AS score
           FROM (SELECT e.rowid AS rid FROM entries_fts
                 JOIN entries e ON e.rowid = entries_fts.rowid
                 WHERE entries_fts MATCH :q AND ${where}
                 ORDER BY bm25(entries_fts, ${BM25_WEIGHTS}) LIMIT :candidates) c
           JOIN entries e ON e.rowid = c.rid) e
         ORDER BY e.score DESC, ${order}
         LIMIT :limit OFFSET :offset`,
      ).all({ ...params, q }) as unknown as Array<EntryRow & { score: number }>;
    // Decided on a fixed threshold, so every page of one query draws from the same set.
    const enough = () =>
      (db.prepare(
        `SELECT COUNT(*) AS n FROM (SELECT 1 FROM entries_fts
           JOIN entries e ON e.rowid = entries_fts.rowid
           WHERE entries_fts MATCH :q AND ${where} LIMIT ${CANDIDATES})`,
      ).get({ ...vis.params, ...f.params, q: ftsQuery(tokens, "AND") }) as { n: number })
        .n >= CANDIDATES;
    rows = ranked(ftsQuery(tokens, tokens.length > 1 && enough() ? "AND" : "OR"));
  } else {
    rows = db.prepare(
      `SELECT e.*, 0 AS score FROM entries e WHERE ${where} ORDER BY ${order}
       LIMIT :limit OFFSET :offset`,
    ).all(params) as unknown as Array<EntryRow & { score: number }>;
  }
  const more = rows.length > input.pageSize;
  const page = rows.slice(0, input.pageSize);
  const harnesses = filter.get("harness") ?? [];
  return {
    hits: page.map((row) => ({
      row,
      score: row.score,
      matchedOn: matchedOn(row, tokens),
    })),
    pageToken: more ? encodePageToken(offset + input.pageSize, fp) : undefined,
    harness: harnesses.length === 1 ? harnesses[0] : undefined,
  };
}

/** The query as one lower-cased phrase of words, for the phrase bonus. */
function phraseOf(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
}

/** How well one token matches one field's words: exact 1, prefix 0.7 (tokens ≥ 4), substring 0.4. */
function tokenQuality(token: string, words: string[]): number {
  let best = 0;
  for (const w of words) {
    if (w === token) return 1;
    if (token.length >= 4 && w.startsWith(token)) best = Math.max(best, 0.7);
    else if (best < 0.4 && token.length >= 3 && w.includes(token)) best = 0.4;
  }
  return best;
}

/**
 * Relevance 1–100 of one entry for the query tokens: 70% match quality × field weight,
 * 20% share of tokens matched anywhere, 10% whole-phrase hit.
 */
export function relevance(
  fields: readonly string[],
  tokens: readonly string[],
  phrase: string,
): number {
  if (tokens.length === 0) return 0;
  const words = fields.map((f) => f.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  let quality = 0;
  let covered = 0;
  for (const t of tokens) {
    let best = 0;
    words.forEach((ws, i) => (best = Math.max(best, tokenQuality(t, ws) * FIELD_WEIGHTS[i])));
    quality += best;
    if (best > 0) covered++;
  }
  const phraseHit = phrase.includes(" ") &&
      fields.some((f) =>
        (f.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ").includes(phrase)
      )
    ? 1
    : 0;
  const score = 100 *
    (0.7 * (quality / tokens.length) + 0.2 * (covered / tokens.length) + 0.1 * phraseHit);
  return Math.max(1, Math.min(100, Math.round(score)));
}

/** Registers obs_relevance() on a connection; search queries call it. */
export function registerSearchFunctions(db: DatabaseSync): void {
  db.function(
    "obs_relevance",
    { deterministic: true },
    (name, queries, caps, description, tokens, phrase) =>
      relevance(
        [String(name ?? ""), String(queries ?? ""), String(caps ?? ""), String(description ?? "")],
        JSON.parse(String(tokens)) as string[],
        String(phrase ?? ""),
      ),
  );
}

function matchedOn(row: EntryRow, tokens: string[]): string[] {
  if (tokens.length === 0) return [];
  const fields: Array<[string, string]> = [
    ["displayName", row.display_name],
    ["representativeQueries", row.search_queries],
    ["capabilities", row.search_capabilities],
    ["description", row.description],
  ];
  const out: string[] = [];
  for (const [name, text] of fields) {
    const lower = text.toLowerCase();
    if (tokens.some((t) => lower.includes(t))) out.push(name);
  }
  return out;
}
