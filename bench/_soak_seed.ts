/**
 * The soak bench's registry: N public, approved (one in ten pending) registry agents, an
 * admin with an API key, the loopback as a trusted proxy (so the bench can speak for many
 * client addresses) and the public registry on. Built once per size under tmp/ and copied
 * into a fresh home for every run, since runs publish into it.
 * @module
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isoSeconds, systemClock } from "../lib/core/mod.ts";
import {
  createUser,
  issueKey,
  openRegistry,
  registryPath,
  writeSetting,
} from "../lib/server/mod.ts";
import { transaction } from "../lib/sqlite/mod.ts";
import { copyFlushed } from "./_copy.ts";

export const WORDS = (
  "review refactor test migrate document translate summarize security audit deploy release " +
  "notes python rust go typescript kubernetes terraform database schema api frontend backend " +
  "accessibility performance profiling logging metrics tracing incident triage dependency upgrade"
).split(" ");

/** What a run needs to know about the seeded registry. */
export interface Seed {
  /** The admin's API key (a bench fixture; never a real credential). */
  key: string;
  /** A sample of entry identifiers to read. */
  ids: string[];
}

/** Deterministic pseudo-random numbers so every run sends the same requests. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** Copies the cached registry of `entries` entries (seeding it first if needed) into `home`. */
export function seededHome(root: string, entries: number, home: string): Seed {
  const cache = join(root, "tmp", `soak-${entries}`);
  const metaPath = join(cache, "seed.json");
  if (!existsSync(metaPath)) seed(cache, entries);
  mkdirSync(home, { recursive: true });
  copyFlushed(registryPath(cache), registryPath(home));
  return JSON.parse(readFileSync(metaPath, "utf8")) as Seed;
}

function seed(cache: string, entries: number): void {
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  const started = performance.now();
  const state = openRegistry({
    path: registryPath(cache),
    clock: systemClock,
    delegationCommand: ["observal"],
  });
  const rand = rng(entries);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)];
  const ids: string[] = [];
  let key: string;
  try {
    const now = isoSeconds(new Date());
    const admin = createUser(state.db, { handle: "soak", role: "admin" }, now);
    key = issueKey(state.db, admin.id, now);
    writeSetting(state.db, "deployment.trusted_proxies", "127.0.0.1");
    writeSetting(state.db, "deployment.public_registry_enabled", true);
    const insert = state.db.prepare(
      `INSERT INTO entries (id, identifier, kind, source_kind, type, display_name, description,
         version, owner_id, visibility, lifecycle, native_ref, digest, delegable, harnesses,
         search_queries, search_capabilities, doc, created_at, updated_at)
       VALUES (?, ?, 'agent', 'native', 'application/vnd.observal.agent+json', ?, ?, '1.0.0',
         'bench', 'public', ?, ?, 'sha256:0', 1, '[]', ?, ?, ?, ?, ?)`,
    );
    transaction(state.db, () => {
      for (let i = 0; i < entries; i++) {
        const id = randomUUID();
        const identifier = `urn:air:bench.example:agent:${id}`;
        const name = `${pick()}-${pick()}-${i}`;
        const doc = JSON.stringify({ identifier, displayName: name, type: "x" });
        insert.run(
          id,
          identifier,
          name,
          `Agent that can ${pick()} and ${pick()} ${pick()} code for ${pick()} projects.`,
          i % 10 === 0 ? "pending" : "approved",
          `bench/${name}@1.0.0`,
          `${pick()} ${pick()}\n${pick()} ${pick()}`,
          `${pick()}\n${pick()}`,
          doc,
          now,
          now,
        );
        if (i % 10 !== 0 && ids.length < 2000 && i % Math.ceil(entries / 2000) === 1) {
          ids.push(identifier);
        }
      }
    });
    // One file, no WAL beside it: the copy is the whole database.
    state.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    state.close();
  }
  const tmp = join(cache, "seed.json.tmp");
  writeFileSync(tmp, JSON.stringify({ key, ids } satisfies Seed));
  renameSync(tmp, join(cache, "seed.json"));
  console.error(
    `seeded ${entries} entries in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}
