/**
 * A review, the same for every way one arrives (the imports and agents APIs, the review
 * page): the entry's lifecycle changes only when the digest shown is still current, and a
 * registry Agent's version follows it.
 * @module
 */
import type { ReviewRequest } from "../registry/schemas.ts";
import { loadEntry } from "./entries.ts";
import type { Viewer } from "./identity.ts";
import { agentsModule, importsModule } from "./registry_env.ts";
import type { RegistryState } from "./state.ts";

/** Approves or rejects `identifier` as `viewer`; returns the entry's document. */
export async function reviewAndSync(
  state: RegistryState,
  viewer: Viewer,
  identifier: string,
  body: ReviewRequest,
): Promise<Record<string, unknown>> {
  const [{ reviewEntry }, { syncAgentVersion }] = await Promise.all([
    importsModule(),
    agentsModule(),
  ]);
  const doc = reviewEntry(state, viewer, identifier, body);
  const row = loadEntry(state.db, identifier);
  if (row) syncAgentVersion(state, row);
  return doc;
}
