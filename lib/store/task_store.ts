/**
 * The delegated-task store: one SQLite database shared by the CLI, detached workers and
 * the MCP server, plus a folder per task for blobs (logs, patches).
 * @module
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { isTerminal, type Task, type TaskState } from "../a2a/mod.ts";
import { type Clock, ObservalError } from "../core/mod.ts";
import { type DatabaseSync, openDatabase, transaction } from "../sqlite/mod.ts";
import { MIGRATIONS } from "./_migrations.ts";
import * as Q from "./_queries.ts";
import { indexColumns, IndexKeySchema, parseStoredTask, parseTaskToWrite } from "./_stored_task.ts";
import { isTaskId } from "./task_id.ts";

/** Options for {@linkcode openTaskStore}. */
export interface TaskStoreOptions {
  /** `OBSERVAL_HOME`; the store lives in `<home>/delegations`. */
  home: string;
  /** Stamps `created_at` and `updated_at`. */
  clock: Clock;
}

/** Paging for {@linkcode TaskStore.list}. */
export const ListOptionsSchema = z.strictObject({
  /** How many tasks to return. @default 20 */
  limit: z.int().min(1).max(200).default(20),
  /** How many of the newest tasks to skip. @default 0 */
  offset: z.int().min(0).default(0),
});
export type ListOptions = z.input<typeof ListOptionsSchema>;

/** One page of tasks, newest first, and how many there are in all. */
export interface TaskPage {
  items: Task[];
  total: number;
}

/** What {@linkcode TaskStore.update} did. */
export interface UpdateResult {
  /** The task as stored after the call. */
  task: Task;
  /** False when the task was settled already, or `change` made no difference. */
  changed: boolean;
}

const BUSY_TIMEOUT_MS = 5000;
const LIST_REMEDIATION = "Run `observal delegate list` to see the ids of delegated tasks";

function quoteId(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

function notFound(id: string): ObservalError {
  return new ObservalError("NOT_FOUND", `No delegated task with id ${quoteId(id)}`, {
    resource: id,
    remediation: LIST_REMEDIATION,
  });
}

interface DocRow {
  id: string;
  doc: string;
}

/**
 * Delegated tasks in `<home>/delegations/tasks.db`, safe to share between processes:
 * WAL, a 5 s busy timeout, and every write in one `BEGIN IMMEDIATE` transaction. A
 * settled task (completed, failed, canceled or rejected) is never changed again.
 *
 * @example
 * ```ts
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { systemClock } from "../core/mod.ts";
 * import { openTaskStore } from "./mod.ts";
 *
 * const home = mkdtempSync(join(tmpdir(), "observal-"));
 * const store = openTaskStore({ home, clock: systemClock });
 * store.list(); // { items: [], total: 0 }
 * store.close();
 * rmSync(home, { recursive: true });
 * ```
 */
export class TaskStore {
  /** `<home>/delegations`: the database and one folder per task. */
  readonly root: string;
  readonly #db: DatabaseSync;
  readonly #clock: Clock;
  #closed = false;

  /** Opens (creating if needed) the store under `options.home`; prefer {@linkcode openTaskStore}. */
  constructor(options: TaskStoreOptions) {
    this.root = join(options.home, "delegations");
    this.#clock = options.clock;
    const path = join(this.root, "tasks.db");
    try {
      // Task folders hold logs and patches of private code: owner only.
      mkdirSync(this.root, { recursive: true, mode: 0o700 });
      this.#db = openDatabase(path, { migrations: MIGRATIONS, busyTimeoutMs: BUSY_TIMEOUT_MS });
    } catch (cause) {
      const detail = cause instanceof Error ? `: ${cause.message}` : "";
      throw new ObservalError("UNAVAILABLE", `Cannot open the task store${detail}`, {
        cause,
        resource: path,
        remediation: `Check that ${this.root} is writable, or point OBSERVAL_HOME elsewhere`,
      });
    }
  }

  /**
   * Stores a new task.
   *
   * @param task a task whose id is a fresh lower-case UUID
   * @returns the task as stored
   * @throws {ObservalError} INVALID_ARGUMENT when the task is malformed, ALREADY_EXISTS when
   * the id is taken
   */
  insert(task: Task): Task {
    const valid = parseTaskToWrite(task);
    const cols = indexColumns(valid);
    const now = this.#now();
    const { changes } = transaction(this.#db, () =>
      this.#db.prepare(
        `INSERT INTO tasks (id, state, parent_task_id, child_session_id, workspace_root,
           created_at, updated_at, doc)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      ).run(
        valid.id,
        cols.state,
        cols.parentTaskId,
        cols.childSessionId,
        cols.workspaceRoot,
        now,
        now,
        JSON.stringify(valid),
      ));
    if (changes === 0) {
      throw new ObservalError("ALREADY_EXISTS", `A task with id ${quoteId(valid.id)} exists`, {
        resource: valid.id,
        remediation: "Give the new task a fresh id from crypto.randomUUID()",
      });
    }
    return valid;
  }

  /**
   * The task with this id, or undefined; an id that is not a lower-case UUID is never
   * looked up.
   */
  get(id: string): Task | undefined {
    if (!isTaskId(id)) return undefined;
    const row = this.#db.prepare(Q.SELECT_DOC).get(id) as
      | DocRow
      | undefined;
    return row && parseStoredTask(row.id, row.doc);
  }

  /**
   * The task with this id.
   *
   * @throws {ObservalError} NOT_FOUND naming the id, with `observal delegate list` as the
   * next step
   */
  require(id: string): Task {
    const task = this.get(id);
    if (!task) throw notFound(id);
    return task;
  }

  /**
   * Atomically reads, changes and writes one task. `change` runs inside the write
   * transaction, so it must be quick and synchronous; it receives a copy it may mutate.
   * A settled task is returned as is without calling `change`. When `change` returns
   * undefined, or a task equal to the stored one, nothing is written.
   *
   * @param id the task id
   * @param change builds the new task from the current one
   * @returns the stored task and whether it changed
   * @throws {ObservalError} NOT_FOUND for an unknown id; INVALID_ARGUMENT when the new task
   * is malformed or has another id (nothing is written)
   */
  update(id: string, change: (task: Task) => Task | undefined): UpdateResult {
    if (!isTaskId(id)) throw notFound(id);
    return transaction(this.#db, () => {
      const row = this.#db.prepare(Q.SELECT_DOC).get(id) as
        | DocRow
        | undefined;
      if (!row) throw notFound(id);
      const current = parseStoredTask(row.id, row.doc);
      if (isTerminal(current.status.state)) return { task: current, changed: false };
      const proposed = change(structuredClone(current));
      if (proposed === undefined) return { task: current, changed: false };
      const next = parseTaskToWrite(proposed);
      if (next.id !== id) {
        throw new ObservalError(
          "INVALID_ARGUMENT",
          `Cannot change the id of task ${quoteId(id)} to ${quoteId(next.id)}`,
          { resource: id, remediation: "Keep the id when updating a task" },
        );
      }
      const doc = JSON.stringify(next);
      if (doc === row.doc) return { task: current, changed: false };
      const cols = indexColumns(next);
      this.#db.prepare(
        `UPDATE tasks SET state = ?, parent_task_id = ?, child_session_id = ?,
           workspace_root = ?, updated_at = ?, doc = ?
         WHERE id = ?`,
      ).run(
        cols.state,
        cols.parentTaskId,
        cols.childSessionId,
        cols.workspaceRoot,
        this.#now(),
        doc,
        id,
      );
      return { task: next, changed: true };
    });
  }

  /**
   * Tasks newest first (by insertion), a page at a time.
   *
   * @param options `limit` (1 to 200, default 20) and `offset` (default 0)
   * @returns the page and the total number of tasks
   * @throws {ObservalError} INVALID_ARGUMENT for a limit or offset out of range
   */
  list(options: ListOptions = {}): TaskPage {
    const parsed = ListOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new ObservalError("INVALID_ARGUMENT", "Cannot list tasks with these paging options", {
        remediation: "Use a whole-number limit from 1 to 200 and an offset of 0 or more",
      });
    }
    const { limit, offset } = parsed.data;
    // One read transaction, so the page and the total come from the same snapshot.
    this.#db.exec("BEGIN");
    try {
      const rows = this.#db.prepare(Q.SELECT_PAGE).all(limit, offset) as unknown as DocRow[];
      const total = (this.#db.prepare(Q.COUNT_ALL).get() as { n: number }).n;
      return { items: rows.map((r) => parseStoredTask(r.id, r.doc)), total };
    } finally {
      this.#db.exec("COMMIT");
    }
  }

  /**
   * How many tasks were ever started with this parent (`metadata.observal.parentTaskId`),
   * settled or not.
   */
  countChildren(parentTaskId: string): number {
    if (!isTaskId(parentTaskId)) return 0;
    const row = this.#db.prepare(Q.COUNT_CHILDREN).get(parentTaskId) as { n: number };
    return row.n;
  }

  /** The newest task whose child harness session is `sessionId`, if any. */
  findByChildSession(sessionId: string): Task | undefined {
    return this.#findBy(Q.FIND_BY_CHILD_SESSION, sessionId);
  }

  /** The newest task whose workspace lives at `workspaceRoot`, if any. */
  findByWorkspace(workspaceRoot: string): Task | undefined {
    return this.#findBy(Q.FIND_BY_WORKSPACE, workspaceRoot);
  }

  /**
   * The task's folder, `<root>/<id>`, for logs and patches. The id is checked before any
   * path is built.
   *
   * @param id the task id
   * @param options `create: true` makes the folder (mode 0700) when missing
   * @returns the folder's path
   * @throws {ObservalError} INVALID_ARGUMENT when `id` is not a lower-case UUID
   */
  taskDir(id: string, options: { create?: boolean } = {}): string {
    if (!isTaskId(id)) {
      throw new ObservalError("INVALID_ARGUMENT", `Task id ${quoteId(id)} is not a UUID`, {
        resource: id,
        remediation: LIST_REMEDIATION,
      });
    }
    const dir = join(this.root, id);
    if (options.create) mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /**
   * Asks the task's worker to stop; the worker polls {@linkcode TaskStore.cancelRequested}.
   * Does nothing for a settled task.
   *
   * @throws {ObservalError} NOT_FOUND for an unknown id
   */
  requestCancel(id: string): void {
    if (!isTaskId(id)) throw notFound(id);
    transaction(this.#db, () => {
      if (isTerminal(this.#stateOf(id))) return;
      this.#db.prepare("UPDATE tasks SET cancel_requested = 1 WHERE id = ?").run(id);
    });
  }

  /** Whether a cancel was requested and not yet cleared; false for an unknown id. */
  cancelRequested(id: string): boolean {
    if (!isTaskId(id)) return false;
    const row = this.#db.prepare("SELECT cancel_requested FROM tasks WHERE id = ?").get(id) as
      | { cancel_requested: number }
      | undefined;
    return row?.cancel_requested === 1;
  }

  /** Forgets a cancel request (a worker that acted on it, or a resumed task). */
  clearCancel(id: string): void {
    if (!isTaskId(id)) return;
    transaction(this.#db, () => {
      this.#db.prepare("UPDATE tasks SET cancel_requested = 0 WHERE id = ?").run(id);
    });
  }

  /**
   * Leaves a reply for a remote task's worker to send, replacing any reply not yet taken.
   *
   * @throws {ObservalError} NOT_FOUND for an unknown id; FAILED_PRECONDITION for a settled
   * task
   */
  putReply(id: string, text: string): void {
    if (!isTaskId(id)) throw notFound(id);
    transaction(this.#db, () => {
      if (isTerminal(this.#stateOf(id))) {
        throw new ObservalError(
          "FAILED_PRECONDITION",
          `Task ${quoteId(id)} is settled and takes no replies`,
          { resource: id, remediation: "Start a new delegation with `observal delegate run`" },
        );
      }
      this.#db.prepare("UPDATE tasks SET pending_reply = ? WHERE id = ?").run(text, id);
    });
  }

  /** Takes the pending reply, if any; the same reply is never returned twice. */
  takeReply(id: string): string | undefined {
    if (!isTaskId(id)) return undefined;
    return transaction(this.#db, () => {
      const row = this.#db.prepare("SELECT pending_reply FROM tasks WHERE id = ?").get(id) as
        | { pending_reply: string | null }
        | undefined;
      if (row?.pending_reply == null) return undefined;
      this.#db.prepare("UPDATE tasks SET pending_reply = NULL WHERE id = ?").run(id);
      return row.pending_reply;
    });
  }

  /**
   * Deletes settled tasks last updated before `options.before`, and their folders.
   * Unsettled tasks are kept however old they are.
   *
   * @returns how many tasks were removed
   * @throws {ObservalError} INVALID_ARGUMENT when `before` is not a valid date
   */
  prune(options: { before: Date }): { removed: number } {
    const before = options.before;
    if (!(before instanceof Date) || Number.isNaN(before.getTime())) {
      throw new ObservalError("INVALID_ARGUMENT", "Cannot prune tasks without a valid date", {
        remediation: "Pass the cut-off as a valid Date",
      });
    }
    const rows = transaction(
      this.#db,
      () =>
        this.#db.prepare(Q.PRUNE_SETTLED).all(before.toISOString()) as unknown as { id: string }[],
    );
    // Folders go after the rows commit: a crash in between leaves a stray folder, never a
    // row whose logs are gone.
    for (const { id } of rows) {
      if (isTaskId(id)) rmSync(join(this.root, id), { recursive: true, force: true });
    }
    return { removed: rows.length };
  }

  /** Closes the database; later calls do nothing. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #now(): string {
    return this.#clock.now().toISOString();
  }

  #findBy(sql: string, key: string): Task | undefined {
    if (!IndexKeySchema.safeParse(key).success) return undefined;
    const row = this.#db.prepare(sql).get(key) as DocRow | undefined;
    return row && parseStoredTask(row.id, row.doc);
  }

  /** The state column of an existing task; NOT_FOUND otherwise. */
  #stateOf(id: string): TaskState {
    const row = this.#db.prepare("SELECT state FROM tasks WHERE id = ?").get(id) as
      | { state: TaskState }
      | undefined;
    if (!row) throw notFound(id);
    return row.state;
  }
}
/**
 * Opens the task store under `OBSERVAL_HOME`. Close it when done.
 *
 * @param options the home folder and the clock that stamps changes
 * @returns the store, with its database open
 *
 * @example
 * ```ts
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { systemClock } from "../core/mod.ts";
 * import { openTaskStore } from "./mod.ts";
 *
 * const home = mkdtempSync(join(tmpdir(), "observal-"));
 * const store = openTaskStore({ home, clock: systemClock });
 * store.get("../../etc/passwd"); // undefined: not a task id
 * store.close();
 * rmSync(home, { recursive: true });
 * ```
 */
export function openTaskStore(options: TaskStoreOptions): TaskStore {
  return new TaskStore(options);
}
