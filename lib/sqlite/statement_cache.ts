/**
 * Reuses prepared statements per connection. Under Deno, node:sqlite frees a statement
 * only when the garbage collector finalizes its wrapper, so a fresh `prepare()` per call
 * let a long-running server grow by hundreds of MiB; a bounded LRU keyed by SQL text keeps
 * the number of live statements fixed under both runtimes.
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** Default number of distinct SQL texts kept prepared per connection. */
export const DEFAULT_STATEMENT_CACHE_SIZE = 256;

/**
 * Makes `db.prepare(sql)` return a cached statement for SQL it has prepared recently. The
 * least recently used statement is dropped past `max` (node:sqlite has no way to finalize
 * one early; the collector or `close()` does it). `close()` empties the cache, since every
 * statement dies with its connection.
 *
 * A cached statement is shared: callers must not change its settings (`setReadBigInts`
 * and the like) nor hold an `iterate()` open across another use of the same SQL.
 *
 * @param db The connection; its `prepare` and `close` are wrapped in place.
 * @param max Most statements kept.
 * @returns The same connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { cacheStatements } from "./statement_cache.ts";
 * const db = cacheStatements(new DatabaseSync(":memory:"));
 * assert.equal(db.prepare("SELECT 1"), db.prepare("SELECT 1"));
 * db.close();
 * ```
 */
export function cacheStatements(
  db: DatabaseSync,
  max: number = DEFAULT_STATEMENT_CACHE_SIZE,
): DatabaseSync {
  const prepare = db.prepare.bind(db);
  const close = db.close.bind(db);
  // A Map iterates in insertion order: re-inserting on use keeps the oldest first.
  const cache = new Map<string, StatementSync>();
  const cached = (sql: string, ...rest: unknown[]): StatementSync => {
    // Options (Node's newer prepare options) change the statement: never share those.
    if (rest.length > 0 && rest[0] !== undefined) {
      return (prepare as (...a: unknown[]) => StatementSync)(sql, ...rest);
    }
    let statement = cache.get(sql);
    if (statement) {
      cache.delete(sql);
    } else {
      statement = prepare(sql);
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  };
  Object.assign(db, {
    prepare: cached,
    close: () => {
      cache.clear();
      close();
    },
  });
  return db;
}
