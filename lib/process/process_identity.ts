/**
 * Telling one process from another that later got the same pid. A pid alone is reused
 * by the OS; a pid together with its start time is not. We record the start time when we
 * spawn a child and compare it before we ever signal that pid again.
 * @module
 */
import { sendSignal } from "./_signal.ts";
import {
  hostPlatform,
  nodeChildProcess,
  nodeFs,
  nodePath,
  pauseSync,
  readText,
} from "../core/system/mod.ts";

/** What identifies a running process across pid reuse. */
export interface ProcessIdentity {
  /** An opaque token for the process's start; equal tokens mean the same process. */
  startTime: string;
  /** The process's working directory, where the OS tells it. */
  cwd?: string;
}

/** Options for {@linkcode processIdentity}. */
export interface IdentityOptions {
  /** @default process.platform */
  platform?: NodeJS.Platform;
}

/** Options for {@linkcode processCommandLine}. */
export interface CommandLineOptions extends IdentityOptions {
  /** Reads a file under /proc; undefined when it cannot. Tests pass their own. */
  readProc?: (path: string) => string | undefined;
  /** Blocks for this many ms between reads of a command line that is not there yet. */
  pause?: (ms: number) => void;
}

/**
 * How long to keep reading an empty command line, in ms per try. Linux shows one for an
 * instant while a process is inside execve: its parent already runs again (so a launcher
 * can ask at once) but the new arguments are not mapped yet. About a second in all.
 */
const EXEC_WINDOW_PAUSES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** A kernel thread's flag in /proc/PID/stat (field 9); such a process has no command line. */
const PF_KTHREAD = 0x00200000;
/**
 * The flag (field 9) of a process that is exiting: its memory, command line included, may
 * already be gone while it flushes and closes what it had open, which under load can take
 * seconds before it becomes a zombie.
 */
const PF_EXITING = 0x00000004;

/**
 * Whether a process with this pid is running (a signal-0 probe; no permission counts as
 * yes). A zombie, which has exited and only waits for its parent, does not count.
 */
export function pidExists(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  // A process /proc shows is there: no signal needed, which under Deno would start the
  // runtime's Node layer (7-15 ms). Elsewhere (another OS, a fenced worker) the probe decides.
  const shown = readProc(`/proc/${pid}/stat`, false);
  if (shown !== undefined) return statFields(shown)[0] !== "Z";
  if (sendSignal(pid, 0) === "gone") return false;
  const stat = readProc(`/proc/${pid}/stat`);
  return stat === undefined || statFields(stat)[0] !== "Z";
}

/**
 * The fields of /proc/PID/stat after the command name (field 3 on: state, ppid, ...). The
 * name is in parentheses and may hold spaces or parentheses, so they count from the last ")".
 */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * Reads a file under /proc. Deno refuses /proc reads to any process without full
 * permissions, so a fenced worker asks cat(1) instead (allowed to it by name), unless
 * `orCat` is false; both ways read the same data, so a start time recorded one way
 * matches the other.
 */
function readProc(path: string, orCat = true): string | undefined {
  try {
    return readText(path);
  } catch (err) {
    if (!orCat || (err as Error).name !== "NotCapable") return undefined;
    return run("cat", [path]);
  }
}

function readProcLink(path: string): string | undefined {
  try {
    return nodeFs().readlinkSync(path);
  } catch (err) {
    if ((err as Error).name !== "NotCapable") return undefined;
    return run("readlink", [path])?.replace(/\n$/, "");
  }
}

/**
 * This process's PID namespace (`pid:[4026531836]`), undefined off Linux. A pid means
 * something only inside the namespace it was read in: a sandboxed child's own PID
 * namespace numbers its processes afresh.
 */
export function pidNamespace(): string | undefined {
  if (hostPlatform() !== "linux") return undefined;
  return readProcLink("/proc/self/ns/pid");
}

function linuxIdentity(pid: number): ProcessIdentity | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // Field 22 is the start time in clock ticks.
  const fields = statFields(stat);
  const ticks = fields[19];
  if (!ticks || !/^\d+$/.test(ticks)) return undefined;
  // Ticks count from boot; the boot id keeps a token from matching after a reboot.
  const boot = readProc("/proc/sys/kernel/random/boot_id")?.trim() ?? "";
  // Unreadable for another user's process, or one that just exited.
  const cwd = readProcLink(`/proc/${pid}/cwd`);
  return { startTime: `linux:${boot}:${ticks}`, cwd };
}

function run(command: string, args: string[]): string | undefined {
  try {
    const r = nodeChildProcess().spawnSync(command, args, {
      encoding: "utf8",
      timeout: 10_000,
      windowsHide: true,
    });
    // Under a permission sandbox a refused program reports no status at all.
    return r.status === 0 && typeof r.stdout === "string" ? r.stdout : undefined;
  } catch {
    return undefined;
  }
}

function macIdentity(pid: number): ProcessIdentity | undefined {
  const started = run("ps", ["-o", "lstart=", "-p", String(pid)])?.trim();
  if (!started) return undefined;
  // lsof is optional; without it the start time alone identifies the process.
  const lsof = run("lsof", ["-a", "-p", String(pid), "-d", "cwd", "-Fn"]);
  const cwd = lsof?.split("\n").find((l) => l.startsWith("n"))?.slice(1);
  return { startTime: `darwin:${started}`, cwd: cwd || undefined };
}

function windowsIdentity(pid: number): ProcessIdentity | undefined {
  const ticks = run("powershell.exe", [
    "-NoProfile",
    "-NonInteractive",
    "-Command",
    `(Get-Process -Id ${pid} -ErrorAction Stop).StartTime.ToUniversalTime().Ticks`,
  ])?.trim();
  return ticks && /^\d+$/.test(ticks) ? { startTime: `win32:${ticks}` } : undefined;
}

/**
 * The identity of a running process, or undefined when it is not running or the OS will
 * not say. Linux reads /proc; macOS asks `ps` (and `lsof` for the cwd); Windows asks
 * PowerShell for the start time.
 *
 * @param pid the process id
 * @param options the platform (tests may pretend)
 * @returns its start-time token and, where known, its cwd
 *
 * @example
 * ```ts
 * import process from "node:process";
 *
 * processIdentity(process.pid)?.startTime; // e.g. "linux:2f0c…:123456"
 * ```
 */
export function processIdentity(
  pid: number,
  options: IdentityOptions = {},
): ProcessIdentity | undefined {
  if (!pidExists(pid)) return undefined;
  switch (options.platform ?? hostPlatform()) {
    case "linux":
      return linuxIdentity(pid);
    case "darwin":
      return macIdentity(pid);
    case "win32":
      return windowsIdentity(pid);
    default:
      return undefined;
  }
}

/** What a recorded process is now. */
export type ProcessMatch =
  /** The same process is still running. */
  | "ours"
  /** No process has that pid any more. */
  | "gone"
  /** Something runs under that pid, but it cannot be proven to be the recorded process. */
  | "unproven";

/**
 * Compares a live pid with what was recorded when it was spawned: the start time must be
 * equal and, where the OS reports a cwd, it must lie inside `withinDir`.
 *
 * @param pid the recorded pid
 * @param recorded the start-time token recorded at spawn
 * @param withinDir the folder the process was started in (its workspace), if any
 * @returns "ours", "gone" or "unproven"
 */
export function matchProcess(
  pid: number,
  recorded: string | undefined,
  withinDir?: string,
  options: IdentityOptions = {},
): ProcessMatch {
  if (!pidExists(pid)) return "gone";
  const now = processIdentity(pid, options);
  if (!now) return pidExists(pid) ? "unproven" : "gone";
  if (!recorded || now.startTime !== recorded) return "unproven";
  if (withinDir && now.cwd !== undefined && !isInside(now.cwd, withinDir)) return "unproven";
  return "ours";
}

function isInside(path: string, dir: string): boolean {
  const { relative, resolve, sep } = nodePath();
  const rel = relative(resolve(dir), resolve(path));
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/**
 * The command line of a running process, or undefined when the OS will not say (then a
 * caller must not conclude anything from it).
 */
export function processCommandLine(
  pid: number,
  options: CommandLineOptions = {},
): string | undefined {
  if (!pidExists(pid)) return undefined;
  const platform = options.platform ?? hostPlatform();
  if (platform === "linux") return linuxCommandLine(pid, options);
  if (platform === "darwin") return run("ps", ["-o", "command=", "-p", String(pid)])?.trim();
  return undefined;
}

/**
 * An empty command line is final only for a kernel thread or a process that is exiting.
 * Any other process shows one only while inside execve, so it is read again until it is there; if it never comes,
 * nothing can be concluded (a live worker must not be taken for a dead one).
 */
function linuxCommandLine(pid: number, options: CommandLineOptions): string | undefined {
  const read = options.readProc ?? readProc;
  const pause = options.pause ?? pauseSync;
  for (const ms of [...EXEC_WINDOW_PAUSES, undefined]) {
    const line = read(`/proc/${pid}/cmdline`);
    if (line === undefined) return undefined;
    if (line !== "") return line.replaceAll("\0", " ");
    const stat = read(`/proc/${pid}/stat`);
    if (stat === undefined) return undefined; // Reaped meanwhile, or unreadable.
    const [state, , , , , , flags] = statFields(stat);
    // A zombie has exited, an exiting process runs nothing of its own any more, and a
    // kernel thread never had arguments.
    if (state === "Z" || Number(flags) & (PF_KTHREAD | PF_EXITING)) return "";
    if (ms === undefined) return undefined;
    pause(ms);
  }
  return undefined;
}
