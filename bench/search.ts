/**
 * Registry search and write latency on a realistic corpus at 1k, 10k and 100k entries.
 *
 * The corpus draws words from a 5 000-word vocabulary with Zipf frequencies into names,
 * descriptions, capabilities, tags and representative queries, with a mix of native agents
 * and imported cards, visibilities, lifecycles, owners and teams. Each size is generated
 * once and cached under `tmp/bench-search/`; a run works on a copy in a temp OBSERVAL_HOME.
 *
 * One run prints, per size: search p50/p90/p99 per query class (rare word, common word,
 * prefix, two words, three words incl. a phrase, no match), in process through the app's
 * `fetch` and over HTTP from a node server on 127.0.0.1, beside a plain indexed lookup
 * (`SELECT * FROM entries WHERE identifier = ?`) measured in the same run; how close the
 * first page comes to scoring every entry (the best possible page); then the cost of a
 * publish, an import and an install.
 *
 *   deno run -A bench/search.ts [--sizes 1000,10000,100000] [--queries 100] [--writes 50]
 *                               [--quality 10] [--fresh]
 */
import { serve } from "@hono/node-server";
import { copyFlushed } from "./_copy.ts";
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { isoSeconds, systemClock } from "../lib/core/mod.ts";
import {
  createRegistryApp,
  issueKey,
  MIGRATIONS,
  openRegistry,
  registryPath,
  writeSetting,
} from "../lib/server/mod.ts";
import { queryTokens } from "../lib/server/search.ts";
import { type DatabaseSync, transaction } from "../lib/sqlite/mod.ts";

/** Bump when the generated corpus changes, so cached databases are rebuilt. */
const GENERATOR_VERSION = 1;
const VOCABULARY = 5000;
const USERS = 500;
const TEAMS = 40;
/** The signed-in viewer: a mid-sized publisher in two teams (reviewer in one). */
const MEMBER = "user-20";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    queries: { type: "string", default: "100" },
    writes: { type: "string", default: "50" },
    quality: { type: "string", default: "10" },
    fresh: { type: "boolean", default: false },
  },
});
const sizes = values.sizes!.split(",").map(Number);
const perClass = Number(values.queries);
const writes = Number(values.writes);
const qualityQueries = Number(values.quality);

// ---- corpus --------------------------------------------------------------------------

/** mulberry32: deterministic, so every run measures the same corpus and queries. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Pronounceable words without q, x or y, so a word containing them never matches. */
function vocabulary(rand: () => number): string[] {
  const consonants = "bcdfghjklmnprstvwz";
  const vowels = "aeiou";
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    let w = "";
    const syllables = 1 + Math.floor(rand() * 3) + (rand() < 0.5 ? 1 : 0);
    for (let s = 0; s < syllables; s++) {
      w += consonants[Math.floor(rand() * consonants.length)];
      w += vowels[Math.floor(rand() * vowels.length)];
      if (rand() < 0.3) w += consonants[Math.floor(rand() * consonants.length)];
    }
    if (w.length >= 3) words.add(w);
  }
  return [...words];
}

/** Samples ranks 0..n-1 with probability ∝ 1 / (rank + 1)^s. */
function zipf(n: number, s: number, rand: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let r = 0; r < n; r++) cumulative[r] = total += 1 / (r + 1) ** s;
  return () => {
    const x = rand() * total;
    let lo = 0, hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

function uuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${
    hex.slice(20)
  }`;
}

function pickWeighted<T extends string>(rand: () => number, table: Array<[T, number]>): T {
  let x = rand();
  for (const [value, p] of table) {
    if ((x -= p) < 0) return value;
  }
  return table[table.length - 1][0];
}

const ARD_CONTEXT = [
  "https://agenticresourcediscovery.org/context/v1",
  { obs: "https://observal.io/ns#" },
];
const AGENT_TYPE = "application/vnd.observal.agent+json";
const CARD_TYPE = "application/a2a-agent-card+json";
const HARNESSES = ["claude-code", "codex", "opencode", "pi", "copilot-cli"];

/** Keyed by generator version and schema, so a changed migration is never measured stale. */
function cacheFile(size: number): string {
  const schema = createHash("sha256").update(MIGRATIONS.join("\n")).digest("hex").slice(0, 8);
  return join("tmp", "bench-search", `g${GENERATOR_VERSION}-s${schema}-${size}.db`);
}

/** Writes `size` entries (plus users, teams, versions) into a fresh registry database. */
function generate(db: DatabaseSync, size: number): void {
  const rand = rng(42);
  const words = vocabulary(rand);
  const word = zipf(words.length, 1.0, rand);
  const w = () => words[word()];
  const phrase = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, w).join(" ");
  const sentence = (min: number, max: number) => {
    const s = phrase(min, max);
    return `${s[0].toUpperCase()}${s.slice(1)}.`;
  };
  const now = "2026-01-01T00:00:00Z";

  const users = Array.from({ length: USERS }, (_, i) => ({ id: uuid(rand), handle: `user-${i}` }));
  const teams = Array.from({ length: TEAMS }, (_, i) => ({ id: uuid(rand), handle: `team-${i}` }));
  const teamsOf = new Map<string, string[]>();
  transaction(db, () => {
    const u = db.prepare("INSERT INTO users(id, handle, role, created_at) VALUES (?, ?, ?, ?)");
    users.forEach((user, i) => u.run(user.id, user.handle, i < 3 ? "reviewer" : "user", now));
    const t = db.prepare("INSERT INTO teams(id, handle, name, created_at) VALUES (?, ?, ?, ?)");
    for (const team of teams) t.run(team.id, team.handle, team.handle, now);
    const m = db.prepare("INSERT INTO team_members(team_id, user_id, role) VALUES (?, ?, ?)");
    users.forEach((user, i) => {
      const mine = new Set<string>();
      const count = user.handle === MEMBER ? 2 : Math.floor(rand() * 4);
      while (mine.size < count) mine.add(teams[Math.floor(rand() * TEAMS)].id);
      [...mine].forEach((teamId, k) => {
        const role = user.handle === MEMBER
          ? (k === 0 ? "reviewer" : "member")
          : pickWeighted(rand, [["member", 0.8], ["reviewer", 0.12], ["owner", 0.08]]);
        m.run(teamId, user.id, role);
      });
      teamsOf.set(users[i].id, [...mine]);
    });
  });

  const owner = zipf(USERS, 0.8, rand);
  const taken = new Set<string>();
  const insertEntry = db.prepare(
    `INSERT INTO entries (id, identifier, kind, source_kind, type, display_name, description,
       version, owner_id, team_id, visibility, lifecycle, tombstoned, source_url, native_ref,
       digest, delegable, recommended, harnesses, search_queries, search_capabilities, doc,
       created_at, updated_at)
     VALUES (:id, :identifier, :kind, :source_kind, :type, :display_name, :description,
       :version, :owner_id, :team_id, :visibility, :lifecycle, :tombstoned, :source_url,
       :native_ref, :digest, :delegable, :recommended, :harnesses, :search_queries,
       :search_capabilities, :doc, :created_at, :updated_at)`,
  );
  const insertVersion = db.prepare(
    `INSERT INTO agent_versions(agent_id, version, definition, digest, lifecycle, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const batch = 5000;
  for (let start = 0; start < size; start += batch) {
    transaction(db, () => {
      for (let i = start; i < Math.min(size, start + batch); i++) {
        const user = users[owner()];
        const id = uuid(rand);
        const at = new Date(Date.parse(now) + i * 1000).toISOString().slice(0, 19) + "Z";
        const imported = rand() < 0.15;
        const myTeams = teamsOf.get(user.id) ?? [];
        let visibility = pickWeighted(rand, [["public", 0.7], ["team", 0.2], ["owner", 0.1]]);
        if (visibility === "team" && myTeams.length === 0) visibility = "public";
        const teamId = visibility === "team" ? myTeams[Math.floor(rand() * myTeams.length)] : null;
        const lifecycle = pickWeighted(rand, [
          ["approved", 0.76],
          ["pending", 0.12],
          ["rejected", 0.04],
          ["draft", 0.03],
          ["archived", 0.05],
        ]);
        const recommended = lifecycle === "approved" && rand() < 0.01 ? 1 : 0;
        const description = Array.from(
          { length: 1 + Math.floor(rand() * 3) },
          () => sentence(6, 14),
        ).join(" ");
        const queries = rand() < 0.3
          ? []
          : Array.from({ length: 2 + Math.floor(rand() * 4) }, () => sentence(4, 9));
        const capabilities = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => phrase(1, 3));
        const tags = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 4) }, w))];
        const digest = `sha256:${uuid(rand).replaceAll("-", "")}${"0".repeat(32)}`;
        const wireVisibility = visibility === "owner" ? "private" : visibility;
        const common = {
          id,
          description,
          version: "1.0.0",
          owner_id: user.id,
          team_id: teamId,
          visibility,
          lifecycle,
          digest,
          recommended,
          created_at: at,
          updated_at: at,
        };
        if (imported) {
          const name = Array.from({ length: 2 + Math.floor(rand() * 2) }, w)
            .map((x) => x[0].toUpperCase() + x.slice(1)).join(" ");
          const identifier = `urn:air:observal.local:a2a:${id}`;
          const cardUrl = `https://agents-${i}.example/.well-known/agent-card.json`;
          const skills = capabilities.map((c, k) => ({
            id: `skill-${k}`,
            name: c,
            description: sentence(5, 10),
            tags: [w(), w()],
            examples: queries.slice(k, k + 1),
          }));
          const card = {
            name,
            description,
            version: "1.0.0",
            supportedInterfaces: [{
              url: `https://agents-${i}.example/a2a`,
              protocolBinding: "JSONRPC",
              protocolVersion: "1.0",
            }],
            skills,
          };
          const caps = [
            ...skills.map((s) => `a2a-skill:${s.id}`),
            "binding:jsonrpc",
          ];
          const cardTags = ["a2a", "remote-agent", ...tags];
          const doc = {
            "@context": ARD_CONTEXT,
            identifier,
            displayName: name,
            type: CARD_TYPE,
            url: cardUrl,
            description,
            version: "1.0.0",
            capabilities: caps,
            representativeQueries: queries.slice(0, 5),
            tags: cardTags,
            trustManifest: { identity: "https://agents.example", identityType: "https" },
            "obs:kind": "external",
            "obs:protocol": "a2a",
            "obs:source": "imported",
            "obs:lifecycle": lifecycle,
            "obs:visibility": wireVisibility,
            "obs:activatable": false,
            "obs:artifactDigest": digest,
            "obs:a2aInterface": card.supportedInterfaces[0],
            "obs:agentCard": card,
            updatedAt: at,
          };
          insertEntry.run({
            ...common,
            identifier,
            kind: "external",
            source_kind: "imported",
            type: CARD_TYPE,
            display_name: name,
            tombstoned: rand() < 0.03 ? 1 : 0,
            source_url: cardUrl,
            native_ref: null,
            delegable: 1,
            harnesses: "[]",
            search_queries: queries.join("\n"),
            search_capabilities: [...caps, ...cardTags].join("\n"),
            doc: JSON.stringify(doc),
          });
        } else {
          let name = Array.from({ length: 2 + Math.floor(rand() * 2) }, w).join("-");
          while (taken.has(`${user.handle}/${name}`)) name += `-${w()}`;
          taken.add(`${user.handle}/${name}`);
          const identifier = `urn:air:observal.local:agent:${id}`;
          const supported = rand() < 0.6
            ? []
            : [...new Set([HARNESSES[Math.floor(rand() * 5)], HARNESSES[Math.floor(rand() * 5)]])];
          const doc = {
            "@context": ARD_CONTEXT,
            identifier,
            displayName: name,
            type: AGENT_TYPE,
            url: `https://observal.local/api/v1/artifacts/agent/${id}/1.0.0`,
            description,
            version: "1.0.0",
            capabilities,
            ...(queries.length >= 2 ? { representativeQueries: queries.slice(0, 5) } : {}),
            tags,
            trustManifest: { identity: "https://observal.local", identityType: "https" },
            "obs:kind": "agent",
            "obs:nativeRef": `${user.handle}/${name}@1.0.0`,
            "obs:supportedHarnesses": supported,
            "obs:lifecycle": lifecycle,
            "obs:visibility": wireVisibility,
            "obs:activatable": true,
            "obs:artifactDigest": digest,
            "obs:recommended": recommended === 1,
            "obs:capabilitiesSource": "publisher",
            "obs:representativeQueriesSource": "publisher",
            updatedAt: at,
          };
          insertEntry.run({
            ...common,
            identifier,
            kind: "agent",
            source_kind: "native",
            type: AGENT_TYPE,
            display_name: name,
            tombstoned: 0,
            source_url: null,
            native_ref: `${user.handle}/${name}@1.0.0`,
            delegable: 1,
            harnesses: JSON.stringify(supported),
            search_queries: queries.join("\n"),
            search_capabilities: [...capabilities, ...tags].join("\n"),
            doc: JSON.stringify(doc),
          });
          const definition = {
            name,
            namespace: user.handle,
            version: "1.0.0",
            description,
            prompt: sentence(10, 30),
            mcp_servers: [],
            skills: [],
            supported_harnesses: supported,
            representative_queries: queries,
            tags,
            capabilities,
          };
          insertVersion.run(id, "1.0.0", JSON.stringify(definition), digest, lifecycle, at);
        }
      }
    });
  }
}

/** The cached corpus of `size` entries, generated first when missing. */
function corpus(size: number): string {
  const file = cacheFile(size);
  if (existsSync(file) && !values.fresh) return file;
  mkdirSync(join("tmp", "bench-search"), { recursive: true });
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  const t0 = performance.now();
  const state = openRegistry({ path: partial, clock: systemClock, delegationCommand: ["x"] });
  try {
    // A large page cache keeps the index writes of a bulk load in memory.
    state.db.exec("PRAGMA cache_size = -262144");
    generate(state.db, size);
    state.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    state.close();
  }
  for (const ext of ["-wal", "-shm"]) rmSync(partial + ext, { force: true });
  renameSync(partial, file);
  console.error(`generated ${size} entries in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return file;
}

// ---- queries -------------------------------------------------------------------------

const CLASSES = ["rare word", "common word", "prefix", "two words", "three words", "no match"];

/** `perClass` query texts per class, drawn from the corpus's own vocabulary and text. */
function queryTexts(db: DatabaseSync, size: number): Map<string, string[]> {
  const words = vocabulary(rng(42));
  const rand = rng(7);
  const word = zipf(words.length, 1.0, rand);
  const inRange = (lo: number, hi: number) => words[lo + Math.floor(rand() * (hi - lo))];
  const description = db.prepare("SELECT description FROM entries WHERE rowid = ?");
  const out = new Map<string, string[]>();
  const make = (cls: string, fn: () => string) =>
    out.set(cls, Array.from({ length: perClass }, fn));
  make("rare word", () => inRange(2000, VOCABULARY));
  make("common word", () => inRange(0, 30));
  make("prefix", () => {
    let x = words[word() % 500];
    while (x.length < 5) x = words[Math.floor(rand() * 500)];
    return x.slice(0, 4 + Math.floor(rand() * (x.length - 4)));
  });
  make("two words", () => `${words[word()]} ${words[word()]}`);
  make("three words", () => {
    // Three consecutive words from a description, so the phrase bonus is in play.
    for (;;) {
      const row = description.get(1 + Math.floor(rand() * size)) as
        | { description: string }
        | undefined;
      const ws = row?.description.toLowerCase().match(/[a-z]+/g) ?? [];
      if (ws.length < 3) continue;
      const at = Math.floor(rand() * (ws.length - 2));
      return ws.slice(at, at + 3).join(" ");
    }
  });
  make("no match", () => `q${inRange(0, 1000)}x`);
  return out;
}

// ---- measuring -----------------------------------------------------------------------

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function time(n: number, fn: (i: number) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

type Search = (text: string) => Promise<void>;

function searcher(call: (init: RequestInit) => Promise<Response>, headers: HeadersInit): Search {
  return async (text) => {
    const res = await call({
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ query: { text }, pageSize: 10 }),
    });
    if (res.status !== 200) throw new Error(`search failed: ${res.status} ${await res.text()}`);
    await res.json();
  };
}

/** A small card host on 127.0.0.1 so imports run the real fetch path. */
async function startCardHost(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const n = (req.url ?? "").split("/")[2] ?? "0";
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      name: `Bench Card ${n}`,
      description: "A card served to measure imports.",
      version: "1.0.0",
      supportedInterfaces: [{
        url: `https://bench-${n}.example/a2a`,
        protocolBinding: "JSONRPC",
        protocolVersion: "1.0",
      }],
      skills: [{ id: "s", name: "Summarize", description: "Summarizes text", tags: ["text"] }],
    }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Row {
  size: number;
  path: string;
  viewer: string;
  cls: string;
  p50: number;
  p90: number;
  p99: number;
  ratio: number;
}

const searchRows: Row[] = [];
const writeRows: string[][] = [];
const qualityRows: string[][] = [];

for (const size of sizes) {
  const file = corpus(size);
  const home = mkdtempSync(join(tmpdir(), "observal-bench-search-"));
  copyFlushed(file, registryPath(home));
  const state = openRegistry({
    path: registryPath(home),
    clock: systemClock,
    delegationCommand: ["observal", "delegate", "mcp"],
  });
  const cards = await startCardHost();
  let server: ReturnType<typeof serve> | undefined;
  try {
    writeSetting(state.db, "deployment.public_registry_enabled", true);
    writeSetting(state.db, "discovery.a2a_private_hosts", "127.0.0.1");
    const member = state.db.prepare("SELECT id FROM users WHERE handle = ?").get(MEMBER) as {
      id: string;
    };
    const memberKey = issueKey(state.db, member.id, isoSeconds(new Date()));
    const embedded = createRegistryApp(state, { localAdmin: true, rateLimit: false });
    const served = createRegistryApp(state, { rateLimit: false });
    server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: served.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
    });
    const port = (server.address() as AddressInfo).port;
    const searchUrl = `http://127.0.0.1:${port}/api/v1/ard/search`;
    const inProcess = (init: RequestInit) =>
      Promise.resolve(embedded.request("/api/v1/ard/search", init));
    const overHttp = (init: RequestInit) => fetch(searchUrl, init);
    const paths: Array<[string, string, Search]> = [
      ["in process", "local admin", searcher(inProcess, {})],
      ["in process", "member", searcher(inProcess, { authorization: `Bearer ${memberKey}` })],
      ["http", "member", searcher(overHttp, { authorization: `Bearer ${memberKey}` })],
      ["http", "anonymous", searcher(overHttp, {})],
    ];

    const ids = (state.db.prepare(
      "SELECT identifier FROM entries WHERE rowid % ? = 0 LIMIT 1000",
    ).all(Math.max(1, Math.floor(size / 1000))) as Array<{ identifier: string }>)
      .map((r) => r.identifier);
    const lookup = state.db.prepare("SELECT * FROM entries WHERE identifier = ?");
    for (let i = 0; i < 200; i++) lookup.get(ids[i % ids.length]);
    const base = await time(Math.max(1000, perClass * 10), (i) => lookup.get(ids[i % ids.length]));
    const b50 = percentile(base, 50);
    searchRows.push({
      size,
      path: "sqlite",
      viewer: "-",
      cls: "lookup by identifier",
      p50: b50,
      p90: percentile(base, 90),
      p99: percentile(base, 99),
      ratio: 1,
    });

    const texts = queryTexts(state.db, size);
    for (const [path, viewer, search] of paths) {
      // One pass over a few queries of every class first, so caches are warm.
      for (const cls of CLASSES) {
        for (const text of texts.get(cls)!.slice(0, 5)) await search(text);
      }
      for (const cls of CLASSES) {
        const qs = texts.get(cls)!;
        const t = await time(qs.length, (i) => search(qs[i]));
        const p50 = percentile(t, 50);
        searchRows.push({
          size,
          path,
          viewer,
          cls,
          p50,
          p90: percentile(t, 90),
          p99: percentile(t, 99),
          ratio: p50 / b50,
        });
      }
      console.error(`${size}: ${path} as ${viewer} done`);
    }

    // Quality: the first page's scores beside the best page, found by scoring every entry
    // the local admin sees (what search did before it was bounded, minus the bound).
    const best = state.db.prepare(
      `SELECT obs_relevance(e.display_name, e.search_queries, e.search_capabilities,
         e.description, :tokens, :phrase) AS score
       FROM entries e WHERE e.tombstoned = 0 AND e.lifecycle != 'archived'
       ORDER BY score DESC LIMIT 10`,
    );
    for (const cls of CLASSES.filter((c) => c !== "no match")) {
      let same = 0;
      let got = 0;
      let possible = 0;
      for (const text of texts.get(cls)!.slice(0, qualityQueries)) {
        const res = await embedded.request("/api/v1/ard/search", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: { text }, pageSize: 10 }),
        });
        const ours = ((await res.json()).results as Array<{ score: number }>).map((r) => r.score);
        const phrase = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
        const ideal = (best.all({ tokens: JSON.stringify(queryTokens(text)), phrase }) as Array<
          { score: number }
        >).map((r) => r.score).filter((x) => x > 1);
        if (ours.length === ideal.length && ours.every((x, i) => x === ideal[i])) same++;
        got += ours.reduce((a, b) => a + b, 0);
        possible += ideal.reduce((a, b) => a + b, 0);
      }
      const n = Math.min(qualityQueries, texts.get(cls)!.length);
      qualityRows.push([
        String(size),
        cls,
        String(n),
        `${same}/${n}`,
        possible === 0 ? "-" : `${((100 * got) / possible).toFixed(1)}%`,
      ]);
    }

    // Writes, in process as the local admin: publish new agents, import cards, install.
    const post = async (path: string, body: unknown) => {
      const res = await embedded.request(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return await res.json();
    };
    const agentYaml = (name: string) =>
      [
        `name: ${name}`,
        "version: 1.0.0",
        "description: Reviews pull requests for style and correctness",
        "prompt: Review the change.",
        "tags: [review, style]",
        "capabilities: [code review]",
        "representative_queries: [review my pull request, check this diff for bugs]",
      ].join("\n") + "\n";
    for (let i = 0; i < 10; i++) {
      await post("/api/v1/agents", { yaml: agentYaml(`bench-warm-${i}`), visibility: "public" });
    }
    const publish = await time(
      writes,
      (i) =>
        post("/api/v1/agents", { yaml: agentYaml(`bench-published-${i}`), visibility: "public" }),
    );
    const republish = await time(writes, (i) =>
      post("/api/v1/agents", {
        yaml: [
          `name: bench-published-${i}`,
          "version: 1.0.1",
          "description: Reviews pull requests for style and correctness",
          "prompt: Review the change again.",
        ].join("\n") + "\n",
        visibility: "public",
      }));
    const imports = await time(writes, (i) =>
      post("/api/v1/ard/imports/a2a", {
        cardUrl: `${cards.origin}/cards/${i}/agent.json`,
        visibility: "public",
      }));
    const installable = (state.db.prepare(
      `SELECT native_ref FROM entries WHERE source_kind = 'native' AND lifecycle = 'approved'
         AND tombstoned = 0 AND harnesses = '[]' AND rowid % ? = 0 LIMIT ?`,
    ).all(Math.max(1, Math.floor(size / (writes * 4))), writes) as Array<{ native_ref: string }>)
      .map((r) => r.native_ref.split("@")[0]);
    const installs = await time(
      installable.length,
      (i) =>
        post(`/api/v1/agents/${encodeURIComponent(installable[i])}/install`, {
          harness: "claude-code",
        }),
    );
    for (
      const [what, t] of [
        ["publish (new agent)", publish],
        ["publish (new version)", republish],
        ["import (A2A card)", imports],
        ["install (namespace/name)", installs],
      ] as const
    ) {
      const mean = t.reduce((a, b) => a + b, 0) / t.length;
      writeRows.push([
        String(size),
        what,
        String(t.length),
        percentile(t, 50).toFixed(2),
        percentile(t, 90).toFixed(2),
        mean.toFixed(2),
        Math.max(...t).toFixed(2),
      ]);
    }
  } finally {
    if (server) {
      const s = server;
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
    await cards.close();
    state.close();
    rmSync(home, { recursive: true, force: true });
  }
}

function table(head: string[], rows: string[][]): void {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [head, ...rows]) {
    console.log(r.map((c, i) => (i < 3 ? c.padEnd(width[i]) : c.padStart(width[i]))).join("  "));
  }
}

console.log(`search: POST /api/v1/ard/search, pageSize 10, ${perClass} queries per class\n`);
table(
  ["entries", "path / viewer", "query class", "p50 ms", "p90 ms", "p99 ms", "p50 ÷ lookup"],
  searchRows.map((r) => [
    String(r.size),
    r.viewer === "-" ? r.path : `${r.path} / ${r.viewer}`,
    r.cls,
    r.p50.toFixed(r.p50 < 1 ? 4 : 2),
    r.p90.toFixed(r.p90 < 1 ? 4 : 2),
    r.p99.toFixed(r.p99 < 1 ? 4 : 2),
    `${r.ratio.toFixed(0)}x`,
  ]),
);
console.log(
  "\nquality: first page (pageSize 10) as the local admin, beside the best page found by",
);
console.log("scoring every entry (entries that match nothing excluded)\n");
table(["entries", "query class", "n", "same scores", "score sum vs best"], qualityRows);
console.log("\nwrites: in process as the local admin\n");
table(["entries", "operation", "n", "p50 ms", "p90 ms", "mean ms", "max ms"], writeRows);
