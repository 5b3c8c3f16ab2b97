/**
 * A task's record in its own folder (`<root>/<id>/task.json`): everything its row holds,
 * written under the same write lock as the row, so the folders alone can rebuild a store
 * whose database is lost or damaged (`observal delegate recover`).
 *
 * The record is replaced atomically (a private temporary file, flushed, then renamed over
 * it) inside the row's write transaction: records are written in the order the rows are
 * committed, and a record is never older than its committed row.
 * @module
 */
import { z } from "zod";
import { isFinal, isTerminal, type Task, TASK_STATES } from "../a2a/tasks/mod.ts";
import { hostPid, join, makeDir, nodeFs, readText, replaceFile } from "../core/system/mod.ts";
import { parseStoredTask } from "./_stored_task.ts";

const TERMINAL: ReadonlySet<unknown> = new Set(TASK_STATES.filter(isTerminal));
/** The states a task can stay in for long: terminal, or waiting on its caller. */
const SETTLED: ReadonlySet<unknown> = new Set(TASK_STATES.filter(isFinal));

/** The record's file in a task folder. */
export const TASK_RECORD_FILE = "task.json";
/** Largest record read back: a task's history and artifacts are bounded well below this. */
export const MAX_TASK_RECORD_BYTES = 32 * 1024 * 1024;

/** The record as written: the row's columns that are not derived from the task. */
const TaskRecordSchema = z.object({
  version: z.literal(1),
  /** The row's position, so a rebuilt store lists tasks in the order they were made. */
  rowid: z.int().min(1),
  createdAt: z.string().max(64),
  updatedAt: z.string().max(64),
  cancelRequested: z.boolean(),
  /** The `pending_reply` column as stored: a JSON array of A2A parts, or null. */
  pendingReply: z.string().nullable(),
  /** The worker's pid: null when never recorded, 0 while one is being started. */
  workerPid: z.int().min(0).nullable(),
  task: z.unknown(),
});

/** A task and the rest of its row. */
export interface TaskRow {
  rowid: number;
  task: Task;
  createdAt: string;
  updatedAt: string;
  cancelRequested: boolean;
  pendingReply: string | null;
  workerPid: number | null;
}

/** The columns {@linkcode rowOf} needs, as SELECT_ROW returns them. */
export interface RawRow {
  rowid: number;
  id: string;
  state: string;
  doc: string;
  created_at: string;
  updated_at: string;
  cancel_requested: number;
  pending_reply: string | null;
  worker_pid: number | null;
}

/** Reads one whole row, for its record. */
export const SELECT_ROW = `SELECT rowid, id, state, doc, created_at, updated_at,
  cancel_requested, pending_reply, worker_pid FROM tasks WHERE id = ?`;

/** The record of a row read with {@linkcode SELECT_ROW}, as the file's text. */
function recordText(row: RawRow): string {
  return `{"version":1,"rowid":${row.rowid},"createdAt":${JSON.stringify(row.created_at)},` +
    `"updatedAt":${JSON.stringify(row.updated_at)},` +
    `"cancelRequested":${row.cancel_requested === 1},` +
    `"pendingReply":${JSON.stringify(row.pending_reply)},` +
    `"workerPid":${row.worker_pid === null ? "null" : row.worker_pid},"task":${row.doc}}\n`;
}

/**
 * Replaces the record in `dir` (made, mode 0700, when missing) with `row`: written to a
 * temporary file of mode 0600, then renamed over the old one, so a reader sees the old
 * record or the new one, never part of one.
 *
 * Only a settled task's record (terminal, or waiting on its caller) is flushed to disk
 * before the rename. The records rebuild a store whose database was deleted or damaged,
 * which a crash of the machine does not do; and the database itself commits without a
 * flush (`synchronous=NORMAL`), so a flushed record of a running task would outlive its
 * row only to be failed on recovery, its worker gone. A flush costs a disk round trip, and
 * a local run updates its task a dozen times.
 */
export function writeRecord(dir: string, row: RawRow): void {
  makeDir(dir, 0o700);
  const tmp = join(dir, `.${TASK_RECORD_FILE}.${hostPid()}.${crypto.randomUUID()}.tmp`);
  replaceFile(join(dir, TASK_RECORD_FILE), tmp, recordText(row), 0o600, {
    flush: SETTLED.has(row.state),
  });
}

/**
 * The record in task folder `dir` of task `id`, or why it cannot be used: missing, too
 * large, not JSON, or not a task with that id.
 */
export function readRecord(dir: string, id: string): TaskRow | { problem: string } {
  const fs = nodeFs();
  const path = join(dir, TASK_RECORD_FILE);
  let text: string;
  try {
    const size = fs.statSync(path).size;
    if (size > MAX_TASK_RECORD_BYTES) {
      return { problem: `${path} is larger than ${MAX_TASK_RECORD_BYTES} bytes` };
    }
    text = fs.readFileSync(path, "utf8");
  } catch (err) {
    return { problem: `${path} cannot be read (${(err as Error).message})` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { problem: `${path} is not JSON` };
  }
  const parsed = TaskRecordSchema.safeParse(raw);
  if (!parsed.success) return { problem: `${path} is not a task record` };
  const r = parsed.data;
  let task: Task;
  try {
    task = parseStoredTask(id, JSON.stringify(r.task));
  } catch {
    return { problem: `${path} does not hold task ${id}` };
  }
  return {
    rowid: r.rowid,
    task,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    cancelRequested: r.cancelRequested,
    pendingReply: r.pendingReply,
    workerPid: r.workerPid,
  };
}

/**
 * The task in folder `dir`'s record when it is settled, else undefined. A settled record
 * beside a row that is not means the row is behind (a database put back, or replaced while
 * a worker still wrote to the old one): the settled state must win, never be overwritten.
 * Read through the host seam, so a worker's write path loads no Node layer.
 */
export function settledRecord(dir: string, id: string): Task | undefined {
  let raw: { task?: { status?: { state?: unknown } } } | undefined;
  try {
    raw = JSON.parse(readText(join(dir, TASK_RECORD_FILE)));
  } catch {
    return undefined;
  }
  const state = raw?.task?.status?.state;
  if (!TERMINAL.has(state)) return undefined;
  try {
    return parseStoredTask(id, JSON.stringify(raw!.task));
  } catch {
    return undefined;
  }
}
