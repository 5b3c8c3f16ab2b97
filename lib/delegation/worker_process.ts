/**
 * Detached worker processes: every delegation runs in one, so the task outlives the CLI
 * or MCP call that started it. The pid side file lets any later call tell a live worker
 * from a dead one.
 * @module
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { type Context, ObservalError, selfCommand, type SelfPermissions } from "../core/mod.ts";

/** Starts the worker for a task; returns its pid. Tests pass their own. */
export type LaunchWorker = (taskId: string, taskDir: string, perms: SelfPermissions) => number;

export function pidFile(taskDir: string): string {
  return join(taskDir, "worker.pid");
}

export function readPid(taskDir: string): number | undefined {
  try {
    const n = Number(readFileSync(pidFile(taskDir), "utf8").trim());
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

export function writePid(taskDir: string, pid: number): void {
  writeFileSync(pidFile(taskDir), `${pid}\n`, { mode: 0o600 });
}

export function clearPid(taskDir: string): void {
  rmSync(pidFile(taskDir), { force: true });
}

/**
 * Is this pid a live worker for this task? A signal-0 probe says the pid exists; where
 * /proc exists, its command line must also name the task, so a recycled pid never passes.
 */
export function workerAlive(pid: number, taskId: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const cmdline = `/proc/${pid}/cmdline`;
  if (existsSync("/proc/self/cmdline")) {
    try {
      return readFileSync(cmdline, "utf8").includes(taskId);
    } catch {
      return false;
    }
  }
  return true;
}

/** The real launcher: re-executes observal detached, logging to worker.log. */
export function detachedLauncher(ctx: Context): LaunchWorker {
  return (taskId, taskDir, perms) => {
    const [command, ...args] = selfCommand(["delegate", "worker", taskId], perms);
    const log = openSync(join(taskDir, "worker.log"), "a", 0o600);
    try {
      const child = spawn(command, args, {
        cwd: taskDir,
        env: ctx.env as Record<string, string>,
        detached: true,
        stdio: ["ignore", log, log],
      });
      if (child.pid === undefined) {
        throw new ObservalError("UNAVAILABLE", "The delegation worker could not be started", {
          remediation: `Check ${join(taskDir, "worker.log")}`,
        });
      }
      child.on("error", () => {/* reported through the pid check and the grace period */});
      child.unref();
      return child.pid;
    } finally {
      closeSync(log);
    }
  };
}
