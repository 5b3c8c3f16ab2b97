/**
 * The embedded registry: a SQLite-backed server speaking the same HTTP API as an Observal
 * server. Open it with {@linkcode openRegistry}, then serve `createRegistryApp` over HTTP, or
 * call it in process through {@linkcode embeddedTransport}.
 * @module
 */
export { createRegistryApp, type RateLimitOptions, type RegistryAppOptions } from "./app.ts";
export {
  createRateLimiter,
  type RateDecision,
  type RateLimiter,
  type RateLimiterOptions,
} from "./rate_limiter.ts";
export type { RegistryState } from "./state.ts";
export { readSettings, SETTINGS, type Settings, writeSetting } from "./settings.ts";
export { createUser, issueKey, type UserRole } from "./identity.ts";
export { MIGRATIONS } from "./_migrations.ts";
export { openRegistry, registryPath } from "./open.ts";
export { embeddedTransport } from "./embedded.ts";
