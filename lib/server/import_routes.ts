/**
 * `/api/v1/ard/imports`: governed import of remote A2A Agent Cards, their list, review
 * and removal. Card fetching loads on the first request that needs it.
 * @module
 */
import { Hono } from "hono";
import { ImportA2aRequestSchema, ReviewRequestSchema } from "../registry/schemas.ts";
import type { Limiters } from "./budgets.ts";
import { spendBudget } from "./identify.ts";
import { importsModule, type RegistryEnv } from "./registry_env.ts";
import { reviewAndSync } from "./review_entry.ts";
import type { RegistryState } from "./state.ts";
import { parseBody } from "./_body.ts";

/** The routes; mount them at `/api/v1/ard/imports` after the caller is identified. */
export function importRoutes(
  state: RegistryState,
  limiters: Limiters | undefined,
): Hono<RegistryEnv> {
  const imports = new Hono<RegistryEnv>();
  imports.get("/", async (c) => {
    const { listImports } = await importsModule();
    c.header("Cache-Control", "no-store");
    return c.json(listImports(state, c.get("viewer")));
  });

  imports.post("/a2a", async (c) => {
    const viewer = c.get("viewer");
    spendBudget(c, limiters, "import");
    const body = await parseBody(c, ImportA2aRequestSchema);
    const { importCard } = await importsModule();
    const out = await importCard(state, viewer, body);
    c.header("Cache-Control", "no-store");
    return c.json(out.document, out.created ? 201 : 200);
  });

  imports.post("/:identifier/review", async (c) => {
    const body = await parseBody(c, ReviewRequestSchema);
    return c.json(await reviewAndSync(state, c.get("viewer"), c.req.param("identifier"), body));
  });

  imports.delete("/:identifier", async (c) => {
    const { removeImport } = await importsModule();
    return c.json(removeImport(state, c.get("viewer"), c.req.param("identifier")));
  });
  return imports;
}
