import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { systemClock } from "../../lib/core/mod.ts";
import {
  matchProcess,
  pidExists,
  processIdentity,
  signalGroup,
  terminateGroup,
} from "../../lib/process/mod.ts";

/** A `sleep` leading its own process group, started in `cwd`. */
function sleeper(cwd: string, script = "sleep 60") {
  const child = spawn("sh", ["-c", script], { cwd, detached: true, stdio: "ignore" });
  const exited = new Promise<void>((res) => child.once("exit", () => res()));
  return { pid: child.pid!, exited };
}

Deno.test("processIdentity() is stable for one process and names its cwd", () => {
  const a = processIdentity(process.pid);
  const b = processIdentity(process.pid);
  assert.ok(a?.startTime);
  assert.equal(a.startTime, b?.startTime);
  assert.equal(a.cwd, realpathSync(process.cwd()));
});

Deno.test("processIdentity() of a pid nobody has is undefined", () => {
  assert.equal(processIdentity(2 ** 22 + 12345), undefined);
  assert.equal(pidExists(2 ** 22 + 12345), false);
});

Deno.test("matchProcess() proves a child by start time and cwd, and refuses a reused pid", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "observal-proc-")));
  const other = realpathSync(mkdtempSync(join(tmpdir(), "observal-proc-")));
  const child = sleeper(dir);
  try {
    const recorded = processIdentity(child.pid)!.startTime;
    assert.equal(matchProcess(child.pid, recorded, dir), "ours");
    // The same pid with another start time is what a reused pid looks like.
    const reused = recorded.replace(/\d+$/, (n) => String(Number(n) + 1));
    assert.equal(matchProcess(child.pid, reused, dir), "unproven");
    assert.equal(matchProcess(child.pid, undefined, dir), "unproven");
    // Right start time but running somewhere else: not provably ours either.
    assert.equal(matchProcess(child.pid, recorded, other), "unproven");
  } finally {
    signalGroup(child.pid, "SIGKILL");
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  }
  assert.equal(matchProcess(child.pid, "linux:x:1", dir), "gone");
});

Deno.test("terminateGroup() stops the leader and the processes it started", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-proc-"));
  // The grandchild ignores nothing, but it is not our direct child: only a group signal
  // reaches it.
  const child = sleeper(dir, "sleep 60 & echo $! > grandchild.pid; wait");
  try {
    // Up to 10 s: a loaded machine (the whole suite runs in parallel) can take seconds to
    // start the shell, and the file may be read between its creation and its write.
    let grandchild = 0;
    for (let i = 0; i < 500 && !(grandchild > 0); i++) {
      try {
        grandchild = Number(Deno.readTextFileSync(join(dir, "grandchild.pid")).trim());
      } catch { /* not written yet */ }
      if (!(grandchild > 0)) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(grandchild > 0, "the shell never wrote its background job's pid");
    assert.ok(pidExists(grandchild), `the grandchild ${grandchild} is not running`);
    await terminateGroup(child.pid, { clock: systemClock, graceMs: 2000, exited: child.exited });
    await child.exited;
    for (let i = 0; i < 100 && pidExists(grandchild); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(pidExists(grandchild), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("terminateGroup() kills a group that ignores SIGTERM once the grace is over", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-proc-"));
  const child = sleeper(dir, "trap '' TERM; sleep 60 & wait; sleep 60");
  try {
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await terminateGroup(child.pid, { clock: systemClock, graceMs: 300, exited: child.exited });
    await child.exited;
    assert.ok(Date.now() - started >= 250, "the grace period was not waited");
    assert.equal(pidExists(child.pid), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
