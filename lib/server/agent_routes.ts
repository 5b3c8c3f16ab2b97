/**
 * `/api/v1/agents`: registry Agents: publish, list, inspect, review, install and remove,
 * so Agents have the verbs imported cards have. Publishing, inspecting and installing load
 * agent files and harness renderers on their first request; listing and removal load
 * neither.
 * @module
 */
import { Hono } from "hono";
import {
  InstallRequestSchema,
  PublishAgentRequestSchema,
  ReviewRequestSchema,
} from "../registry/schemas.ts";
import { baseUrl } from "./ard_routes.ts";
import { findAgentRef } from "./entries.ts";
import { listEntries } from "./list_entries.ts";
import { agentsModule, type RegistryEnv } from "./registry_env.ts";
import { removeEntry } from "./remove_entry.ts";
import { reviewAndSync } from "./review_entry.ts";
import { entrySummary } from "./serialize.ts";
import type { RegistryState } from "./state.ts";
import { parseBody } from "./_body.ts";

/**
 * The routes; mount them at `/api/v1/agents` after the caller is identified as `viewer`.
 *
 * - `POST /` publishes an Agent (or a new version of one) → its document, 201 when new.
 * - `GET /` → `{ items, total }`: up to 500 entry summaries in name order (the caller's
 *   own in any state, pending ones they may review, approved ones), `total` counting all.
 * - `GET /{id}` → the Agent's detail; `POST /{id}/review` approves or rejects it;
 *   `POST /{id}/install` renders an approved version for one harness.
 * - `DELETE /{id}` (identifier, UUID or namespace/name) → `{ identifier, removed: true }`;
 *   only the owner or an admin may remove an Agent, which removes every version of it.
 */
export function agentRoutes(state: RegistryState): Hono<RegistryEnv> {
  const agents = new Hono<RegistryEnv>();
  agents.post("/", async (c) => {
    const body = await parseBody(c, PublishAgentRequestSchema);
    const { publishAgent } = await agentsModule();
    const out = publishAgent(state, c.get("viewer"), body, baseUrl(state, c));
    return c.json(out.document, out.created ? 201 : 200);
  });

  agents.get("/", (c) => {
    const publicRegistry = state.settings()["deployment.public_registry_enabled"];
    const { rows, total } = listEntries(state.db, c.get("viewer"), "native", { publicRegistry });
    c.header("Cache-Control", "no-store");
    return c.json({ items: rows.map((row) => entrySummary(row)), total });
  });

  agents.get("/:id", async (c) => {
    const { agentDetail } = await agentsModule();
    return c.json(agentDetail(state, c.get("viewer"), decodeURIComponent(c.req.param("id"))));
  });

  agents.post("/:id/review", async (c) => {
    const body = await parseBody(c, ReviewRequestSchema);
    const viewer = c.get("viewer");
    const { agentDetail } = await agentsModule();
    const detail = agentDetail(state, viewer, decodeURIComponent(c.req.param("id")));
    return c.json(await reviewAndSync(state, viewer, detail.identifier, body));
  });

  agents.post("/:id/install", async (c) => {
    const body = await parseBody(c, InstallRequestSchema);
    const { installAgent } = await agentsModule();
    return c.json(
      installAgent(state, c.get("viewer"), decodeURIComponent(c.req.param("id")), body),
    );
  });

  agents.delete("/:id", (c) => {
    const ref = findAgentRef(state.db, decodeURIComponent(c.req.param("id")));
    return c.json(removeEntry(state, c.get("viewer"), ref, "native"));
  });
  return agents;
}
