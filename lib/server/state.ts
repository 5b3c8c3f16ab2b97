/** What every route handler needs: the database, the clock and injected network parts. */
import type { Clock } from "../core/mod.ts";
import type { DatabaseSync } from "../sqlite/mod.ts";
import type { Settings } from "./settings.ts";

export interface RegistryState {
  readonly db: DatabaseSync;
  readonly clock: Clock;
  /** Current settings (read per request so `settings set` applies at once). */
  settings(): Settings;
  /** Name resolver for card fetches; tests inject one, production uses DNS. */
  readonly resolve?: (hostname: string) => Promise<string[]>;
  /** argv that launches the observal-agents MCP server (before `--harness <key>`). */
  readonly delegationCommand: readonly string[];
  /** The folder holding the database: a write it refuses is said naming it. */
  readonly home?: string;
}
