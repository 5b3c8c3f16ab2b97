/**
 * Registry search latency at 1k, 10k and 100k entries, beside a plain indexed SQLite
 * lookup measured in the same run and process.
 *
 *   deno run -A bench/registry.ts [--sizes 1000,10000,100000] [--queries 200]
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { systemClock } from "../lib/core/mod.ts";
import { createRegistryApp, openRegistry, registryPath } from "../lib/server/mod.ts";
import { transaction } from "../lib/sqlite/mod.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    queries: { type: "string", default: "200" },
  },
});
const sizes = values.sizes!.split(",").map(Number);
const queries = Number(values.queries);

const WORDS = (
  "review refactor test migrate document translate summarize security audit deploy release " +
  "notes python rust go typescript kubernetes terraform database schema api frontend backend " +
  "accessibility performance profiling logging metrics tracing incident triage dependency upgrade"
).split(" ");

/** Deterministic pseudo-random numbers so every run measures the same data. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function fill(db: ReturnType<typeof openRegistry>["db"], n: number) {
  const rand = rng(n);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)];
  const insert = db.prepare(
    `INSERT INTO entries (id, identifier, kind, source_kind, type, display_name, description,
       version, owner_id, visibility, lifecycle, native_ref, digest, delegable, harnesses,
       search_queries, search_capabilities, doc, created_at, updated_at)
     VALUES (?, ?, 'agent', 'native', 'application/vnd.observal.agent+json', ?, ?, '1.0.0', 'bench',
       'public', ?, ?, 'sha256:0', 1, '[]', ?, ?, ?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
  );
  const ids: string[] = [];
  transaction(db, () => {
    for (let i = 0; i < n; i++) {
      const id = randomUUID();
      const identifier = `urn:air:bench.example:agent:${id}`;
      const name = `${pick()}-${pick()}-${i}`;
      const description =
        `Agent that can ${pick()} and ${pick()} ${pick()} code for ${pick()} projects.`;
      const doc = JSON.stringify({
        identifier,
        displayName: name,
        type: "x",
        url: "https://x.example/",
      });
      insert.run(
        id,
        identifier,
        name,
        description,
        i % 10 === 0 ? "pending" : "approved",
        `bench/${name}@1.0.0`,
        `${pick()} ${pick()}\n${pick()} ${pick()}`,
        `${pick()}\n${pick()}`,
        doc,
      );
      if (i % Math.max(1, Math.floor(n / queries)) === 0) ids.push(identifier);
    }
  });
  return ids;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function time(n: number, fn: (i: number) => unknown | Promise<unknown>) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

const rows: string[][] = [];
for (const size of sizes) {
  const home = mkdtempSync(join(tmpdir(), "observal-bench-"));
  const state = openRegistry({
    path: registryPath(home),
    clock: systemClock,
    delegationCommand: ["observal"],
  });
  try {
    const t0 = performance.now();
    const ids = fill(state.db, size);
    const fillMs = performance.now() - t0;
    const app = createRegistryApp(state, { localAdmin: true, rateLimit: false });
    const rand = rng(7);
    const texts = Array.from(
      { length: queries },
      () =>
        `${WORDS[Math.floor(rand() * WORDS.length)]} ${WORDS[Math.floor(rand() * WORDS.length)]}`,
    );
    const lookup = state.db.prepare("SELECT * FROM entries WHERE identifier = ?");
    // Warm both paths once so the first measured call is not a cold start.
    lookup.get(ids[0]);
    await app.request("/api/v1/ard/search", {
      method: "POST",
      body: JSON.stringify({ query: { text: "warm up" } }),
    });
    const base = await time(queries, (i) => lookup.get(ids[i % ids.length]));
    const search = await time(queries, async (i) => {
      const res = await app.request("/api/v1/ard/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: { text: texts[i] }, pageSize: 10 }),
      });
      if (res.status !== 200) throw new Error(`search failed: ${res.status}`);
      await res.json();
    });
    const b50 = percentile(base, 50), b99 = percentile(base, 99);
    const s50 = percentile(search, 50), s99 = percentile(search, 99);
    rows.push([
      String(size),
      `${(fillMs / 1000).toFixed(1)}s`,
      `${b50.toFixed(3)}`,
      `${b99.toFixed(3)}`,
      `${s50.toFixed(2)}`,
      `${s99.toFixed(2)}`,
      `${(s50 / b50).toFixed(0)}x`,
      `${(s99 / b99).toFixed(0)}x`,
    ]);
  } finally {
    state.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const head = [
  "entries",
  "fill",
  "lookup p50 ms",
  "lookup p99 ms",
  "search p50 ms",
  "search p99 ms",
  "p50 ratio",
  "p99 ratio",
];
const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
for (const r of [head, ...rows]) console.log(r.map((c, i) => c.padStart(width[i])).join("  "));
console.log(
  `(${queries} queries per size; search = POST /api/v1/ard/search through the app, in process)`,
);
