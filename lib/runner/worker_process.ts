/**
 * Detached worker processes: a delegation runs in one, so the task outlives the CLI or MCP
 * call that started it. The worker's pid is recorded in the task's row (the store is the
 * source of truth) and in the `worker.pid` side file, so any later call can tell a live
 * worker from a dead one. A `delegate run` that waits may run its task itself until
 * it stops waiting; it is then the task's worker, and proves it alive through the task
 * folder's runner lock ({@linkcode takeRunnerLock}).
 * @module
 */
import {
  type FileLock,
  fileLocks,
  hostPid,
  hostPlatform,
  join,
  nodeChildProcess,
  nodeFs,
  readText,
  writeText,
} from "../core/system/mod.ts";
import {
  matchProcess,
  pidExists,
  pidNamespace,
  processCommandLine,
  processIdentity,
} from "../process/mod.ts";
import { type Context, ObservalError, selfCommand, type SelfPermissions } from "../core/mod.ts";
import { isFinal, type Task } from "../a2a/tasks/mod.ts";
import { TASK_LOGS, type TaskLogName, type TaskStore } from "../store/mod.ts";

/** Starts the worker for a task; returns its pid. Tests pass their own. */
export type LaunchWorker = (taskId: string, taskDir: string, perms: SelfPermissions) => number;

/** The worker's pid side file in a task folder. */
export function pidFile(taskDir: string): string {
  return join(taskDir, "worker.pid");
}

/** The worker's log in a task folder (its stdout and stderr). */
export function workerLog(taskDir: string): string {
  return join(taskDir, logFile("worker"));
}

/** A log's file name in a task folder, as the store names it. */
export function logFile(name: TaskLogName["name"]): string {
  return TASK_LOGS.find((l) => l.name === name)!.file;
}

/**
 * Creates the worker's log before the task is stored, so a disk that cannot take one more
 * file fails the command before any task exists.
 */
export function prepareWorkerLog(taskDir: string): void {
  nodeFs().closeSync(nodeFs().openSync(workerLog(taskDir), "a", 0o600));
}

/** The pid in the task folder's `worker.pid`, if there is a valid one. */
export function readPid(taskDir: string): number | undefined {
  try {
    const n = Number(nodeFs().readFileSync(pidFile(taskDir), "utf8").trim());
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the task folder's `worker.pid`. */
export function writePid(taskDir: string, pid: number): void {
  writeText(pidFile(taskDir), `${pid}\n`, 0o600);
}

/** The side file naming the PID namespace the worker's pid was read in. */
function pidNsFile(taskDir: string): string {
  return join(taskDir, "worker.pidns");
}

/** Records the PID namespace the worker's pid belongs to (this process's). */
export function writePidNamespace(taskDir: string): void {
  const ns = pidNamespace();
  if (ns) writeText(pidNsFile(taskDir), `${ns}\n`, 0o600);
}

/** The PID namespace the worker's pid was recorded in, if it was recorded. */
export function readPidNamespace(taskDir: string): string | undefined {
  try {
    return readText(pidNsFile(taskDir)).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Removes the task folder's `worker.pid` (a new worker is about to start). */
export function clearPid(taskDir: string): void {
  nodeFs().rmSync(pidFile(taskDir), { force: true });
}

/** The lock a caller that runs its task itself holds in the task folder while it does. */
export function runnerLock(taskDir: string): string {
  return join(taskDir, "runner.lock");
}

/**
 * Makes this process the task's runner in a way other processes can check. Under Deno it
 * holds an flock on the task folder's runner lock, which the OS drops when the process
 * dies however it dies. Node has no flock: under Node on Linux the file records this
 * process's start time instead, which a later process given the same pid does not share.
 * Undefined where neither works (Node elsewhere: reading a start time there spawns
 * programs), or when the lock is held already; a worker then runs the task.
 */
export function takeRunnerLock(taskDir: string): FileLock | undefined {
  const path = runnerLock(taskDir);
  const locks = fileLocks();
  if (locks) return locks.take(path);
  if (hostPlatform() !== "linux") return undefined;
  const me = processIdentity(hostPid())?.startTime;
  if (me === undefined) return undefined;
  writeText(path, `${me}\n`, 0o600);
  return { release: () => nodeFs().rmSync(path, { force: true }) };
}

/**
 * Whether the live process `pid`, which does not name the task, is the task's runner:
 * its flock is held, or the start time it recorded is still that pid's. Where that cannot
 * be told (a Deno runner's lock seen from Node, a start time the OS will not give) it is
 * taken as alive.
 */
function runnerAlive(pid: number, taskDir: string): boolean {
  const path = runnerLock(taskDir);
  const locks = fileLocks();
  if (locks?.held(path)) return true;
  let recorded: string;
  try {
    recorded = readText(path).trim();
  } catch {
    return false; // no runner lock: not a runner
  }
  if (recorded === "") return locks === undefined;
  const now = processIdentity(pid)?.startTime;
  return now === undefined || now === recorded;
}

/**
 * Is this pid a live worker for this task? The pid must exist and, where the OS shows
 * command lines, its command line must name the task, so a recycled pid never passes. A
 * caller running the task itself does not name it: it passes while the task folder's
 * runner lock shows it alive ({@linkcode takeRunnerLock}).
 */
export function workerAlive(pid: number, taskId: string, taskDir: string): boolean {
  if (!pidExists(pid)) return false;
  // A process we may not inspect (another user's, or a permission-fenced caller) is taken
  // as alive: settling a live task as dead would also reap its child.
  const command = processCommandLine(pid);
  if (command === undefined || command.includes(taskId)) return true;
  return runnerAlive(pid, taskDir);
}

/** The real launcher: re-executes observal detached, logging to worker.log. */
export function detachedLauncher(ctx: Context): LaunchWorker {
  return (taskId, taskDir, perms) => {
    const [command, ...args] = selfCommand(["delegate", "worker", taskId], perms);
    const log = nodeFs().openSync(workerLog(taskDir), "a", 0o600);
    try {
      const child = nodeChildProcess().spawn(command, args, {
        cwd: taskDir,
        env: ctx.env as Record<string, string>,
        detached: true,
        stdio: ["ignore", log, log],
      });
      // Before the pid check: a spawn that fails (no such program) also emits "error",
      // which with no listener would end this process with a second, uncaught report.
      child.on("error", () => {/* reported through the pid check and the grace period */});
      if (child.pid === undefined) {
        throw new ObservalError("UNAVAILABLE", `the system could not run ${command}`, {
          remediation: `Check ${workerLog(taskDir)}`,
        });
      }
      child.unref();
      return child.pid;
    } finally {
      nodeFs().closeSync(log);
    }
  };
}

/**
 * For a task whose worker's pid was read in another PID namespace, where its number means
 * nothing here: a worker started from inside the sandbox of the task that delegated it
 * lives as long as that sandbox (whose first process is the parent's recorded child). Seen
 * from inside a sandbox, or when it cannot be told, the worker is taken as alive.
 *
 * @returns why the worker is gone, or undefined while it may live
 */
export function sandboxedWorkerGone(store: TaskStore, task: Task): string | undefined {
  const parentId = task.metadata.observal.parentTaskId;
  const parent = parentId ? store.get(parentId) : undefined;
  if (!parent) return undefined;
  const meta = parent.metadata.observal;
  if (meta.sandbox !== "bwrap") return undefined;
  const gone = isFinal(parent.status.state) || meta.childPid === undefined ||
    matchProcess(meta.childPid, meta.childStartTime) === "gone";
  return gone
    ? `The delegation ended with the sandbox of task ${parent.id}, which delegated it.`
    : undefined;
}
