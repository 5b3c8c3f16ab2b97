/**
 * Sending a signal, also from a permission-fenced Deno process: a run permission scoped
 * to named programs forbids `process.kill`, so the signal then goes through kill(1),
 * which such a process is allowed to run by name.
 * @module
 */
import { nodeChildProcess, nodeProcess } from "../core/system/mod.ts";

/** What became of a signal. */
export type SignalResult = "sent" | "gone" | "denied";

/**
 * Sends `signal` (0 only probes) to `pid`, or to the process group `-pid` leads when
 * `pid` is negative.
 */
export function sendSignal(pid: number, signal: "SIGTERM" | "SIGKILL" | 0): SignalResult {
  try {
    nodeProcess().kill(pid, signal);
    return "sent";
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "ESRCH") return "gone";
    if (e.code === "EPERM") return "denied";
    if (e.name !== "NotCapable") return "gone";
  }
  const name = signal === 0 ? "0" : signal.slice(3);
  try {
    const r = nodeChildProcess().spawnSync("kill", [`-${name}`, "--", String(pid)], {
      stdio: "ignore",
      timeout: 10_000,
    });
    // A refused program reports no status at all under Deno.
    if (r.status === null || r.status === undefined) return "denied";
    return r.status === 0 ? "sent" : "gone";
  } catch {
    return "denied";
  }
}
