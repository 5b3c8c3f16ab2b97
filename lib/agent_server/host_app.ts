/**
 * The HTTP face of one `a2a serve` process. One Agent is served at the origin: its card at
 * `/.well-known/agent-card.json`, JSON-RPC at `/`. Several are each served under
 * `/agents/<slug>/` (card at `/agents/<slug>/.well-known/agent-card.json`, JSON-RPC at
 * `/agents/<slug>/`), listed at `/` and in an ARD manifest at `/.well-known/ard.json`
 * (also `ai-catalog.json`), from which `observal registry a2a submit` imports them all.
 * @module
 */
import { Hono } from "hono";
import { A2A_AGENT_CARD_MEDIA_TYPE } from "../a2a/cards/mod.ts";
import type { EntryDocument } from "../registry/mod.ts";
import type { AgentAppEnv } from "./app.ts";

/** One Agent a server hosts. */
export interface HostedAgent {
  /** Its path segment when several are served: lower-case letters, digits and `-`. */
  slug: string;
  entry: EntryDocument;
  /** Builds its app for the JSON-RPC endpoint its card will name. */
  app(rpcUrl: string): Hono<AgentAppEnv>;
}

const CARD_PATH = "/.well-known/agent-card.json";

/**
 * The app for `agents` served at `url` (the origin the server listens on).
 *
 * @param url the server's origin, e.g. `http://127.0.0.1:8789`
 * @param agents one or more Agents, with distinct slugs
 * @param keys the key set that signs their cards and where it is (at the origin)
 * @returns the app (its `fetch` serves HTTP)
 */
export function createHostApp(
  url: string,
  agents: readonly HostedAgent[],
  keys?: { jku: string; jwks: unknown },
): Hono<AgentAppEnv> {
  if (agents.length === 1) return agents[0].app(`${url}/`);
  // Not strict: `/agents/<slug>/` is the endpoint the card names (a base URL that clients
  // resolve `.well-known/agent-card.json` against), `/agents/<slug>` answers too.
  const root = new Hono<AgentAppEnv>({ strict: false });
  const listed = agents.map((agent) => {
    const base = `/agents/${agent.slug}`;
    root.route(base, agent.app(`${url}${base}/`));
    return { agent, rpcUrl: `${url}${base}/`, cardUrl: `${url}${base}${CARD_PATH}` };
  });
  root.get("/", (c) => {
    c.header("Cache-Control", "no-cache");
    return c.json({
      agents: listed.map(({ agent, rpcUrl, cardUrl }) => ({
        slug: agent.slug,
        name: nameOf(agent.entry),
        identifier: agent.entry.identifier,
        version: agent.entry.version,
        card: cardUrl,
        url: rpcUrl,
      })),
    });
  });
  const manifest = () => ({
    specVersion: "1.0",
    host: { displayName: `observal a2a serve at ${url}` },
    entries: listed.map(({ agent, cardUrl }) => ({
      identifier: agent.entry.identifier,
      displayName: nameOf(agent.entry),
      type: A2A_AGENT_CARD_MEDIA_TYPE,
      url: cardUrl,
      ...agent.entry.description ? { description: agent.entry.description } : {},
      ...agent.entry.version ? { version: agent.entry.version } : {},
    })),
  });
  for (const path of ["/.well-known/ard.json", "/.well-known/ai-catalog.json"]) {
    root.get(path, (c) => {
      c.header("Cache-Control", "no-cache");
      return c.json(manifest());
    });
  }
  if (keys) root.get(new URL(keys.jku).pathname, (c) => c.json(keys.jwks));
  // A client that looks for one card at the origin is told where the cards are.
  root.get(CARD_PATH, (c) =>
    c.json({
      error: `This server serves ${agents.length} agents; their cards are listed at ${url}/ ` +
        `and in ${url}/.well-known/ard.json`,
    }, 404));
  return root;
}

/**
 * Path segments for entries: each name lower-cased, anything but [a-z0-9-] as `-`, and
 * `-2`, `-3`... where two would be the same.
 */
export function slugsFor(entries: readonly EntryDocument[]): string[] {
  const taken = new Set<string>();
  return entries.map((entry) => {
    const base = nameOf(entry).toLowerCase().replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "").slice(0, 48) || "agent";
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    return slug;
  });
}

function nameOf(entry: EntryDocument): string {
  return entry.displayName ?? entry.identifier;
}
