/**
 * Stopping a child and everything it started. Children we run headless lead their own
 * process group (POSIX) or process tree (Windows), so one signal reaches all of it.
 * @module
 */
import { sendSignal } from "./_signal.ts";
import type { Clock } from "../core/mod.ts";
import { pidExists } from "./process_identity.ts";
import { hostPlatform, nodeChildProcess } from "../core/system/mod.ts";

/** Sends `signal` to the process group led by `pid` (POSIX) or kills its tree (Windows). */
export function signalGroup(
  pid: number,
  signal: "SIGTERM" | "SIGKILL",
  platform: NodeJS.Platform = hostPlatform(),
): void {
  if (!Number.isSafeInteger(pid) || pid <= 1) return;
  if (platform === "win32") {
    // No process groups to signal: taskkill walks the tree; /F only for the hard stop.
    const args = ["/T", "/PID", String(pid)];
    if (signal === "SIGKILL") args.unshift("/F");
    try {
      nodeChildProcess().spawnSync("taskkill", args, {
        stdio: "ignore",
        timeout: 10_000,
        windowsHide: true,
      });
    } catch { /* gone already */ }
    return;
  }
  // The group first (the child leads it), then the leader itself in case it left it.
  sendSignal(-pid, signal);
  sendSignal(pid, signal);
}

/** Options for {@linkcode terminateGroup}. */
export interface TerminateOptions {
  /** How long the group may take to exit after SIGTERM. @default 10_000 */
  graceMs?: number;
  clock: Clock;
  /** Resolves once the leader has exited, if the caller can tell (a child it spawned). */
  exited?: Promise<unknown>;
}

/**
 * SIGTERM to the group, then SIGKILL once the grace period is over if the leader is
 * still there.
 */
export async function terminateGroup(pid: number, options: TerminateOptions): Promise<void> {
  signalGroup(pid, "SIGTERM");
  const grace = options.graceMs ?? 10_000;
  const end = options.clock.now().getTime() + grace;
  const exited = options.exited?.then(() => true) ?? new Promise<boolean>(() => {});
  while (pidExists(pid) && options.clock.now().getTime() < end) {
    const done = await Promise.race([exited, options.clock.sleep(50).then(() => false)]);
    if (done) break;
  }
  // Whatever the leader did, its group may still hold stragglers.
  signalGroup(pid, "SIGKILL");
}
