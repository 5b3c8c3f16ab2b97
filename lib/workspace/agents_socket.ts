/**
 * Where an agent working in a sandbox reaches the broker outside it (lib/runner's
 * agents_broker.ts): a socket in its task folder. A socket's address holds a path of at
 * most 104 bytes (macOS; 108 on Linux), which a deep OBSERVAL_HOME exceeds; such a task's
 * socket gets a short folder of its own under /tmp instead, private to this user and to
 * that task, so the sandbox can show the child that folder and nothing of another task's.
 * @module
 */
import {
  dirname,
  hostPlatform,
  hostUid,
  join,
  lstatPath,
  makeDir,
  nodeFs,
} from "../core/system/mod.ts";

/** The broker's socket's name, in the task folder or in its own folder. */
export const AGENTS_SOCKET = "agents.sock";
/** The variable a child's environment names the broker's socket in. */
export const AGENTS_SOCKET_ENV = "OBSERVAL_AGENTS_SOCKET";
/** Bytes a socket address holds, its final NUL included, on the strictest system (macOS). */
const MAX_SOCKET_PATH = 104;

/**
 * The broker's socket for the task whose folder is `taskDir`: in that folder, or, when that
 * path is too long for a socket, in `/tmp/observal-agents-<uid>-<task id>/`. Undefined on
 * Windows (its children delegate from inside, unsandboxed as they are) and when even that
 * is too long: the child then cannot delegate further.
 *
 * @example
 * ```ts ignore
 * agentsSocketPath("/home/me/.observal/delegations/0b4f0c4e-8a9e-4d52-9f33-3c1d3e0c7a11");
 * // "/home/me/.observal/delegations/0b4f0c4e-8a9e-4d52-9f33-3c1d3e0c7a11/agents.sock"
 * ```
 */
export function agentsSocketPath(taskDir: string): string | undefined {
  if (hostPlatform() === "win32") return undefined;
  for (const dir of [taskDir, shortFolder(taskDir)]) {
    const path = join(dir, AGENTS_SOCKET);
    if (new TextEncoder().encode(path).length < MAX_SOCKET_PATH) return path;
  }
  return undefined;
}

/**
 * The folder made for the task's socket alone, when its task folder is too deep to hold
 * it; undefined when the socket is in the task folder (or there is none).
 */
export function agentsSocketFolder(taskDir: string): string | undefined {
  const socket = agentsSocketPath(taskDir);
  const own = shortFolder(taskDir);
  return socket && dirname(socket) === own ? own : undefined;
}

/**
 * Makes the socket's own folder, readable by this user alone. One that is already there is
 * used only when it is a folder (not a link) of this user's that no one else may enter.
 *
 * @throws {Error} naming the folder, when it is someone else's or open to others
 */
export function makeAgentsSocketFolder(dir: string): void {
  makeDir(dir, 0o700);
  if (!isPrivateFolder(dir)) {
    throw new Error(
      `${dir} is not a folder of this user's alone; remove it, or use a shorter OBSERVAL_HOME`,
    );
  }
}

/**
 * The socket's own folder of the task whose folder is `taskDir`, once it is made and
 * private to this user: what the sandbox shows the child, writable.
 */
export function madeAgentsSocketFolder(taskDir: string): string | undefined {
  const dir = agentsSocketFolder(taskDir);
  return dir && isPrivateFolder(dir) ? dir : undefined;
}

/**
 * Removes the socket's own folder of the task whose folder is `taskDir`, if it has one
 * (and it is this user's: one someone else put there is not ours to remove).
 */
export function removeAgentsSocketFolder(taskDir: string): void {
  const dir = madeAgentsSocketFolder(taskDir);
  if (!dir) return;
  try {
    nodeFs().rmSync(dir, { recursive: true, force: true });
  } catch { /* left to the system's cleaning of /tmp */ }
}

/** A folder (not a link) of this user's that no one else may enter. */
function isPrivateFolder(dir: string): boolean {
  const st = lstatPath(dir);
  const uid = hostUid();
  return !!st?.isDirectory && !st.isSymlink && (uid === undefined || st.uid === uid) &&
    st.mode !== null && (st.mode & 0o077) === 0;
}

/** `/tmp/observal-agents-<uid>-<task id>`: one per user and task. */
function shortFolder(taskDir: string): string {
  const id = taskDir.split("/").filter(Boolean).pop() ?? "";
  return join("/tmp", `observal-agents-${hostUid() ?? "user"}-${id}`);
}
