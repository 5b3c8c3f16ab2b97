/**
 * Write failures under OBSERVAL_HOME, said one way whichever command met them: a home that
 * is read-only, full, or not writable by this user is named with what to do about it.
 *
 * The OS names the fault (EROFS, ENOSPC, ...) but SQLite often does not: a read-only home
 * makes it say "unable to open database file", a full one "disk I/O error". For those a
 * cheap probe (create, write and remove one small file in the home) asks the OS directly.
 * @module
 */
import { errorMessage, ObservalError } from "./errors.ts";
import { hostPid, nodeFs, realPathOrLexical } from "./host.ts";
import { isWithin, join } from "./paths.ts";

/** What is wrong with the home. */
export type HomeFaultKind = "read-only" | "full" | "not-writable";

const BY_ERRNO: Record<string, HomeFaultKind> = {
  EROFS: "read-only",
  ENOSPC: "full",
  EDQUOT: "full",
  EACCES: "not-writable",
  EPERM: "not-writable",
};

// node:sqlite sets `errcode` under Node only, so the message is checked too.
const SQLITE_READONLY = 8;
const SQLITE_IOERR = 10;
const SQLITE_FULL = 13;
const SQLITE_CANTOPEN = 14;
const FULL = /database or disk is full|no space left on device|quota exceeded/i;
const READONLY = /readonly database|read-only file system/i;
const VAGUE = /unable to open database file|disk I\/O error/i;

/** Below this many free bytes a home counts as full. */
const NEARLY_FULL_BYTES = 64 * 1024;

/**
 * What a failure to write under `home` says about the home, or undefined when it is not
 * about the home (a bug, a damaged file, a network error). Looks through `cause` chains.
 * A vague failure is probed in `where`, the folder written to (its own disk, maybe).
 */
export function homeFaultKind(
  err: unknown,
  home: string,
  where = home,
): HomeFaultKind | undefined {
  let vague = false;
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && Object.hasOwn(BY_ERRNO, code)) {
      // EACCES from the caller's repository or a program is not the home's fault.
      return underHome((e as { path?: unknown }).path, home) ? BY_ERRNO[code] : undefined;
    }
    const sqlite = (e as { errcode?: unknown }).errcode;
    const primary = typeof sqlite === "number" ? sqlite & 0xff : undefined;
    const message = errorMessage(e);
    if (primary === SQLITE_FULL || FULL.test(message)) return "full";
    if (primary === SQLITE_READONLY || READONLY.test(message)) {
      // The folder may be writable and the file not (its owner or mode): the probe tells.
      return probeHome(where) ?? "not-writable";
    }
    if (primary === SQLITE_CANTOPEN || primary === SQLITE_IOERR || VAGUE.test(message)) {
      vague = true;
    }
  }
  return vague ? probeHome(where) : undefined;
}

/**
 * The one error for a write under `home` that failed because of the home; undefined when
 * the failure is about something else.
 *
 * @example
 * ```ts ignore
 * try { store.insert(task) } catch (err) { throw homeFault(err, ctx.home) ?? err }
 * ```
 */
export function homeFault(
  err: unknown,
  home: string,
  where = home,
): ObservalError | undefined {
  // Our own errors already say what happened; only the unexpected ones are looked into.
  if (err instanceof ObservalError && err.code !== "INTERNAL") return undefined;
  const kind = homeFaultKind(err, home, where);
  return kind ? homeFaultError(kind, home, err) : undefined;
}

/** Whether an error's path (when it names one) lies under the home. */
function underHome(path: unknown, home: string): boolean {
  if (typeof path !== "string") return true;
  return isWithin(path, home) || isWithin(realPathOrLexical(path), realPathOrLexical(home));
}

/** The error for a home known to be at fault. */
export function homeFaultError(kind: HomeFaultKind, home: string, cause?: unknown): ObservalError {
  return new ObservalError(
    "UNAVAILABLE",
    `Cannot write to the observal home ${home}: ${WHAT[kind]}`,
    {
      cause,
      resource: home,
      remediation: REMEDY[kind],
    },
  );
}

const WHAT: Record<HomeFaultKind, string> = {
  "read-only": "it is on a read-only file system",
  full: "its disk is full",
  "not-writable": "it is not writable by you",
};

const REMEDY: Record<HomeFaultKind, string> = {
  "read-only": "Make it writable (remount its file system read-write), or point " +
    "OBSERVAL_HOME at a writable folder, then try again",
  full: "Free some space on its disk, or point OBSERVAL_HOME at a folder on another disk, " +
    "then try again",
  "not-writable": "Give your user write access to it and the files in it, or point " +
    "OBSERVAL_HOME at a folder you own, then try again",
};

/**
 * Asks the OS whether the folder `dir` takes a small new file: the fault it names, or
 * undefined when the write works or fails for another reason (the folder is missing).
 */
export function probeHome(dir: string): HomeFaultKind | undefined {
  const fs = nodeFs();
  try {
    // Checked first: root may write into the blocks a disk keeps back, so the probe alone
    // can pass on a disk that has no room for anyone else.
    const free = fs.statfsSync(dir);
    if (Number(free.bavail) * Number(free.bsize) < NEARLY_FULL_BYTES) return "full";
  } catch { /* no statfs here: the probe alone decides */ }
  const probe = join(dir, `.write-probe-${hostPid()}`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(probe, "wx", 0o600);
    fs.writeSync(fd, new Uint8Array(4096));
    fs.fsyncSync(fd);
    return undefined;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return typeof code === "string" && Object.hasOwn(BY_ERRNO, code) ? BY_ERRNO[code] : undefined;
  } finally {
    if (fd !== undefined) {
      fs.closeSync(fd);
      try {
        fs.rmSync(probe, { force: true });
      } catch { /* the probe is tiny; a read-only home cannot have made it */ }
    }
  }
}
