/**
 * `observal a2a serve`: an approved registry Agent as an A2A agent. Each message becomes a
 * delegated task run by lib/runner exactly as `delegate run` runs one; the card and the
 * JSON-RPC endpoint (A2A v1.0 and v0.3) come from @a2a-js/sdk's server pieces.
 * @module
 */
export { createAgentApp, MAX_REQUEST_BYTES } from "./app.ts";
export { type Authorize, authorizer, type Principal } from "./auth.ts";
export { registryKeyOwner } from "./registry_keys.ts";
export { hybridCard, PATCH_MEDIA_TYPE, servedCard } from "./card.ts";
export {
  type CardSigner,
  cardSigner,
  type CardSigningKey,
  fileCardSigner,
  JWKS_PATH,
  readCardSigningKey,
  signCard,
} from "./card_signing.ts";
export { type ServedAgent, servedAgentExecutor } from "./executor.ts";
export { RunSlots } from "./run_slots.ts";
export { createHostApp, type HostedAgent, slugsFor } from "./host_app.ts";
export { MAX_KEPT_TASKS, TaskMemory } from "./task_memory.ts";
export { Conversations } from "./conversations.ts";
