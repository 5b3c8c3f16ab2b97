/**
 * Opening the registry database, apart from the HTTP app: the embedded registry's direct
 * path reads through it without loading hono or the routes.
 * @module
 */
import { dirname, join } from "../core/system/mod.ts";
import type { Clock } from "../core/mod.ts";
import { type DatabaseSync, openDatabase } from "../sqlite/mod.ts";
import { MIGRATIONS } from "./_migrations.ts";
import { readSettings } from "./settings.ts";
import { registerSearchFunctions } from "./search.ts";
import type { RegistryState } from "./state.ts";

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
    home: dirname(options.path),
    settings: () => readSettings(db),
    close: () => db.close(),
  };
}
