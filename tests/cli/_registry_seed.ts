/**
 * A seeded embedded registry for the CLI's registry tests: a registry Agent published and
 * a remote agent's card submitted through the CLI itself (the card served on 127.0.0.1),
 * with OBSERVAL_HOME pointing the in-process CLI at the same database.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { DatabaseSync } from "../../lib/sqlite/mod.ts";
import { cli } from "../support/cli.ts";
import { startRegistry, type TestRegistry } from "../support/registry.ts";

export const AGENT_FILE = fileURLToPath(
  new URL("../../examples/agent/observal-agent.yaml", import.meta.url),
);

/** The card the seeded registry imports. */
const CARD = {
  name: "Weather Desk",
  description: "Answers questions about the weather",
  url: "http://127.0.0.1:9/a2a",
};

/** Serves {@linkcode CARD} at `/card.json` on 127.0.0.1 (allowlisted in the registry). */
async function serveCard(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const found = req.url === "/card.json";
    res.writeHead(found ? 200 : 404, { "content-type": "application/json" });
    res.end(found ? JSON.stringify(CARD) : "{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/card.json`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Seeded {
  reg: TestRegistry;
  env: Record<string, string>;
  /** The published registry Agent's entry document. */
  agent: Record<string, unknown> & { identifier: string };
  /** The submitted card's entry document. */
  card: Record<string, unknown> & { identifier: string };
  close(): Promise<void>;
}

/** Runs the CLI with `--json` and parses its stdout, failing on a non-zero exit. */
export async function json(argv: string[], env: Record<string, string>) {
  const r = await cli([...argv, "--json"], { env });
  assert.equal(r.code, 0, `${argv.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A registry with one Agent and one card, both pending review. */
export async function seed(): Promise<Seeded> {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const host = await serveCard();
  try {
    const env = { OBSERVAL_HOME: reg.home, HOME: reg.home };
    const agent = await json(["registry", "agent", "publish", AGENT_FILE], env);
    const card = await json(["registry", "a2a", "submit", host.url], env);
    return {
      reg,
      env,
      agent,
      card,
      async close() {
        await host.close();
        await reg.close();
      },
    };
  } catch (err) {
    await host.close();
    await reg.close();
    throw err;
  }
}

/**
 * Adds an imported card's entry with a chosen identifier tail (a slug or a UUID), as the
 * registry stores one, so prefixes can be made to collide.
 */
export function insertCard(
  db: DatabaseSync,
  tail: string,
  options: { owner?: string; visibility?: "owner" | "public"; name?: string } = {},
): string {
  const identifier = `urn:air:example.com:a2a:${tail}`;
  const name = options.name ?? tail;
  db.prepare(
    `INSERT INTO entries (id, identifier, kind, source_kind, type, display_name, version,
       owner_id, visibility, lifecycle, source_url, digest, doc, created_at, updated_at)
     VALUES (?, ?, 'external', 'imported', 'application/a2a-agent-card+json', ?, '1.0.0', ?,
       ?, 'approved', ?, 'sha256:0', ?, 'now', 'now')`,
  ).run(
    crypto.randomUUID(),
    identifier,
    name,
    options.owner ?? "someone",
    options.visibility ?? "public",
    `https://example.com/${tail}.json`,
    JSON.stringify({ identifier, displayName: name, type: "application/a2a-agent-card+json" }),
  );
  return identifier;
}
