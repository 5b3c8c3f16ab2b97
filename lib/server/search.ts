/**
 * Search over entries, in two stages so its cost does not grow with the registry:
 *
 * 1. **Candidates** come from bounded runs of the `search_terms` index, never from every
 *    match. The index holds one row per distinct word of an entry's name, representative
 *    queries, capabilities/tags and description, ranked by the best of those fields the word
 *    is in (the score's field weights), then approval, then recommendation. A word's rows are
 *    read best first (newest entry first among equals), joined to the entry for the viewer's
 *    visibility and the filters, until enough visible rows are found or {@linkcode SCAN_LIMIT}
 *    rows were read. Each query word gets such a walk, and a rare word also walks the
 *    commonest words it prefixes. With several words, the rarest word's first
 *    {@linkcode COMBINED_SCAN} rows are first ordered by the field weights of all the query
 *    words each entry holds, so entries holding several words come first. The walks share a
 *    budget of {@linkcode CANDIDATE_BUDGET} candidates (each keeps at least two pages).
 * 2. **Score**: obs_relevance() rates each candidate with the reference formula (match
 *    quality × field weight, coverage, phrase) and SQLite orders them by score, then approved
 *    first, recommended, name and identifier.
 *
 * The score is relevance only (1–100); approval, delegability and availability are separate
 * fields and never blended into it. A word the index has never seen costs one lookup.
 *
 * One module past 400 lines: both stages share the field weights and the query plan that
 * the query-plan tests pin; apart, they would drift.
 * @module
 */
import { ObservalError } from "../core/mod.ts";
import { type DatabaseSync, transaction } from "../sqlite/mod.ts";
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
  /** How many entries match in all pages: every scored candidate is a result. */
  total: number;
  /** The single harness named by the filter, used to judge availability. */
  harness?: string;
}

/** Named parameters of one statement. */
export type SqlParams = Record<string, string | number>;

/** Options for {@linkcode searchEntries}. */
export interface SearchOptions {
  /** Anonymous callers see public approved entries only when this is on. */
  publicRegistry: boolean;
  /** Called with every statement the search runs, before it runs (for query-plan tests). */
  trace?: (sql: string, params: SqlParams) => void;
}

/** Field weights for relevance: name, representative queries, capabilities/tags, description. */
const FIELD_WEIGHTS = [1.0, 0.85, 0.7, 0.5] as const;
/** The same weights as the index stores them (0–100). */
const INDEX_WEIGHTS = FIELD_WEIGHTS.map((w) => Math.round(w * 100));
/** Candidates one query scores, shared by its walks (each still keeps two pages' worth). */
export const CANDIDATE_BUDGET = 300;
/** Most index rows one walk reads, visible to the caller or not. */
export const SCAN_LIMIT = 3000;
/** Most rows the rarest query word's walk weighs by the other words they hold. */
export const COMBINED_SCAN = 2000;
/** Most query words that get a walk, rarest first; every word still counts in the score. */
const MAX_WALKED_WORDS = 6;
/** Most words a rare query word is read as a prefix of, commonest first. */
const MAX_EXPANSIONS = 8;
/** Longer words are not indexed (they still count in the score of other candidates). */
const MAX_TERM_LENGTH = 64;
/** Bump when indexTerms() changes: the index is rebuilt the next time a registry opens. */
const SEARCH_INDEX_VERSION = 1;

/** Lower-case word tokens of the query, at most 32. */
export function queryTokens(text: string): string[] {
  const seen = new Set<string>();
  for (const t of wordsOf(text.toLowerCase())) {
    if (seen.size >= 32) break;
    seen.add(t);
  }
  return [...seen];
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

/**
 * A short hash binding a page token to the request and caller that made it (64 bits of
 * FNV-1a, two lanes). It guards against a token reused with another query, not against
 * forgery: anyone can make a token for their own query, and a query only ever shows its
 * caller what the caller may see. No node:crypto, which under Deno costs every search
 * ~25 ms to load.
 */
export function fingerprint(parts: unknown[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(parts));
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (const byte of bytes) {
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul(b ^ byte, 0x01000193) ^ (a >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/** Encodes a page token bound to the query, filter and caller. */
export function encodePageToken(offset: number, fp: string): string {
  // Plain ASCII JSON, so btoa takes it as it is.
  const base64 = btoa(JSON.stringify({ o: offset, f: fp }));
  return base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Decodes a page token; anything malformed or bound to another query is refused. */
export function decodePageToken(token: string, fp: string): number {
  try {
    const parsed = JSON.parse(atob(token.replaceAll("-", "+").replaceAll("_", "/")));
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
  options: SearchOptions,
): SearchOutput {
  const filter = normalizeFilter(input.filter);
  const tokens = queryTokens(input.text);
  const fp = fingerprint([tokens, [...filter].sort(), viewer.userId, input.pageSize]);
  const offset = input.pageToken ? decodePageToken(input.pageToken, fp) : 0;
  const vis = visibleSql(viewer, options);
  const f = filterSql(filter);
  const where = [vis.sql, ...f.sql].join(" AND ");
  const run = (sql: string, params: SqlParams) => {
    options.trace?.(sql, params);
    return db.prepare(sql).all(params);
  };
  const order = "(e.lifecycle = 'approved') DESC, e.recommended DESC, e.display_name, e.identifier";
  const limits = { limit: input.pageSize + 1, offset };
  let rows: Array<EntryRow & { score: number }>;
  let total: number | undefined;
  if (tokens.length > 0) {
    const ids = candidates(run, tokens, { sql: where, params: { ...vis.params, ...f.params } }, {
      pageSize: input.pageSize,
    });
    if (ids.length === 0) return { hits: [], total: 0, harness: singleHarness(filter) };
    total = ids.length;
    const scored = run(
      `SELECT c.value AS rid, obs_relevance(e.display_name, e.search_queries,
         e.search_capabilities, e.description, :tokens, :phrase) AS score
       FROM json_each(:ids) c JOIN entries e ON e.rowid = c.value
       ORDER BY score DESC, ${order}
       LIMIT :limit OFFSET :offset`,
      {
        ids: JSON.stringify(ids),
        tokens: JSON.stringify(tokens),
        phrase: phraseOf(input.text),
        ...limits,
      },
    ) as Array<{ rid: number; score: number }>;
    // The documents are read only for the page, after the candidates were ordered.
    const byId = new Map(
      (run("SELECT e.* FROM entries e WHERE e.rowid IN (SELECT value FROM json_each(:ids))", {
        ids: JSON.stringify(scored.map((s) => s.rid)),
      }) as unknown as EntryRow[]).map((r) => [r.rowid, r]),
    );
    rows = scored.map((s) => ({ ...byId.get(s.rid)!, score: s.score }));
  } else {
    rows = run(
      `SELECT e.*, 0 AS score FROM entries e WHERE ${where} ORDER BY ${order}
       LIMIT :limit OFFSET :offset`,
      { ...vis.params, ...f.params, ...limits },
    ) as unknown as Array<EntryRow & { score: number }>;
  }
  const more = rows.length > input.pageSize;
  const page = rows.slice(0, input.pageSize);
  // A filter-only listing is counted only when it has more than one page.
  total ??= more || offset > 0
    ? (run(`SELECT COUNT(*) AS n FROM entries e WHERE ${where}`, {
      ...vis.params,
      ...f.params,
    })[0] as { n: number }).n
    : offset + page.length;
  return {
    total,
    hits: page.map((row) => ({ row, score: row.score, matchedOn: matchedOn(row, tokens) })),
    pageToken: more ? encodePageToken(offset + input.pageSize, fp) : undefined,
    harness: singleHarness(filter),
  };
}

function singleHarness(filter: Map<string, string[]>): string | undefined {
  const harnesses = filter.get("harness") ?? [];
  return harnesses.length === 1 ? harnesses[0] : undefined;
}

type Run = (sql: string, params: SqlParams) => unknown[];
interface Posting {
  entry: number;
  rank: number;
}

/** Rank bits an entry's rows share: approved × 2 + recommended (see indexTerms()). */
const SHARED_BITS = 4;

/**
 * The entries worth scoring for `tokens`, read from bounded walks of the index: each walk
 * returns at most `k` rows the viewer may see (`where`, on alias `e`), reading at most
 * {@linkcode SCAN_LIMIT} rows. The set depends only on the query, the caller and the page
 * size, so every page of one search is cut from the same candidates.
 */
function candidates(
  run: Run,
  tokens: string[],
  where: { sql: string; params: SqlParams },
  options: { pageSize: number },
): number[] {
  const df = new Map(
    (run(
      "SELECT term, entries FROM search_vocab WHERE term IN (SELECT value FROM json_each(:terms))",
      { terms: JSON.stringify(tokens) },
    ) as Array<{ term: string; entries: number }>).map((r) => [r.term, r.entries]),
  );
  // A word held by fewer entries than the budget is also read as a prefix (the score gives
  // prefixes 0.7); a common word's own rows already fill its walk.
  const expansions = new Map<string, Array<{ term: string; entries: number }>>();
  for (const t of tokens) {
    if (t.length < 4 || (df.get(t) ?? 0) >= CANDIDATE_BUDGET) continue;
    const found = run(
      `SELECT term, entries FROM search_vocab WHERE term > :t AND term < :end AND entries > 0
       ORDER BY entries DESC, term LIMIT ${MAX_EXPANSIONS}`,
      { t, end: `${t}\u{10ffff}` },
    ) as Array<{ term: string; entries: number }>;
    if (found.length > 0) expansions.set(t, found);
  }
  const reach = (t: string) =>
    (df.get(t) ?? 0) + (expansions.get(t) ?? []).reduce((n, x) => n + x.entries, 0);
  const walked = tokens.filter((t) => reach(t) > 0).sort((a, b) => reach(a) - reach(b))
    .slice(0, MAX_WALKED_WORDS);
  if (walked.length === 0) return [];
  const exact = walked.filter((t) => (df.get(t) ?? 0) > 0);
  const k = Math.max(2 * options.pageSize, Math.floor(CANDIDATE_BUDGET / walked.length));

  /**
   * The best `limit` visible entries holding `term`. Alone, the word's rows are read in rank
   * order until enough are visible. With `others`, the first COMBINED_SCAN rows are ordered
   * by the summed field weights of every query word the entry holds (one index lookup per
   * word), as the score would order them, and then checked for visibility in that order.
   */
  const walk = (term: string, limit: number, others: string[] = []): Posting[] => {
    const params: SqlParams = { ...where.params, term, k: limit, scan: SCAN_LIMIT };
    const rows = `(SELECT entry, rank FROM search_terms WHERE term = :term
                   ORDER BY rank DESC, entry DESC LIMIT :scan)`;
    const visible = `JOIN entries e INDEXED BY entries_visibility ON e.rowid = p.entry
                     WHERE ${where.sql} LIMIT :k`;
    if (others.length === 0) {
      return run(
        `SELECT p.entry AS entry, p.rank AS rank FROM ${rows} p ${visible}`,
        params,
      ) as unknown as Posting[];
    }
    params.scan = COMBINED_SCAN;
    const weights = others.map((other, i) => {
      params[`o${i}`] = other;
      return `coalesce((SELECT q.rank FROM search_terms q INDEXED BY search_terms_word_entry
                        WHERE q.entry = w.entry AND q.term = :o${i}), 0) / ${SHARED_BITS}`;
    });
    // The LIMIT keeps SQLite from dropping the inner ORDER BY when it flattens the query.
    return run(
      `SELECT p.entry AS entry, p.rank AS rank
       FROM (SELECT w.entry AS entry, w.rank AS rank,
               w.rank / ${SHARED_BITS} + ${weights.join(" + ")} AS weight
             FROM ${rows} w ORDER BY weight DESC, w.rank DESC, w.entry DESC LIMIT :scan) p
       ${visible}`,
      params,
    ) as unknown as Posting[];
  };

  const out = new Set<number>();
  for (const t of walked) {
    // The rarest word's walk also weighs the other words, finding the entries that hold
    // several of them; the others' walks bring their own best entries.
    const others = t === exact[0] ? exact.slice(1) : [];
    const own = (df.get(t) ?? 0) > 0 ? walk(t, k, others) : [];
    const prefixes = expansions.get(t) ?? [];
    if (prefixes.length === 0) {
      own.forEach((p) => out.add(p.entry));
      continue;
    }
    // The word's own rows stay; the best prefix rows (0.7 of their field weight, as the
    // score counts them) fill the walk up to k.
    const each = Math.max(10, Math.ceil(k / prefixes.length));
    const byPrefix: Array<{ entry: number; key: number }> = [];
    for (const x of prefixes) {
      for (const p of walk(x.term, each)) {
        const bits = p.rank % SHARED_BITS;
        byPrefix.push({ entry: p.entry, key: (p.rank - bits) * 0.7 + bits });
      }
    }
    byPrefix.sort((a, b) => b.key - a.key || b.entry - a.entry);
    const mine = new Set(own.map((p) => p.entry));
    for (const p of byPrefix) {
      if (mine.size >= k) break;
      mine.add(p.entry);
    }
    mine.forEach((id) => out.add(id));
  }
  return [...out];
}

/** The query as one lower-cased phrase of words, for the phrase bonus. */
function phraseOf(text: string): string {
  return wordsOf(text.toLowerCase()).join(" ");
}

const ASCII = /^\p{ASCII}*$/u;

/** Word tokens of lower-cased text: runs of letters and digits. */
function wordsOf(lower: string): string[] {
  // Same tokens as the Unicode pattern for ASCII text, several times faster.
  return (ASCII.test(lower) ? lower.match(/[a-z0-9]+/g) : lower.match(/[\p{L}\p{N}]+/gu)) ?? [];
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

function isAsciiWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57);
}

/**
 * tokenQuality() for a lower-cased ASCII field, without splitting it: a token is letters
 * and digits only, so each place it occurs lies inside one word, and the characters around
 * it tell whether it starts or ends that word.
 */
function asciiTokenQuality(token: string, lower: string): number {
  let best = 0;
  for (let at = lower.indexOf(token); at >= 0; at = lower.indexOf(token, at + 1)) {
    const starts = at === 0 || !isAsciiWordChar(lower.charCodeAt(at - 1));
    const end = at + token.length;
    const ends = end === lower.length || !isAsciiWordChar(lower.charCodeAt(end));
    if (starts && ends) return 1;
    if (starts && token.length >= 4) best = Math.max(best, 0.7);
    else if (token.length >= 3) best = Math.max(best, 0.4);
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
  const lowered = fields.map((f) => f.toLowerCase());
  const ascii = lowered.map((f) => ASCII.test(f));
  const words = lowered.map((f, i) => (ascii[i] ? [] : wordsOf(f)));
  let quality = 0;
  let covered = 0;
  for (const t of tokens) {
    let best = 0;
    for (let i = 0; i < lowered.length; i++) {
      // Weights descend, so a later field cannot beat a match this good.
      if (best >= FIELD_WEIGHTS[i]) break;
      const q = ascii[i] ? asciiTokenQuality(t, lowered[i]) : tokenQuality(t, words[i]);
      best = Math.max(best, q * FIELD_WEIGHTS[i]);
    }
    quality += best;
    if (best > 0) covered++;
  }
  const phraseWords = phrase.includes(" ") ? phrase.split(" ") : [];
  const phraseHit = phraseWords.length > 0 &&
      lowered.some((f, i) =>
        // Joining a field's words costs more than the rest: only when every word is in it.
        phraseWords.every((w) => f.includes(w)) &&
        (ascii[i] ? f.replace(/[^a-z0-9]+/g, " ").trim() : words[i].join(" ")).includes(phrase)
      )
    ? 1
    : 0;
  const score = 100 *
    (0.7 * (quality / tokens.length) + 0.2 * (covered / tokens.length) + 0.1 * phraseHit);
  return Math.max(1, Math.min(100, Math.round(score)));
}

/**
 * The index rows of one entry: each distinct word of its fields (name, representative
 * queries, capabilities/tags, description) with its rank, the weight (0–100) of the best
 * field holding it × 4 + approved × 2 + recommended. Reading a word's rows by descending
 * rank therefore meets the entries the score and its tie order prefer first.
 */
export function indexTerms(
  fields: readonly string[],
  lifecycle: string,
  recommended: boolean,
): Array<[term: string, rank: number]> {
  const best = new Map<string, number>();
  fields.forEach((text, i) => {
    for (const w of wordsOf(text.toLowerCase())) {
      if (w.length <= MAX_TERM_LENGTH && (best.get(w) ?? 0) < INDEX_WEIGHTS[i]) {
        best.set(w, INDEX_WEIGHTS[i]);
      }
    }
  });
  const bits = (lifecycle === "approved" ? 2 : 0) + (recommended ? 1 : 0);
  return [...best].map(([term, weight]) => [term, weight * SHARED_BITS + bits]);
}

/**
 * Registers the search functions on a connection and fills the search index when an older
 * version built it (or none did): obs_relevance() scores candidates, and
 * obs_search_terms() gives the index rows the entries triggers write. Every connection that
 * writes entries needs them.
 */
export function registerSearchFunctions(db: DatabaseSync): void {
  // One query passes the same tokens for every candidate: parse them once.
  let lastTokens = "";
  let parsed: string[] = [];
  db.function(
    "obs_relevance",
    { deterministic: true },
    (name, queries, caps, description, tokens, phrase) => {
      const json = String(tokens);
      if (json !== lastTokens) {
        parsed = JSON.parse(json) as string[];
        lastTokens = json;
      }
      return relevance(
        [String(name ?? ""), String(queries ?? ""), String(caps ?? ""), String(description ?? "")],
        parsed,
        String(phrase ?? ""),
      );
    },
  );
  db.function(
    "obs_search_terms",
    { deterministic: true },
    (name, queries, caps, description, lifecycle, recommended) =>
      JSON.stringify(indexTerms(
        [String(name ?? ""), String(queries ?? ""), String(caps ?? ""), String(description ?? "")],
        String(lifecycle ?? ""),
        Number(recommended ?? 0) !== 0,
      )),
  );
  ensureSearchIndex(db);
}

/**
 * Rebuilds search_terms and search_vocab from the entries when an older version (or none)
 * built them. An index built by a newer version is kept, so two versions sharing a home do
 * not rebuild it in turn.
 */
function ensureSearchIndex(db: DatabaseSync): void {
  const current = () =>
    Number(
      (db.prepare("SELECT value FROM search_meta WHERE key = 'terms'").get() as
        | { value: string }
        | undefined)?.value ?? 0,
    ) >= SEARCH_INDEX_VERSION;
  if (current()) return;
  transaction(db, () => {
    if (current()) return;
    // Rows are written sorted, in term order, and the other indexes are built afterwards
    // from the migrations' own definitions: about three times faster than keeping them.
    const indexes = db.prepare(
      `SELECT name, sql FROM sqlite_schema
       WHERE type = 'index' AND tbl_name = 'search_terms' AND sql IS NOT NULL`,
    ).all() as Array<{ name: string; sql: string }>;
    db.exec(`
      ${indexes.map((i) => `DROP INDEX ${i.name};`).join("\n")}
      DELETE FROM search_terms;
      DELETE FROM search_vocab;
      INSERT INTO search_terms(term, rank, entry)
        SELECT t.value ->> 0, t.value ->> 1, e.rowid
        FROM entries e, json_each(obs_search_terms(e.display_name, e.search_queries,
          e.search_capabilities, e.description, e.lifecycle, e.recommended)) t
        ORDER BY 1, 2, 3;
      ${indexes.map((i) => `${i.sql};`).join("\n")}
      INSERT INTO search_vocab(term, entries) SELECT term, count(*) FROM search_terms GROUP BY term;
    `);
    db.prepare("INSERT OR REPLACE INTO search_meta(key, value) VALUES ('terms', ?)").run(
      String(SEARCH_INDEX_VERSION),
    );
  });
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
