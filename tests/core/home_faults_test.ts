import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  homeFault,
  homeFaultKind,
  ObservalError,
  probeHome,
  toObservalError,
} from "../../lib/core/mod.ts";

/** An fs error as Node and Deno's node:fs raise it. */
function fsError(code: string, path?: string): Error {
  return Object.assign(new Error(`${code}: failed, open '${path}'`), { code, path });
}

function withHome(fn: (home: string) => void): void {
  const home = mkdtempSync(join(tmpdir(), "observal-home-faults-"));
  try {
    fn(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

Deno.test("homeFaultKind() names what the OS says of a write under the home", () => {
  withHome((home) => {
    const file = join(home, "delegations", "x");
    assert.equal(homeFaultKind(fsError("EROFS", file), home), "read-only");
    assert.equal(homeFaultKind(fsError("ENOSPC", file), home), "full");
    assert.equal(homeFaultKind(fsError("EDQUOT", file), home), "full");
    assert.equal(homeFaultKind(fsError("EACCES", file), home), "not-writable");
    assert.equal(homeFaultKind(fsError("EPERM", file), home), "not-writable");
    // Found through the cause of a wrapping error too.
    const wrapped = new Error("could not save", { cause: fsError("EROFS", file) });
    assert.equal(homeFaultKind(wrapped, home), "read-only");
  });
});

Deno.test("homeFaultKind() leaves alone faults outside the home and errors of other kinds", () => {
  withHome((home) => {
    // A program or the caller's repository refusing us is not the home's fault.
    assert.equal(homeFaultKind(fsError("EACCES", "/usr/bin/claude"), home), undefined);
    assert.equal(homeFaultKind(fsError("ENOENT", join(home, "x")), home), undefined);
    assert.equal(homeFaultKind(new Error("database disk image is malformed"), home), undefined);
    assert.equal(homeFaultKind(new TypeError("x is undefined"), home), undefined);
  });
});

Deno.test("homeFaultKind() reads a real full disk (/dev/full) and SQLite's own words", () => {
  withHome((home) => {
    const fd = openSync("/dev/full", "w");
    let full: unknown;
    try {
      writeSync(fd, "x");
    } catch (err) {
      full = err;
    } finally {
      closeSync(fd);
    }
    assert.equal(homeFaultKind(full, home), "full");
    assert.equal(homeFaultKind(new Error("database or disk is full"), home), "full");

    // A database file this process may not write, in a folder it may: not writable by you.
    const path = join(home, "r.db");
    new DatabaseSync(path).close();
    const db = new DatabaseSync(path, { readOnly: true });
    let readonly: unknown;
    try {
      db.exec("CREATE TABLE t (x)");
    } catch (err) {
      readonly = err;
    } finally {
      db.close();
    }
    assert.match(String(readonly), /readonly database/);
    assert.equal(homeFaultKind(readonly, home), "not-writable");
    // A vague failure in a home that takes writes is not blamed on the home.
    assert.equal(homeFaultKind(new Error("unable to open database file"), home), undefined);
  });
});

Deno.test("probeHome() finds a writable folder fine and leaves nothing behind", () => {
  withHome((home) => {
    assert.equal(probeHome(home), undefined);
    assert.deepEqual(readdirSync(home), []);
  });
});

Deno.test("homeFault() gives one UNAVAILABLE error naming the home, and keeps our own errors", () => {
  withHome((home) => {
    const e = homeFault(fsError("EROFS", join(home, "registry.db")), home)!;
    assert.ok(e instanceof ObservalError);
    assert.equal(e.exitCode, 9);
    assert.equal(
      e.message,
      `Cannot write to the observal home ${home}: it is on a read-only file system`,
    );
    assert.match(e.remediation!, /OBSERVAL_HOME/);
    assert.equal(e.resource, home);
    const full = homeFault(fsError("ENOSPC", join(home, "x")), home)!;
    assert.match(full.message, /its disk is full$/);
    assert.match(full.remediation!, /^Free some space/);
    // An unexpected failure is looked into; a deliberate one is left as it was said.
    const unexpected = toObservalError(fsError("EROFS", join(home, "x")));
    assert.equal(homeFault(unexpected, home)?.code, "UNAVAILABLE");
    const ours = new ObservalError("NOT_FOUND", "No such task", { cause: fsError("EROFS") });
    assert.equal(homeFault(ours, home), undefined);
  });
});
