/**
 * `observal delegate recover`: rebuilds a lost or damaged task store from what can still
 * be read: each task folder's record (`task.json`, never older than the task's committed
 * row) and every row that SQLite can still read and that parses as a task, copied into a
 * fresh database. The old files are moved aside (`tasks.db.damaged-<timestamp>`), never
 * deleted.
 * @module
 */
import { join, nodeFs } from "../core/system/mod.ts";
import { DatabaseSync } from "node:sqlite";
import { errorMessage, ObservalError } from "../core/mod.ts";
import { openDatabase, transaction } from "../sqlite/mod.ts";
import { MIGRATIONS } from "./_migrations.ts";
import { indexColumns } from "./_stored_task.ts";
import { type RawRow, readRecord, type TaskRow, writeRecord } from "./_task_record.ts";
import { isTaskId } from "./task_id.ts";
import { fileSize, healthProblem, readDamaged, type RecoveredRow } from "./_read_damaged.ts";
import type { TaskStoreOptions } from "./task_store.ts";

/** What {@linkcode recoverTaskStore} found and did. */
export interface RecoveryReport {
  /** The store's database file. */
  path: string;
  /**
   * `missing` (no store and no task folders) and `healthy` changed nothing; `recovered`
   * rebuilt the store.
   */
  state: "missing" | "healthy" | "recovered";
  /** Why the store was taken for lost or damaged; absent when it was not. */
  problem?: string;
  /** Tasks in the new store. */
  kept: number;
  /** Of those, how many were taken from their folder's record (the rest from old rows). */
  fromFolders: number;
  /**
   * Tasks known to have existed (by the id index, a task folder, or a row that could not be
   * parsed) that could not be read. A lower bound: a task whose every trace is in the
   * damaged part of the file cannot be counted.
   */
  lost: number;
  /** Where the damaged files were moved. */
  movedAside: string[];
}

/** What the task folders hold. */
interface Folders {
  /** Readable records, by task id. */
  records: Map<string, TaskRow>;
  /** Ids of folders without a readable record (a task made by an older version, or lost). */
  bare: string[];
}

/**
 * Checks the task store and, when it is damaged, rebuilds it: every readable task is kept,
 * the damaged database (and its write-ahead log) is moved aside as
 * `tasks.db.damaged-<timestamp>`, and the report says how many tasks were kept and lost.
 * A healthy store is left as it is. Stop other observal processes first: one that still
 * has the damaged file open keeps writing to it.
 *
 * @param options the home folder and the clock that names the damaged copy
 * @returns what was found and done
 * @throws {ObservalError} UNAVAILABLE when another recovery holds the lock or the new store
 * cannot be written
 *
 * @example
 * ```ts
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { systemClock } from "../core/mod.ts";
 * import { recoverTaskStore } from "./mod.ts";
 *
 * const home = mkdtempSync(join(tmpdir(), "observal-"));
 * recoverTaskStore({ home, clock: systemClock }); // { state: "missing", kept: 0, ... }
 * rmSync(home, { recursive: true });
 * ```
 */
export function recoverTaskStore(options: TaskStoreOptions): RecoveryReport {
  const { closeSync, existsSync, mkdtempSync, openSync, renameSync, rmSync } = nodeFs();
  const root = join(options.home, "delegations");
  const path = join(root, "tasks.db");
  const report: RecoveryReport = {
    path,
    state: "missing",
    kept: 0,
    fromFolders: 0,
    lost: 0,
    movedAside: [],
  };
  if (!existsSync(root)) return report;
  const lock = join(root, "recover.lock");
  let lockFd: number;
  try {
    lockFd = openSync(lock, "wx", 0o600);
  } catch (cause) {
    throw new ObservalError("UNAVAILABLE", "Another recovery of the task store is running", {
      cause,
      resource: lock,
      remediation: `Wait for it to finish; if none is running, delete ${lock} and try again`,
    });
  }
  try {
    const folders = readFolders(root);
    const problem = storeProblem(path, folders);
    if (!problem) {
      if (existsSync(path)) report.state = "healthy";
      return report;
    }
    report.problem = problem;
    const work = mkdtempSync(join(root, ".recover-"));
    try {
      const readout = readDamaged(path, work);
      for (const id of folders.bare) readout.knownIds.add(id);
      const rows = merged(readout.rows, folders.records);
      const fresh = join(work, "tasks.db");
      writeFresh(fresh, root, rows, options.clock.now().toISOString());
      const keptIds = new Set(rows.map((r) => r.task.id));
      const readIds = new Set(readout.rows.map((r) => r.task.id));
      const keptRowids = new Set(readout.rows.map((r) => r.rowid));
      // A task only its folder still held stands for one of the rows that could not be read.
      const onlyInFolders = rows.filter((r) => !readIds.has(r.task.id)).length;
      const lostIds = [...readout.knownIds].filter((id) => !keptIds.has(id)).length;
      const lostRows = [...readout.knownRowids].filter((r) => !keptRowids.has(r)).length;
      report.kept = rows.length;
      report.fromFolders = rows.filter((r) => folders.records.has(r.task.id)).length;
      report.lost = Math.max(lostIds, lostRows - onlyInFolders, 0);
      report.movedAside = moveAside(path, stamp(options.clock.now()));
      renameSync(fresh, path);
      report.state = "recovered";
      return report;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  } finally {
    closeSync(lockFd);
    rmSync(lock, { force: true });
  }
}

/** The records in every task folder under `root`. */
function readFolders(root: string): Folders {
  const out: Folders = { records: new Map(), bare: [] };
  for (const id of taskFolders(root)) {
    const record = readRecord(join(root, id), id);
    if ("problem" in record) out.bare.push(id);
    else out.records.set(id, record);
  }
  return out;
}

/**
 * Why the store must be rebuilt, or undefined when it need not be: its database is missing
 * or empty while task folders or a write-ahead log remain, it is damaged, or it lacks
 * tasks (or holds older versions of them) that their folders' records hold.
 */
function storeProblem(path: string, folders: Folders): string | undefined {
  const size = fileSize(path);
  if (!size) {
    const left = folders.records.size + folders.bare.length > 0 ||
      (fileSize(`${path}-wal`) ?? 0) > 0;
    if (!left) return undefined;
    return size === undefined ? "tasks.db is missing" : "tasks.db is empty";
  }
  const damaged = healthProblem(path);
  if (damaged) return damaged;
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { timeout: 5000, readOnly: true });
    const stored = new Map(
      (db.prepare("SELECT id, updated_at FROM tasks").all() as Array<
        { id: string; updated_at: string }
      >).map((r) => [r.id, r.updated_at]),
    );
    let missing = 0;
    let behind = 0;
    for (const [id, record] of folders.records) {
      const updated = stored.get(id);
      if (updated === undefined) missing++;
      else if (record.updatedAt > updated) behind++;
    }
    if (missing + behind === 0) return undefined;
    return [
      missing ? `${missing} task(s) in their folders are missing from tasks.db` : "",
      behind ? `${behind} task(s) are older in tasks.db than in their folders` : "",
    ].filter(Boolean).join("; ");
  } catch (err) {
    return errorMessage(err);
  } finally {
    try {
      db?.close();
    } catch { /* see healthProblem */ }
  }
}

/**
 * One row per task: its folder's record where it has one (written under the row's write
 * lock, it is never older than the committed row), else the newest row read; in the order
 * the tasks were made.
 */
function merged(read: RecoveredRow[], records: Map<string, TaskRow>): RecoveredRow[] {
  const byId = new Map(newestPerId(read).map((r) => [r.task.id, r]));
  for (const [id, r] of records) {
    byId.set(id, {
      rowid: byId.get(id)?.rowid ?? r.rowid,
      task: r.task,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      cancelRequested: r.cancelRequested ? 1 : 0,
      pendingReply: r.pendingReply,
      workerPid: r.workerPid,
    });
  }
  const created = (r: RecoveredRow) => r.createdAt ?? r.task.metadata.observal.createdAt;
  return [...byId.values()].sort((a, b) =>
    created(a) === created(b)
      ? a.rowid - b.rowid || (a.task.id < b.task.id ? -1 : 1)
      : created(a) < created(b)
      ? -1
      : 1
  );
}

/** Folders named by a task id: each belonged to a task. */
function taskFolders(root: string): string[] {
  const { readdirSync } = nodeFs();
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && isTaskId(e.name))
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/** One row per task id (the one changed last), in the order the tasks were inserted. */
function newestPerId(rows: RecoveredRow[]): RecoveredRow[] {
  const byId = new Map<string, RecoveredRow>();
  for (const row of rows) {
    const seen = byId.get(row.task.id);
    if (!seen || (row.updatedAt ?? "") > (seen.updatedAt ?? "")) byId.set(row.task.id, row);
  }
  return [...byId.values()].sort((a, b) => a.rowid - b.rowid);
}

/**
 * Writes the kept rows into a new, self-contained database file, and each task's record
 * into its folder under `root` as the new file holds it.
 */
function writeFresh(file: string, root: string, rows: RecoveredRow[], now: string): void {
  const db = openDatabase(file, { migrations: MIGRATIONS });
  try {
    transaction(db, () => {
      const insert = db.prepare(
        `INSERT INTO tasks (id, state, parent_task_id, child_session_id, workspace_root,
           created_at, updated_at, cancel_requested, pending_reply, doc, worker_pid)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const row of rows) {
        const cols = indexColumns(row.task);
        const created = row.createdAt ?? row.task.metadata.observal.createdAt ?? now;
        insert.run(
          row.task.id,
          cols.state,
          cols.parentTaskId,
          cols.childSessionId,
          cols.workspaceRoot,
          created,
          row.updatedAt ?? created,
          row.cancelRequested,
          row.pendingReply,
          JSON.stringify(row.task),
          row.workerPid,
        );
      }
    });
    // A task made by an older version gets a record too; the rest get their new rowid.
    for (const row of db.prepare(`SELECT rowid, * FROM tasks`).all() as unknown as RawRow[]) {
      writeRecord(join(root, row.id), row);
    }
    // One file, no log beside it, so a rename moves all of it.
    db.exec("PRAGMA journal_mode=DELETE");
  } finally {
    db.close();
  }
}

/**
 * Moves the database and its log and shared-memory files aside, those that are there;
 * returns the new paths.
 */
function moveAside(path: string, when: string): string[] {
  const { existsSync, renameSync } = nodeFs();
  let aside = `${path}.damaged-${when}`;
  const suffixes = ["", "-wal", "-shm"];
  for (let n = 2; suffixes.some((s) => existsSync(`${aside}${s}`)); n++) {
    aside = `${path}.damaged-${when}-${n}`;
  }
  const moved: string[] = [];
  for (const suffix of suffixes) {
    if (!existsSync(`${path}${suffix}`)) continue;
    renameSync(`${path}${suffix}`, `${aside}${suffix}`);
    moved.push(`${aside}${suffix}`);
  }
  return moved;
}

/** `2026-09-27T10:00:00.123Z` → `20260927T100000Z`. */
function stamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
}
