/**
 * The embedded registry: a SQLite-backed server speaking the same HTTP API as an Observal
 * server. Open it with {@linkcode openRegistry}, then serve `createRegistryApp` over HTTP or
 * call its `fetch` in process.
 * @module
 */
import { join } from "../core/paths.ts";
import type { Clock } from "../core/mod.ts";
import { type DatabaseSync, openDatabase } from "../sqlite/mod.ts";
import { MIGRATIONS } from "./_migrations.ts";
import { readSettings } from "./settings.ts";
import { registerSearchFunctions } from "./search.ts";
import type { RegistryState } from "./state.ts";

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

/** Path of the embedded registry database under OBSERVAL_HOME. */
export function registryPath(home: string): string {
  return join(home, "registry.db");
}

/** Opens the registry database (migrating it) and builds the state routes run on. */
export function openRegistry(options: {
  path: string;
  clock: Clock;
  resolve?: (hostname: string) => Promise<string[]>;
  delegationCommand: readonly string[];
}): RegistryState & { close(): void } {
  const db: DatabaseSync = openDatabase(options.path, { migrations: MIGRATIONS });
  registerSearchFunctions(db);
  return {
    db,
    clock: options.clock,
    resolve: options.resolve,
    delegationCommand: options.delegationCommand,
    settings: () => readSettings(db),
    close: () => db.close(),
  };
}
