/**
 * What can go wrong with the store's files, said so a person can act on it: a damaged
 * database or WAL names the file and the recovery command; a full disk says so.
 * @module
 */
import { dirname, nodeFs, pathExists, readHead } from "../core/system/mod.ts";
import { errorMessage, homeFault, ObservalError } from "../core/mod.ts";
import { isTaskId } from "./task_id.ts";

/** The command that rebuilds a damaged store from what can still be read. */
export const RECOVER_COMMAND = "observal delegate recover";

const RECOVER_REMEDIATION = `Run \`${RECOVER_COMMAND}\`: it copies every readable task into a ` +
  "new store and moves the damaged file aside";

// node:sqlite sets `errcode` under Node but not under Deno, so the message is checked too.
const SQLITE_IOERR = 10;
const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_NOTADB = 26;
const DAMAGED = /database disk image is malformed|file is not a database/i;
const FULL = /database or disk is full|no space left/i;
const IO = /disk I\/O error/i;

function sqliteCode(err: unknown): number | undefined {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" ? code & 0xff : undefined;
}

/** The error for a store file that SQLite cannot read. */
export function damagedStore(file: string, detail: string, cause?: unknown): ObservalError {
  return new ObservalError("UNAVAILABLE", `The task store ${file} is damaged (${detail})`, {
    cause,
    resource: file,
    remediation: RECOVER_REMEDIATION,
  });
}

/**
 * Turns a SQLite failure on `file` into an error that names it and the way out, or returns
 * undefined when the failure is not about the file itself. A home that is read-only, full
 * or not ours to write is said as every command says it.
 */
export function storeFault(err: unknown, file: string, home: string): ObservalError | undefined {
  if (err instanceof ObservalError) return undefined;
  const code = sqliteCode(err);
  const message = errorMessage(err);
  if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB || DAMAGED.test(message)) {
    return damagedStore(file, message.replace(/\.$/, ""), err);
  }
  const fault = homeFault(err, home, dirname(file));
  if (fault) return fault;
  if (code === SQLITE_FULL || FULL.test(message)) {
    return new ObservalError(
      "UNAVAILABLE",
      `Cannot write the task store ${file}: the disk is full`,
      {
        cause: err,
        resource: file,
        remediation:
          "Free some space on that disk (or point OBSERVAL_HOME elsewhere), then try again",
      },
    );
  }
  if (code === SQLITE_IOERR || IO.test(message)) {
    // Most often a full disk: SQLite cannot grow its shared-memory file.
    const why = nearlyFull(dirname(file)) ? `the disk is full (${message})` : message;
    return new ObservalError("UNAVAILABLE", `Cannot use the task store ${file}: ${why}`, {
      cause: err,
      resource: file,
      remediation: "Check that its disk has free space and works (or point OBSERVAL_HOME " +
        "elsewhere), then try again",
    });
  }
  return undefined;
}

/** Whether the disk holding `dir` has less than 64 KiB left (false when it cannot tell). */
function nearlyFull(dir: string): boolean {
  try {
    const fs = nodeFs().statfsSync(dir);
    return Number(fs.bavail) * Number(fs.bsize) < 64 * 1024;
  } catch {
    return false;
  }
}

const WAL_MAGIC = new Set([0x377f0682, 0x377f0683]);
const WAL_VERSION = 3007000;

/**
 * Checks the header of a write-ahead log. SQLite quietly ignores a WAL whose header is not
 * valid, and so would lose every change in it without a word; a log that is not empty must
 * start with the WAL magic number and format version. A log that is missing, empty or
 * being created (too short to read) passes.
 *
 * @returns undefined when the log is fine, else what is wrong with it
 */
export function walHeaderProblem(walPath: string): string | undefined {
  const head = readHead(walPath, 8);
  if (head === undefined || head.length < 8) return undefined;
  const view = new DataView(head.buffer, head.byteOffset, 8);
  if (!WAL_MAGIC.has(view.getUint32(0))) return "its write-ahead log has no valid header";
  if (view.getUint32(4) !== WAL_VERSION) return "its write-ahead log has an unknown version";
  return undefined;
}

/** Whether the file at `path` holds anything (read through the host seam, no Node layer). */
function hasContent(path: string): boolean {
  return (readHead(path, 1)?.length ?? 0) > 0;
}

/** How many folders in `root` are named by a task id (each one belonged to a task). */
export function countTaskFolders(root: string): number {
  try {
    return nodeFs().readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && isTaskId(e.name)).length;
  } catch {
    return 0; // no root yet; or one this process may not list, and may not write either
  }
}

/**
 * Why the store at `path` must not be opened as it is: its database is missing or empty
 * while task folders remain (opening would make an empty store that hides every task), or
 * it is missing while a write-ahead log remains (SQLite would drop the log, or replay it
 * onto an empty file). An empty database beside a log and no task folders is a store
 * being made by another process this very moment: SQLite writes the first page to the log.
 * Undefined when the database has content, or when nothing of a store is there.
 */
export function lostDatabase(root: string, path: string): ObservalError | undefined {
  if (hasContent(path)) return undefined;
  const folders = countTaskFolders(root);
  const missing = !pathExists(path);
  const wal = missing && hasContent(`${path}-wal`);
  if (folders === 0 && !wal) return undefined;
  const left = [
    folders > 0 ? `${folders} task folder${folders === 1 ? "" : "s"}` : "",
    wal ? "its write-ahead log" : "",
  ].filter(Boolean).join(" and ");
  const remain = folders > 1 || (folders > 0 && wal) ? "remain" : "remains";
  const what = missing ? "is missing" : "is empty";
  return new ObservalError("UNAVAILABLE", `The task store ${path} ${what}, but ${left} ${remain}`, {
    resource: path,
    remediation: `Run \`${RECOVER_COMMAND}\`: it rebuilds the store from the task folders ` +
      "and keeps what is left of the old files aside",
  });
}
