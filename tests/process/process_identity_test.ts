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
  processCommandLine,
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

Deno.test("processCommandLine() of a real process names its arguments", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-proc-"));
  const child = sleeper(dir, "sleep 60; : marker-41");
  try {
    assert.match(processCommandLine(child.pid) ?? "", /marker-41/);
  } finally {
    signalGroup(child.pid, "SIGKILL");
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(processCommandLine(child.pid), undefined);
});

/** /proc as a process inside execve shows it: no command line for `empty` reads. */
function procDuringExec(empty: number, stat = "7 (deno) R 1 7 7 0 -1 4194560 43 0") {
  const reads: string[] = [];
  const pauses: number[] = [];
  let left = empty;
  const options = {
    platform: "linux" as const,
    readProc: (path: string) => {
      reads.push(path);
      if (path.endsWith("/stat")) return stat;
      return left-- > 0 ? "" : "deno\0run\0main.ts\0delegate\0worker\0t-1\0";
    },
    pause: (ms: number) => void pauses.push(ms),
  };
  return { options, reads, pauses };
}

Deno.test("processCommandLine() reads again while a process is inside execve", () => {
  // Linux wakes the parent of an exec before the child's new arguments are mapped; a
  // launcher asking at once saw an empty line and took its live worker for a dead one.
  const { options, pauses } = procDuringExec(3);
  assert.equal(processCommandLine(process.pid, options), "deno run main.ts delegate worker t-1 ");
  assert.deepEqual(pauses, [1, 2, 4]);
});

Deno.test("processCommandLine() concludes nothing from a line that stays empty", () => {
  const { options, pauses } = procDuringExec(Infinity);
  assert.equal(processCommandLine(process.pid, options), undefined);
  const waited = pauses.reduce((a, b) => a + b, 0);
  assert.ok(waited >= 500 && waited <= 2000, `waited ${waited} ms`);
});

Deno.test("processCommandLine() takes an empty line at once from a kernel thread, a zombie or an exiting process", () => {
  // Field 9 of a kernel thread has PF_KTHREAD (0x00200000), that of a process on its way
  // out PF_EXITING (0x4, here in D state: still closing files); a zombie's state is Z. A
  // command name may hold ") ", so fields count from the last parenthesis.
  for (
    const stat of [
      "9 (kworker/0:1) I 2 0 0 0 -1 2129984 0 0",
      "9 (a) b) Z 1 9 9 0 -1 4194560 0",
      "9 (deno) D 1 9 9 0 -1 4194564 0",
    ]
  ) {
    const { options, pauses } = procDuringExec(Infinity, stat);
    assert.equal(processCommandLine(process.pid, options), "", stat);
    assert.deepEqual(pauses, [], stat);
  }
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
