/**
 * `/api/v1/agents` beside publish, inspect, review and install: the list of registry
 * Agents the caller may see, and their removal, so Agents have the verbs imported cards
 * have (`list`, `inspect`, `review`, `remove`). It loads neither agent files, harness
 * renderers nor card fetching, so the app can mount it without loading them.
 * @module
 */
import { Hono } from "hono";
import { findAgentRef } from "./entries.ts";
import type { Viewer } from "./identity.ts";
import { listEntries } from "./list_entries.ts";
import { removeEntry } from "./remove_entry.ts";
import { entrySummary } from "./serialize.ts";
import type { RegistryState } from "./state.ts";

type Env = { Variables: { viewer: Viewer } };

/**
 * The routes; mount them at `/api/v1/agents` after the caller is identified as `viewer`.
 *
 * - `GET /` → `{ items, total }`: up to 500 entry summaries in name order (the caller's
 *   own in any state, pending ones they may review, approved ones), `total` counting all.
 * - `DELETE /{id}` (identifier, UUID or namespace/name) → `{ identifier, removed: true }`;
 *   only the owner or an admin may remove an Agent, which removes every version of it.
 */
export function agentRoutes(state: RegistryState): Hono<Env> {
  const agents = new Hono<Env>();
  agents.get("/", (c) => {
    const publicRegistry = state.settings()["deployment.public_registry_enabled"];
    const { rows, total } = listEntries(state.db, c.get("viewer"), "native", { publicRegistry });
    c.header("Cache-Control", "no-store");
    return c.json({ items: rows.map((row) => entrySummary(row)), total });
  });
  agents.delete("/:id", (c) => {
    const ref = findAgentRef(state.db, decodeURIComponent(c.req.param("id")));
    return c.json(removeEntry(state, c.get("viewer"), ref, "native"));
  });
  return agents;
}
