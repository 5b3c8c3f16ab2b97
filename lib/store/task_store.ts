/**
 * The delegated-task store: one SQLite database shared by the CLI, detached workers and
 * the MCP server, plus a folder per task for blobs (logs, patches) and the task's record
 * (`task.json`, its row as last written), from which a lost database is rebuilt.
 *
 * One module past 400 lines: every method is a transaction on the same connection, sharing
 * its prepared queries and the one checked write path.
 * @module
 */
import { join, makeDir, nodeFs, pathExists } from "../core/system/mod.ts";
import { z } from "zod";
import {
  isInterrupted,
  isTerminal,
  type ObservalTaskMeta,
  type Part,
  type Task,
  TASK_STATES,
  type TaskState,
  TaskStateSchema,
} from "../a2a/tasks/mod.ts";
import { type Clock, ObservalError } from "../core/mod.ts";
import { type DatabaseSync, openDatabase, transaction } from "../sqlite/mod.ts";
import { MIGRATIONS } from "./_migrations.ts";
import * as Q from "./_queries.ts";
import { decodeReply, encodeReply } from "./_reply_parts.ts";
import { damagedStore, lostDatabase, storeFault, walHeaderProblem } from "./_store_faults.ts";
import {
  type RawRow,
  readRecord,
  SELECT_ROW,
  settledRecord,
  TASK_RECORD_FILE,
  writeRecord,
} from "./_task_record.ts";
import { indexColumns, IndexKeySchema, parseStoredTask, parseTaskToWrite } from "./_stored_task.ts";
import { stateWords } from "./state_words.ts";
import { TASK_LOGS, type TaskLogName } from "./task_logs.ts";
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
  /** Only tasks in one of these states; every task when absent. */
  states: z.array(TaskStateSchema).min(1).optional(),
});
export type ListOptions = z.input<typeof ListOptionsSchema>;

/** One page of tasks, newest first, and how many match in all. */
export interface TaskPage {
  items: Task[];
  total: number;
}

/** An apply of a task's patch, as {@linkcode TaskStore.recordApplied} records it. */
export type Applied = NonNullable<ObservalTaskMeta["applied"]>;

/** What {@linkcode TaskStore.update} did. */
export interface UpdateResult {
  /** The task as stored after the call. */
  task: Task;
  /** False when the task was settled already, or `change` made no difference. */
  changed: boolean;
}

/**
 * What {@linkcode TaskStore.acceptReply} did. A refused reply was not stored: `settled`
 * (the task is over), `canceling` (a cancel claimed the question first) or `not-waiting`
 * (the task is not waiting for input, usually because another reply was accepted first).
 */
export type ReplyOutcome =
  | { accepted: true; task: Task }
  | { accepted: false; reason: "settled" | "canceling" | "not-waiting"; task: Task };

/** What {@linkcode TaskStore.prune} removed. */
export interface PruneResult {
  /** Settled tasks deleted, with their folders. */
  removed: number;
  /** Task folders deleted because no stored task owns them. */
  orphans: number;
}

const BUSY_TIMEOUT_MS = 5000;
const WAITING = TASK_STATES.filter(isInterrupted).map((s) => `'${s}'`).join(", ");
/**
 * A task folder is made just before its row is written; a folder younger than this is
 * never taken for an orphan, so prune cannot remove the folder of a task being started.
 */
export const ORPHAN_FOLDER_GRACE_MS = 10 * 60_000;
const LIST_REMEDIATION = "Run `observal delegate list` to see the ids of delegated tasks";
/** Fewest characters of a task id that {@linkcode TaskStore.resolveId} takes as a prefix. */
export const MIN_TASK_ID_PREFIX = 4;
/** Most tasks an ambiguous prefix's error names. */
export const MAX_PREFIX_CANDIDATES = 5;
const PREFIX = /^[0-9a-f-]*$/;

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

interface KeyRow {
  r: number;
  c: string;
}

/** Newest first, as SELECT_PAGE orders: by created_at, then by insertion. */
function newestFirst(a: KeyRow, b: KeyRow): number {
  return a.c === b.c ? b.r - a.r : a.c < b.c ? 1 : -1;
}

/**
 * Delegated tasks in `<home>/delegations/tasks.db`, safe to share between processes:
 * WAL, a 5 s busy timeout, and every write in one `BEGIN IMMEDIATE` transaction. A
 * settled task (completed, failed, canceled or rejected) is never changed again.
 *
 * A damaged database (or write-ahead log) is reported as an UNAVAILABLE error naming the
 * file and `observal delegate recover`; a full disk says so.
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
  /** `<root>/tasks.db`. */
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #clock: Clock;
  readonly #home: string;
  #closed = false;
  /** Set by {@linkcode TaskStore.#tx} for the step it runs: told when a record is written. */
  #onRecord: (() => void) | undefined;

  /** Opens (creating if needed) the store under `options.home`; prefer {@linkcode openTaskStore}. */
  constructor(options: TaskStoreOptions) {
    this.root = join(options.home, "delegations");
    this.#clock = options.clock;
    this.#home = options.home;
    const path = join(this.root, "tasks.db");
    this.path = path;
    const wal = `${path}-wal`;
    const walProblem = walHeaderProblem(wal);
    if (walProblem) throw damagedStore(wal, walProblem);
    // Never an empty store in place of a lost one: its tasks are still in their folders.
    const lost = lostDatabase(this.root, path);
    if (lost) throw lost;
    try {
      // Task folders hold logs and patches of private code: owner only.
      // Made with the database; a fenced worker may open the file but not write the folder.
      if (!pathExists(path)) makeDir(this.root, 0o700);
      this.#db = openDatabase(path, { migrations: MIGRATIONS, busyTimeoutMs: BUSY_TIMEOUT_MS });
    } catch (cause) {
      const fault = storeFault(cause, path, options.home);
      if (fault) throw fault;
      const detail = cause instanceof Error ? `: ${cause.message}` : "";
      throw new ObservalError("UNAVAILABLE", `Cannot open the task store${detail}`, {
        cause,
        resource: path,
        remediation: `Check that ${this.root} is writable, or point OBSERVAL_HOME elsewhere`,
      });
    }
  }

  /**
   * Stores a new task. Its worker is taken to be starting until
   * {@linkcode TaskStore.setWorkerPid} records one.
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
    const { changes } = this.#tx(valid.id, () => {
      const done = this.#db.prepare(
        `INSERT INTO tasks (id, state, parent_task_id, child_session_id, workspace_root,
           created_at, updated_at, doc, worker_pid)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT (id) DO NOTHING`,
      ).run(
        valid.id,
        cols.state,
        cols.parentTaskId,
        cols.childSessionId,
        cols.workspaceRoot,
        now,
        now,
        JSON.stringify(valid),
      );
      if (done.changes > 0) this.#saveRecord(valid.id);
      return done;
    });
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
    const row = this.#guard(() => this.#db.prepare(Q.SELECT_DOC).get(id)) as DocRow | undefined;
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
   * A settled task is returned as is without calling `change`; so is a task whose record
   * in its folder is settled while its row is not (a row put back from an older copy), and
   * the row is brought up to the record. When `change` returns
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
    return this.#tx(id, () => {
      const row = this.#db.prepare(Q.SELECT_DOC).get(id) as DocRow | undefined;
      if (!row) throw notFound(id);
      const current = parseStoredTask(row.id, row.doc);
      if (isTerminal(current.status.state)) return { task: current, changed: false };
      // The row is behind a settled record: the settled state is taken, never overwritten.
      const settled = settledRecord(join(this.root, id), id);
      if (settled) {
        this.#write(id, settled, JSON.stringify(settled));
        this.#saveRecord(id);
        return { task: settled, changed: false };
      }
      const proposed = change(structuredClone(current));
      if (proposed === undefined) return { task: current, changed: false };
      const next = this.#checked(id, proposed);
      const doc = JSON.stringify(next);
      if (doc === row.doc) return { task: current, changed: false };
      this.#write(id, next, doc);
      this.#saveRecord(id);
      return { task: next, changed: true };
    });
  }

  /**
   * Forgets the task's child process (`childPid`, `childStartTime`), settled or not: once
   * the child is ended or gone, its pid may be given to any process. {@linkcode update}
   * leaves settled tasks alone, and the reaper settles before it ends the child.
   *
   * @throws {ObservalError} NOT_FOUND for an unknown id
   */
  forgetChild(id: string): void {
    if (!isTaskId(id)) throw notFound(id);
    this.#tx(id, () => {
      const row = this.#db.prepare(Q.SELECT_DOC).get(id) as DocRow | undefined;
      if (!row) throw notFound(id);
      const next = parseStoredTask(row.id, row.doc);
      const meta = next.metadata.observal;
      if (meta.childPid === undefined && meta.childStartTime === undefined) return;
      delete meta.childPid;
      delete meta.childStartTime;
      this.#write(id, next, JSON.stringify(next));
      this.#saveRecord(id);
    });
  }

  /**
   * Records that the task's patch was applied to the caller's repository, unless an apply
   * is recorded already. Works on settled tasks ({@linkcode update} leaves those alone):
   * a task's patch exists only once it completed.
   *
   * @returns whether this call recorded it, and the task as stored after the call
   * @throws {ObservalError} NOT_FOUND for an unknown id
   */
  recordApplied(id: string, applied: Applied): { recorded: boolean; task: Task } {
    if (!isTaskId(id)) throw notFound(id);
    return this.#tx(id, () => {
      const row = this.#db.prepare(Q.SELECT_DOC).get(id) as DocRow | undefined;
      if (!row) throw notFound(id);
      const task = parseStoredTask(row.id, row.doc);
      if (task.metadata.observal.applied) return { recorded: false, task };
      task.metadata.observal.applied = applied;
      const next = this.#checked(id, task);
      this.#write(id, next, JSON.stringify(next));
      this.#saveRecord(id);
      return { recorded: true, task: next };
    });
  }

  /**
   * Takes a reply to a task that waits for input, in one step: the task is changed by
   * `resume` (which must move it out of the waiting state), the reply is left for the next
   * worker, and the previous worker's pid is forgotten. Of replies racing for one
   * question exactly one is accepted; a cancel that claimed the question first
   * ({@linkcode TaskStore.requestCancel}) makes every reply refused.
   *
   * @param id the task id
   * @param parts the reply as A2A parts (a text reply is `[{ text }]`)
   * @param resume builds the resumed task from the waiting one
   * @returns whether the reply was accepted, and the task as stored after the call
   * @throws {ObservalError} NOT_FOUND for an unknown id; INVALID_ARGUMENT for an empty reply
   * or a `resume` that leaves the task waiting or settled
   */
  acceptReply(id: string, parts: readonly Part[], resume: (task: Task) => Task): ReplyOutcome {
    if (!isTaskId(id)) throw notFound(id);
    const reply = encodeReply(parts);
    return this.#tx(id, () => {
      const row = this.#db.prepare(
        "SELECT id, doc, cancel_requested FROM tasks WHERE id = ?",
      ).get(id) as (DocRow & { cancel_requested: number }) | undefined;
      if (!row) throw notFound(id);
      const current = parseStoredTask(row.id, row.doc);
      const state = current.status.state;
      if (isTerminal(state)) return { accepted: false, reason: "settled", task: current };
      if (row.cancel_requested === 1) {
        return { accepted: false, reason: "canceling", task: current };
      }
      if (!isInterrupted(state)) {
        return { accepted: false, reason: "not-waiting", task: current };
      }
      const next = this.#checked(id, resume(structuredClone(current)));
      if (isInterrupted(next.status.state) || isTerminal(next.status.state)) {
        throw new ObservalError(
          "INVALID_ARGUMENT",
          `A reply must resume task ${quoteId(id)}, not leave it ${stateWords(next.status.state)}`,
          { resource: id, remediation: "Move the task to TASK_STATE_WORKING in `resume`" },
        );
      }
      this.#write(id, next, JSON.stringify(next));
      this.#db.prepare("UPDATE tasks SET pending_reply = ?, worker_pid = 0 WHERE id = ?").run(
        reply,
        id,
      );
      this.#saveRecord(id);
      return { accepted: true, task: next };
    });
  }

  /**
   * Tasks newest first (by insertion), a page at a time, optionally only those in some
   * states. Every page is read from an index in order, so its cost does not grow with the
   * store: with `states`, each state's newest `offset + limit` tasks are read and merged.
   *
   * @param options `limit` (1 to 200, default 20), `offset` (default 0) and `states`
   * @returns the page and how many tasks match in all
   * @throws {ObservalError} INVALID_ARGUMENT for a limit or offset out of range, or an
   * unknown state
   */
  list(options: ListOptions = {}): TaskPage {
    const parsed = ListOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new ObservalError("INVALID_ARGUMENT", "Cannot list tasks with these options", {
        remediation: "Use a whole-number limit from 1 to 200, an offset of 0 or more and " +
          `states among ${TASK_STATES.join(", ")}`,
      });
    }
    const { limit, offset, states } = parsed.data;
    return this.#guard(() => {
      // One read transaction, so the page and the total come from the same snapshot.
      this.#db.exec("BEGIN");
      try {
        if (!states) {
          const rows = this.#db.prepare(Q.SELECT_PAGE).all(limit, offset) as unknown as DocRow[];
          const total = (this.#db.prepare(Q.COUNT_ALL).get() as { n: number }).n;
          return { items: rows.map((r) => parseStoredTask(r.id, r.doc)), total };
        }
        const keys = this.#db.prepare(Q.SELECT_STATE_PAGE_KEYS);
        const count = this.#db.prepare(Q.COUNT_STATE);
        const doc = this.#db.prepare(Q.SELECT_DOC_BY_ROWID);
        let total = 0;
        const candidates: KeyRow[] = [];
        for (const state of new Set(states)) {
          candidates.push(...keys.all(state, offset + limit) as unknown as KeyRow[]);
          total += (count.get(state) as { n: number }).n;
        }
        const page = candidates.sort(newestFirst).slice(offset, offset + limit);
        const items = page.map(({ r }) => {
          const row = doc.get(r) as unknown as DocRow;
          return parseStoredTask(row.id, row.doc);
        });
        return { items, total };
      } finally {
        if (this.#db.isTransaction) this.#db.exec("COMMIT");
      }
    });
  }

  /**
   * The full id of the task that `input` names: a whole task id, or the start of exactly
   * one (at least {@linkcode MIN_TASK_ID_PREFIX} characters), found by a range on the
   * primary key's index. A whole id is returned as given, whether or not it is stored.
   *
   * @param input what the user typed: `3f2a`, or a whole id
   * @returns the task's full id
   * @throws {ObservalError} INVALID_ARGUMENT for a prefix that is too short, or one that
   * starts several tasks (naming up to {@linkcode MAX_PREFIX_CANDIDATES} of them, with
   * their agent and state); NOT_FOUND when no task starts with it
   *
   * @example
   * ```ts ignore
   * store.resolveId("3f2a"); // "3f2a0c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
   * ```
   */
  resolveId(input: string): string {
    // Not `if (isTaskId(input))`: as a type guard it would leave `input` typed never below.
    const whole: boolean = isTaskId(input);
    if (whole) return input;
    if (!PREFIX.test(input) || input.length > 36) throw notFound(input);
    if (input.length < MIN_TASK_ID_PREFIX) {
      throw new ObservalError(
        "INVALID_ARGUMENT",
        `Task id ${quoteId(input)} is too short: give at least ${MIN_TASK_ID_PREFIX} characters`,
        { resource: input, remediation: LIST_REMEDIATION },
      );
    }
    const rows = this.#guard(() =>
      this.#db.prepare(Q.SELECT_ID_PREFIX).all(input, `${input}~`, MAX_PREFIX_CANDIDATES + 1)
    ) as unknown as DocRow[];
    if (rows.length === 0) throw notFound(input);
    if (rows.length === 1) return rows[0].id;
    const shown = rows.slice(0, MAX_PREFIX_CANDIDATES).map((r) => {
      const task = parseStoredTask(r.id, r.doc);
      const meta = task.metadata.observal;
      return `  ${task.id}  ${meta.targetName ?? meta.target}  ${stateWords(task.status.state)}`;
    });
    const more = rows.length > MAX_PREFIX_CANDIDATES ? "more than " : "";
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `Task id ${quoteId(input)} is ambiguous: it starts ${more}${
        Math.min(rows.length, MAX_PREFIX_CANDIDATES)
      } tasks`,
      {
        resource: input,
        remediation: `Give more of the id. It starts:\n${shown.join("\n")}` +
          (more ? "\n  ..." : ""),
      },
    );
  }

  /**
   * How many tasks were ever started with this parent (`metadata.observal.parentTaskId`),
   * settled or not.
   */
  countChildren(parentTaskId: string): number {
    if (!isTaskId(parentTaskId)) return 0;
    const row = this.#guard(() => this.#db.prepare(Q.COUNT_CHILDREN).get(parentTaskId)) as {
      n: number;
    };
    return row.n;
  }

  /**
   * Tasks a worker still owns (submitted or working): the ones a dead worker may have left
   * behind.
   *
   * @param limit how many at most @default 1000
   */
  running(limit = 1000): Task[] {
    const rows = this.#guard(() =>
      this.#db.prepare(Q.SELECT_RUNNING).all(limit) as unknown as DocRow[]
    );
    return rows.map((r) => parseStoredTask(r.id, r.doc));
  }

  /**
   * The ids of the tasks started with this parent that have not ended: running (a worker
   * owns them) or waiting for their caller's input.
   */
  unsettledChildren(parentTaskId: string): string[] {
    if (!isTaskId(parentTaskId)) return [];
    const rows = this.#guard(() =>
      this.#db.prepare(Q.SELECT_UNSETTLED_CHILDREN).all(parentTaskId)
    ) as Array<{ id: string }>;
    return rows.map((r) => r.id);
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
    if (options.create) makeDir(dir, 0o700);
    return dir;
  }

  /**
   * The task's logs that exist, with their paths (the worker's, and a local task's harness
   * child's stdout and stderr). The id is checked before any path is built.
   *
   * @throws {ObservalError} INVALID_ARGUMENT when `id` is not a lower-case UUID
   */
  logs(id: string): Array<TaskLogName & { path: string }> {
    const dir = this.taskDir(id);
    return TASK_LOGS.map((log) => ({ ...log, path: join(dir, log.file) }))
      .filter((log) => pathExists(log.path));
  }

  /**
   * Asks the task's worker to stop; the worker polls {@linkcode TaskStore.cancelRequested}.
   * For a task that waits for input (no worker runs) the request claims the question: from
   * then on {@linkcode TaskStore.acceptReply} refuses every reply. Does nothing for a
   * settled task.
   *
   * @returns the task as stored when the request was made
   * @throws {ObservalError} NOT_FOUND for an unknown id
   */
  requestCancel(id: string): Task {
    if (!isTaskId(id)) throw notFound(id);
    return this.#tx(id, () => {
      const row = this.#db.prepare(Q.SELECT_DOC).get(id) as DocRow | undefined;
      if (!row) throw notFound(id);
      const task = parseStoredTask(row.id, row.doc);
      if (!isTerminal(task.status.state)) {
        this.#db.prepare("UPDATE tasks SET cancel_requested = 1 WHERE id = ?").run(id);
        this.#saveRecord(id);
      }
      return task;
    });
  }

  /** Whether a cancel was requested and not yet cleared; false for an unknown id. */
  cancelRequested(id: string): boolean {
    if (!isTaskId(id)) return false;
    const row = this.#guard(() =>
      this.#db.prepare("SELECT cancel_requested FROM tasks WHERE id = ?").get(id)
    ) as { cancel_requested: number } | undefined;
    return row?.cancel_requested === 1;
  }

  /**
   * Forgets a cancel request once a worker has acted on it. A task that waits for input
   * keeps its request: it is either a cancel's claim on the question or a cancel that came
   * too late for the worker, and either way replies stay refused until it is canceled.
   */
  clearCancel(id: string): void {
    if (!isTaskId(id)) return;
    this.#tx(id, () => {
      const { changes } = this.#db.prepare(
        `UPDATE tasks SET cancel_requested = 0 WHERE id = ? AND state NOT IN (${WAITING})`,
      ).run(id);
      if (changes > 0) this.#saveRecord(id);
    });
  }

  /**
   * Leaves a reply for a remote task's worker to send, replacing any reply not yet taken.
   * Prefer {@linkcode TaskStore.acceptReply}, which also resumes the task in the same step.
   *
   * @param id the task id
   * @param parts the reply as A2A parts (a text reply is `[{ text }]`)
   * @throws {ObservalError} NOT_FOUND for an unknown id; FAILED_PRECONDITION for a settled
   * task; INVALID_ARGUMENT for an empty reply
   */
  putReply(id: string, parts: readonly Part[]): void {
    if (!isTaskId(id)) throw notFound(id);
    const reply = encodeReply(parts);
    this.#tx(id, () => {
      if (isTerminal(this.#stateOf(id))) {
        throw new ObservalError(
          "FAILED_PRECONDITION",
          `Task ${quoteId(id)} is settled and takes no replies`,
          { resource: id, remediation: "Start a new delegation with `observal delegate run`" },
        );
      }
      this.#db.prepare("UPDATE tasks SET pending_reply = ? WHERE id = ?").run(reply, id);
      this.#saveRecord(id);
    });
  }

  /**
   * Takes the pending reply, if any, as A2A parts; the same reply is never returned twice.
   * A reply stored as plain text by an older version reads back as `[{ text }]`.
   */
  takeReply(id: string): Part[] | undefined {
    if (!isTaskId(id)) return undefined;
    return this.#tx(id, () => {
      const row = this.#db.prepare("SELECT pending_reply FROM tasks WHERE id = ?").get(id) as
        | { pending_reply: string | null }
        | undefined;
      if (row?.pending_reply == null) return undefined;
      this.#db.prepare("UPDATE tasks SET pending_reply = NULL WHERE id = ?").run(id);
      this.#saveRecord(id);
      return decodeReply(row.pending_reply);
    });
  }

  /**
   * Records the pid of the task's worker (the launcher and the worker itself both do).
   * Unknown ids are ignored.
   */
  setWorkerPid(id: string, pid: number): void {
    if (!isTaskId(id) || !Number.isSafeInteger(pid) || pid <= 0) return;
    this.#tx(id, () => {
      const { changes } = this.#db.prepare("UPDATE tasks SET worker_pid = ? WHERE id = ?").run(
        pid,
        id,
      );
      if (changes > 0) this.#saveRecord(id);
    });
  }

  /**
   * The task's worker as recorded: its pid; 0 while a worker is being started (after
   * {@linkcode TaskStore.insert} or an accepted reply); null when none was ever recorded
   * here (a task written by an older version, whose worker wrote only `worker.pid`) or the
   * id is unknown.
   */
  workerPid(id: string): number | null {
    if (!isTaskId(id)) return null;
    const row = this.#guard(() =>
      this.#db.prepare("SELECT worker_pid FROM tasks WHERE id = ?").get(id)
    ) as { worker_pid: number | null } | undefined;
    return row?.worker_pid ?? null;
  }

  /**
   * Deletes settled tasks last updated before `options.before`, and their folders; then
   * task folders (named by a task id) that no stored task owns and that were last changed
   * before `options.before` and at least {@linkcode ORPHAN_FOLDER_GRACE_MS} ago. Unsettled
   * tasks are kept however old they are (in the database, or only in a folder's record,
   * for `observal delegate recover`), and other folders (such as `ws/`) are never touched.
   *
   * @returns how many tasks and how many orphan folders were removed
   * @throws {ObservalError} INVALID_ARGUMENT when `before` is not a valid date
   */
  prune(options: { before: Date }): PruneResult {
    const before = options.before;
    if (!(before instanceof Date) || Number.isNaN(before.getTime())) {
      throw new ObservalError("INVALID_ARGUMENT", "Cannot prune tasks without a valid date", {
        remediation: "Pass the cut-off as a valid Date",
      });
    }
    const rows = this.#guard(() =>
      transaction(
        this.#db,
        () =>
          this.#db.prepare(Q.PRUNE_SETTLED).all(before.toISOString()) as unknown as {
            id: string;
          }[],
      )
    );
    // Folders go after the rows commit: a crash in between leaves a stray folder, never a
    // row whose logs are gone. The orphan sweep below removes such strays later.
    const { readdirSync, rmSync, statSync } = nodeFs();
    for (const { id } of rows) {
      if (isTaskId(id)) rmSync(join(this.root, id), { recursive: true, force: true });
    }
    const cutoff = Math.min(before.getTime(), this.#clock.now().getTime() - ORPHAN_FOLDER_GRACE_MS);
    let orphans = 0;
    for (const entry of readdirSync(this.root, { withFileTypes: true })) {
      if (!entry.isDirectory() || !isTaskId(entry.name)) continue;
      const dir = join(this.root, entry.name);
      let changed: number;
      try {
        changed = statSync(dir).mtimeMs;
      } catch {
        continue;
      }
      if (changed >= cutoff) continue;
      const owned = this.#guard(() =>
        this.#db.prepare("SELECT 1 AS x FROM tasks WHERE id = ?").get(entry.name)
      );
      if (owned) continue;
      // A folder whose record holds a task the database lacks is that task's only copy:
      // kept for `delegate recover`, unless it is one this prune would have removed anyway.
      const record = readRecord(dir, entry.name);
      if (
        !("problem" in record) &&
        !(isTerminal(record.task.status.state) && record.updatedAt < before.toISOString())
      ) continue;
      rmSync(dir, { recursive: true, force: true });
      orphans++;
    }
    return { removed: rows.length, orphans };
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

  /** Runs a database step, turning a damaged file or a full disk into a clear error. */
  #guard<T>(step: () => T): T {
    try {
      return step();
    } catch (err) {
      throw storeFault(err, this.path, this.#home) ?? err;
    }
  }

  /**
   * Runs `step` in one write transaction. A step that wrote task `id`'s record and then
   * failed to commit gets the record put back as committed (under the lock again), so the
   * folder never keeps a change the database refused.
   */
  #tx<T>(id: string, step: () => T): T {
    let recorded = false;
    this.#onRecord = () => void (recorded = true);
    try {
      return this.#guard(() => transaction(this.#db, step));
    } catch (err) {
      if (recorded) this.#restoreRecord(id);
      throw err;
    } finally {
      this.#onRecord = undefined;
    }
  }

  /**
   * Writes task `id`'s record in its folder from the row as it now stands (inside the
   * write transaction, so records are written in the order rows are committed).
   */
  #saveRecord(id: string): void {
    const row = this.#db.prepare(SELECT_ROW).get(id) as RawRow | undefined;
    if (!row) return;
    writeRecord(join(this.root, id), row);
    this.#onRecord?.();
  }

  /** Puts task `id`'s record back as its committed row says, or removes it if it has none. */
  #restoreRecord(id: string): void {
    try {
      transaction(this.#db, () => {
        if (this.#db.prepare("SELECT 1 AS x FROM tasks WHERE id = ?").get(id)) {
          this.#saveRecord(id);
        } else nodeFs().rmSync(join(this.root, id, TASK_RECORD_FILE), { force: true });
      });
    } catch { /* the record stays ahead of the row; the next write of the task replaces it */ }
  }

  /** `proposed` validated as the next version of task `id`. */
  #checked(id: string, proposed: Task): Task {
    const next = parseTaskToWrite(proposed);
    if (next.id !== id) {
      throw new ObservalError(
        "INVALID_ARGUMENT",
        `Cannot change the id of task ${quoteId(id)} to ${quoteId(next.id)}`,
        { resource: id, remediation: "Keep the id when updating a task" },
      );
    }
    return next;
  }

  /** Writes a validated task and its indexed columns (inside a transaction). */
  #write(id: string, next: Task, doc: string): void {
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
  }

  #findBy(sql: string, key: string): Task | undefined {
    if (!IndexKeySchema.safeParse(key).success) return undefined;
    const row = this.#guard(() => this.#db.prepare(sql).get(key)) as DocRow | undefined;
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
