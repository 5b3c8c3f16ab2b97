/**
 * Finding the processes that work inside a folder: without a PID namespace, a process the
 * child started in its own session (setsid) leaves the child's process group, but it
 * still runs in the child's copy. Such a process is ours when it started no earlier than
 * the child did, so one that was there before is never touched.
 * @module
 */
import { hostPlatform, isWithin, nodeChildProcess, nodeFs } from "../core/system/mod.ts";
import { sendSignal } from "./_signal.ts";
import { processIdentity } from "./process_identity.ts";

/** The start-time ticks of a Linux identity token (`linux:<boot>:<ticks>`). */
function linuxTicks(token: string | undefined): { boot: string; ticks: number } | undefined {
  const m = /^linux:([^:]*):(\d+)$/.exec(token ?? "");
  return m ? { boot: m[1], ticks: Number(m[2]) } : undefined;
}

/** Pids whose cwd link points inside `dir`, from /proc, or from find(1) under a fence. */
function linuxCandidates(dir: string): number[] {
  try {
    const out: number[] = [];
    for (const name of nodeFs().readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (isWithin(nodeFs().readlinkSync(`/proc/${name}/cwd`), dir)) out.push(Number(name));
      } catch { /* gone, or another user's */ }
    }
    return out;
  } catch (err) {
    if ((err as Error).name !== "NotCapable") return [];
  }
  // A fenced worker may not list /proc; find(1) reads the same links.
  const r = nodeChildProcess().spawnSync("find", [
    "/proc",
    "-mindepth",
    "2",
    "-maxdepth",
    "2",
    "-name",
    "cwd",
    "(",
    "-lname",
    dir,
    "-o",
    "-lname",
    `${dir}/*`,
    ")",
    "-print",
  ], { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "ignore"] });
  return (r.stdout ?? "").split("\n").map((l) => /^\/proc\/(\d+)\/cwd$/.exec(l)?.[1])
    .filter((p): p is string => p !== undefined).map(Number);
}

/**
 * The processes running inside `dir` that started no earlier than the process whose
 * start-time token is `since` (the child's). Linux only; elsewhere none are found.
 *
 * @param dir a real path (a workspace root)
 * @param since the child's start-time token, as {@linkcode processIdentity} gives it
 */
export function processesIn(dir: string, since: string | undefined): number[] {
  const start = linuxTicks(since);
  if (hostPlatform() !== "linux" || !start) return [];
  const out: number[] = [];
  for (const pid of linuxCandidates(dir)) {
    const id = linuxTicks(processIdentity(pid)?.startTime);
    if (id && id.boot === start.boot && id.ticks >= start.ticks) out.push(pid);
  }
  return out;
}

/**
 * Ends with SIGKILL every process {@linkcode processesIn} finds; returns how many.
 * Repeated until none is left, since a process may start another while being ended.
 */
export function killProcessesIn(dir: string, since: string | undefined): number {
  let killed = 0;
  for (let round = 0; round < 5; round++) {
    const pids = processesIn(dir, since);
    if (pids.length === 0) break;
    for (const pid of pids) if (sendSignal(pid, "SIGKILL") !== "gone") killed++;
  }
  return killed;
}
