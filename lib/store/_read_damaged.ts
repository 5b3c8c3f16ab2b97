/**
 * Reading a damaged task store for `observal delegate recover`: whether the store is
 * healthy, and every row a copy of it still yields, page damage, a truncated file or a
 * torn write-ahead log notwithstanding.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import type { Task } from "../a2a/tasks/mod.ts";
import { errorMessage } from "../core/mod.ts";
import { join, nodeFs } from "../core/system/mod.ts";
import { walHeaderProblem } from "./_store_faults.ts";
import { parseStoredTask } from "./_stored_task.ts";
import { isTaskId } from "./task_id.ts";

/** One row read back from a damaged database. */
export interface RecoveredRow {
  rowid: number;
  task: Task;
  createdAt?: string;
  updatedAt?: string;
  cancelRequested: number;
  pendingReply: string | null;
  workerPid: number | null;
}

/** What could be read from a damaged copy. */
export interface Readout {
  rows: RecoveredRow[];
  /** Rowids some index or scan showed to exist. */
  knownRowids: Set<number>;
  /** Task ids some index or unreadable row showed to exist. */
  knownIds: Set<string>;
}

/** Rowids probed past the highest one seen: rows beyond a damaged page. */
const PROBE_SLACK = 256;

/** Bytes in the file at `path`, or undefined when there is none. */
export function fileSize(path: string): number | undefined {
  try {
    return nodeFs().statSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * Every row a copy of the database (and its log, if that is sound) still yields. A
 * database that is missing or empty yields none: SQLite would drop a log beside it.
 */
export function readDamaged(path: string, work: string): Readout {
  const { copyFileSync, existsSync } = nodeFs();
  if (!fileSize(path)) return { rows: [], knownRowids: new Set(), knownIds: new Set() };
  const copy = join(work, "damaged.db");
  copyFileSync(path, copy);
  const wal = `${path}-wal`;
  if (existsSync(wal) && !walHeaderProblem(wal)) copyFileSync(wal, `${copy}-wal`);
  trustFileSize(copy);
  return readRows(copy);
}

/** Why the store cannot be used as it is, or undefined when it is healthy. */
export function healthProblem(path: string): string | undefined {
  const wal = walHeaderProblem(`${path}-wal`);
  if (wal) return wal;
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { timeout: 5000 });
    const rows = db.prepare("PRAGMA quick_check").all() as Array<Record<string, unknown>>;
    const results = rows.map((r) => String(Object.values(r)[0]));
    if (results.length === 1 && results[0] === "ok") return undefined;
    return results.slice(0, 3).join("; ");
  } catch (err) {
    return errorMessage(err);
  } finally {
    try {
      db?.close();
    } catch { /* closing a damaged database may fail too */ }
  }
}

const SQLITE_MAGIC = "SQLite format 3\0";

/**
 * A truncated database still claims its old size in its header, and SQLite then refuses to
 * read even its first page. The copy is told to trust the file's real size instead, so the
 * pages that are still there can be read.
 */
function trustFileSize(file: string): void {
  const { closeSync, openSync, readSync, statSync, truncateSync, writeSync } = nodeFs();
  const fd = openSync(file, "r+");
  try {
    const header = new Uint8Array(100);
    if (readSync(fd, header, 0, 100, 0) < 100) return;
    if (new TextDecoder().decode(header.subarray(0, 16)) !== SQLITE_MAGIC) return;
    const view = new DataView(header.buffer);
    const raw = view.getUint16(16);
    const pageSize = raw === 1 ? 65536 : raw;
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return;
    const size = statSync(file).size;
    const pages = Math.floor(size / pageSize);
    if (pages * pageSize !== size) truncateSync(file, pages * pageSize);
    // The in-header size is trusted only when "version-valid-for" equals the change counter.
    view.setUint32(28, pages);
    view.setUint32(92, view.getUint32(24));
    writeSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
}

/** Reads every row that can be read, row by row, skipping the ones that cannot. */
function readRows(file: string): Readout {
  const out: Readout = { rows: [], knownRowids: new Set(), knownIds: new Set() };
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { timeout: 5000 });
  } catch {
    return out;
  }
  try {
    let columns: Set<string>;
    try {
      columns = new Set(
        (db.prepare("PRAGMA table_info(tasks)").all() as Array<{ name: string }>).map((c) =>
          c.name
        ),
      );
    } catch {
      return out;
    }
    if (!columns.has("id") || !columns.has("doc")) return out;
    // Every index holds every rowid, and the primary key's index every id: each one that can
    // be walked says which tasks existed, even when their rows cannot be read.
    collect(db, "SELECT rowid AS r FROM tasks NOT INDEXED", out);
    for (const index of indexNames(db)) {
      const withId = index.startsWith("sqlite_autoindex_tasks");
      collect(db, `SELECT rowid AS r${withId ? ", id" : ""} FROM tasks INDEXED BY "${index}"`, out);
    }
    const optional = ["created_at", "updated_at", "cancel_requested", "pending_reply", "worker_pid"]
      .map((c) => columns.has(c) ? c : `NULL AS ${c}`);
    const byRowid = db.prepare(
      `SELECT id, doc, ${optional.join(", ")} FROM tasks NOT INDEXED WHERE rowid = ?`,
    );
    const highest = Math.max(0, ...out.knownRowids);
    for (let rowid = 1; rowid <= highest + PROBE_SLACK; rowid++) {
      let row: Record<string, unknown> | undefined;
      try {
        row = byRowid.get(rowid) as Record<string, unknown> | undefined;
      } catch {
        continue;
      }
      if (!row) continue;
      out.knownRowids.add(rowid);
      const id = typeof row.id === "string" ? row.id : undefined;
      if (id && isTaskId(id)) out.knownIds.add(id);
      if (!id || typeof row.doc !== "string") continue;
      let task: Task;
      try {
        task = parseStoredTask(id, row.doc);
      } catch {
        continue;
      }
      out.rows.push({
        rowid,
        task,
        createdAt: typeof row.created_at === "string" ? row.created_at : undefined,
        updatedAt: typeof row.updated_at === "string" ? row.updated_at : undefined,
        cancelRequested: row.cancel_requested === 1 ? 1 : 0,
        pendingReply: typeof row.pending_reply === "string" ? row.pending_reply : null,
        workerPid: typeof row.worker_pid === "number" ? row.worker_pid : null,
      });
    }
    return out;
  } finally {
    try {
      db.close();
    } catch { /* see healthProblem */ }
  }
}

/** The task table's indexes, by the schema, else by the names our migrations give them. */
function indexNames(db: DatabaseSync): string[] {
  try {
    const rows = db.prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'tasks'",
    ).all() as Array<{ name: string }>;
    return rows.map((r) => r.name).filter((n) => /^[A-Za-z0-9_]+$/.test(n));
  } catch {
    return [];
  }
}

/** Adds the rowids (and ids) a query yields until it hits a page it cannot read. */
function collect(db: DatabaseSync, sql: string, out: Readout): void {
  try {
    for (const row of db.prepare(sql).iterate() as Iterable<{ r: number; id?: unknown }>) {
      out.knownRowids.add(row.r);
      if (isTaskId(row.id)) out.knownIds.add(row.id);
    }
  } catch { /* the rest of this walk is unreadable; other walks may reach it */ }
}
