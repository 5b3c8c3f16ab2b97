/**
 * What can go wrong with the store's files, said so a person can act on it: a damaged
 * database or WAL names the file and the recovery command; a full disk says so.
 * @module
 */
import { dirname, nodeFs, readHead } from "../core/system/mod.ts";
import { homeFault, ObservalError } from "../core/mod.ts";

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

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
  const message = messageOf(err);
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
