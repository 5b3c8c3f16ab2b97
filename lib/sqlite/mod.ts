/**
 * node:sqlite with the settings every observal database needs: WAL, a busy timeout,
 * foreign keys, versioned migrations and a transaction helper (node:sqlite has none).
 * @module
 */
import { dirname, makeDir, nodeFs, pathExists, pauseSync } from "../core/system/mod.ts";
import { DatabaseSync } from "node:sqlite";
import { cacheStatements } from "./statement_cache.ts";

export type { DatabaseSync };

/** Options for {@linkcode openDatabase}. */
export interface OpenOptions {
  /** Ordered migrations; entry i brings the schema to version i + 1. */
  migrations: readonly string[];
  /** How long a writer waits for a lock, in ms. @default 5000 */
  busyTimeoutMs?: number;
}

/** Opens (creating if needed) a database file and brings its schema up to date. */
export function openDatabase(path: string, options: OpenOptions): DatabaseSync {
  // Created private: the folder holds API key hashes, task logs and patches.
  // Only a new database needs its folder: a permission-fenced worker may open an existing
  // file without being allowed to write the folder that holds it.
  if (path !== ":memory:" && !pathExists(path)) {
    makeDir(dirname(path), 0o700);
    // SQLite creates its -wal and -shm files with the database's own mode: made 0600
    // here, all three are private whatever the umask (an empty file is an empty database).
    nodeFs().closeSync(nodeFs().openSync(path, "a", 0o600));
  }
  const timeoutMs = options.busyTimeoutMs ?? 5000;
  const db = new DatabaseSync(path, { timeout: timeoutMs });
  try {
    useWal(db, timeoutMs);
    db.exec("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;");
    migrate(db, options.migrations);
  } catch (err) {
    db.close();
    throw err;
  }
  // Reused statements keep memory flat in long-running processes (see statement_cache.ts).
  return cacheStatements(db);
}

/**
 * Puts the database in WAL mode, waiting up to `timeoutMs` for other processes. Turning a
 * new database to WAL takes an exclusive lock, and when other processes are opening it too
 * SQLite may refuse at once ("database is locked") instead of calling its busy handler,
 * which would otherwise wait: so the wait is here.
 */
export function useWal(db: Pick<DatabaseSync, "exec">, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 1;; pause = Math.min(pause * 2, 50)) {
    try {
      db.exec("PRAGMA journal_mode=WAL");
      return;
    } catch (err) {
      // node:sqlite sets `errcode` under Node only, so the message is checked too.
      const code = (err as { errcode?: number }).errcode;
      const busy = (typeof code === "number" && (code & 0xff) === 5) ||
        /database is locked/i.test((err as Error).message);
      if (!busy || Date.now() >= deadline) throw err;
      pauseSync(pause);
    }
  }
}

/**
 * Applies the migrations the database has not seen, each in its own transaction. The
 * version is read again inside the write lock, so processes opening a new database at the
 * same moment never run a migration twice.
 */
export function migrate(db: DatabaseSync, migrations: readonly string[]): void {
  const version = () =>
    (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  const check = (current: number) => {
    if (current > migrations.length) {
      throw new Error(
        `Database schema version ${current} is newer than this observal knows (${migrations.length}); upgrade observal`,
      );
    }
  };
  // An up-to-date database (every open but the first) costs this one read.
  let seen = version();
  check(seen);
  while (seen < migrations.length) {
    seen = transaction(db, () => {
      const current = version();
      check(current);
      if (current >= migrations.length) return current;
      db.exec(migrations[current]);
      db.exec(`PRAGMA user_version = ${current + 1}`);
      return current + 1;
    });
  }
}

/** Runs `fn` inside BEGIN IMMEDIATE … COMMIT, rolling back when it throws. */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const out = fn();
    db.exec("COMMIT");
    return out;
  } catch (err) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw err;
  }
}
