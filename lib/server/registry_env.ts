/**
 * What the registry app's middleware hands every route: who is asking, and the client
 * address budgets are kept on. Also the route modules loaded on their first request.
 * @module
 */
import type { Viewer } from "./identity.ts";

/** The Hono env of every registry route. */
export type RegistryEnv = { Variables: { viewer: Viewer; client: string } };

/** A module imported on first use, once. */
function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

// Publishing, installing and importing load agent files, harness renderers and card
// fetching; a process that only searches never needs them.
export const agentsModule = onFirstUse(() => import("./agents.ts"));
export const importsModule = onFirstUse(() => import("./imports.ts"));
