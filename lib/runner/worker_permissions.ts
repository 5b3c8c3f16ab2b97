/**
 * What a worker may touch under `deno run` (and, for files, under Node's permission model):
 * the fence a worker process is started in, for a remote task and for a local one.
 * @module
 */
import {
  dirname,
  hostPlatform,
  join,
  nodeFs,
  realPathOrLexical,
  resolve,
} from "../core/system/mod.ts";
import { agentsSocketFolder, agentsSocketPath } from "../workspace/roots/mod.ts";
import {
  type Context,
  selfLauncher,
  type SelfPermissions,
  serverTarget,
  VERSION,
} from "../core/mod.ts";
import type { SandboxChoice } from "./sandbox.ts";
import type { SandboxMounts } from "./sandbox_policy.ts";

/** The sandbox chosen for a registry agent's run, with what its worker needs for it. */
export interface LocalSandbox extends SandboxChoice {
  /** The home's part of the sandbox's policy. */
  mounts?: SandboxMounts;
  /** Said once when `auto` finds no sandbox. */
  notice?: string;
}

/** What a worker is fenced to besides its task's needs: its task and the store it updates. */
export interface WorkerFence {
  /** The task's folder (`store.taskDir(id)`): worker log, pid, state, child output, patch. */
  taskDir: string;
  /** The task database (`store.path`); SQLite opens its `-wal` and `-shm` files beside it. */
  storePath: string;
}

/**
 * The files every worker opens: its task folder and the task database (read and write),
 * config.json (read: which registry to use) and, when no server is configured, the
 * embedded registry's database (`<home>/registry.db`, as lib/server's `registryPath`).
 */
function workerFiles(ctx: Context, fence: WorkerFence): { read: string[]; write: string[] } {
  const database = (path: string) => [path, `${path}-wal`, `${path}-shm`];
  const write = [fence.taskDir, ...database(fence.storePath)];
  if (serverTarget(ctx).kind === "embedded") write.push(...database(join(ctx.home, "registry.db")));
  return { read: [...write, join(ctx.home, "config.json")], write };
}

/**
 * What a remote task's worker may touch under `deno run`: its own task folder and the
 * store's database files, and the network of the agent's pinned endpoint and the
 * configured registry (`net`, from the service). Nothing else under OBSERVAL_HOME, no
 * other host, no program.
 *
 * @param ctx the caller's context (home, env)
 * @param net `host:port` entries the worker may reach
 * @param fence the task's folder and the store's database; without it (older callers) the
 *   worker gets all of OBSERVAL_HOME
 * @returns the permissions the worker is started with
 */
export function remotePermissions(
  ctx: Context,
  net: string[],
  fence?: WorkerFence,
): SelfPermissions {
  if (!fence) return { read: [ctx.home], write: [ctx.home], net };
  return { ...workerFiles(ctx, fence), net };
}

/**
 * What a local task's worker may touch under `deno run`: its task folder and the store's
 * database files; the workspaces folder (`<home>/delegations/ws`, as lib/workspace's
 * `workspacesDir`: the copy is made there under a name chosen at run time); read the
 * caller's repository (to copy its uncommitted files), the harness binary and the harness
 * config the run checks (Pi's trust); run git, the shell the harness runs under (the
 * harness itself on Windows) and observal itself (the child's observal-agents servers); and
 * reach the
 * registry. The harness child itself is not fenced by this: it has the user's own access.
 *
 * @param ctx the caller's context (home, cwd, env)
 * @param harness the chosen harness: its binary and the config folder it needs read
 * @param net `host:port` entries the worker may reach (the registry's, if remote)
 * @param fence the task's folder and the store's database; without it (older callers) the
 *   worker gets all of OBSERVAL_HOME
 * @returns the permissions the worker is started with
 */
export function localPermissions(
  ctx: Context,
  harness: {
    key: string;
    binary: string;
    /** The harness config the run checks (Pi's trust), read. */
    trustDir?: string;
    /** Where the run writes the harness's session file before it starts (Pi's). */
    sessionDir?: string;
    /** Where the earlier session the run resumes is looked for again, read. */
    resumeDir?: string;
    sandbox?: LocalSandbox;
  },
  net: string[],
  fence?: WorkerFence,
): SelfPermissions {
  const { binary } = harness;
  const files = fence ? workerFiles(ctx, fence) : { read: [ctx.home], write: [ctx.home] };
  const workspaces = join(ctx.home, "delegations", "ws");
  const read = [...files.read, workspaces, ...repositoryPaths(ctx.cwd), binary];
  // Pi's trust is checked again when the run starts.
  if (harness.trustDir) read.push(harness.trustDir);
  if (harness.resumeDir) read.push(harness.resumeDir);
  // kill(1) stops the child's whole process group when a scoped permission cannot; the
  // others read a child's start time, which tells it from a later process with its pid.
  const platform = hostPlatform();
  // The harness runs under the shell that keeps its output and records its end
  // (lib/process), except on Windows.
  const run = ["git", platform === "win32" ? binary : "/bin/sh", "kill"];
  // find(1) lists the processes still working in the copy when nothing else ends them.
  if (platform === "linux") run.push("cat", "readlink", "find");
  if (platform === "darwin") run.push("ps", "lsof");
  // The child's observal-agents servers run outside its sandbox, started from here
  // (agents_broker.ts): this same observal.
  run.push(selfLauncher("self", { version: VERSION, home: ctx.home })[0]);
  // They connect through its socket in the task folder, or in a folder of its own when the
  // task folder is too deep for a socket (Deno names a socket exactly).
  const socket = fence && agentsSocketPath(fence.taskDir);
  const sockets = socket ? [socket, realPathOrLexical(socket)].map((p) => `unix:${p}`) : [];
  const socketFolder = fence && agentsSocketFolder(fence.taskDir);
  if (socketFolder) read.push(socketFolder);
  const write = [...files.write, workspaces, ...(socketFolder ? [socketFolder] : [])];
  if (harness.sessionDir) write.push(harness.sessionDir);
  const sandbox = harness.sandbox;
  // The sandbox's program, which the worker runs the harness under.
  if (sandbox?.tool && (sandbox.kind === "bwrap" || sandbox.kind === "seatbelt")) {
    run.push(sandbox.tool);
    read.push(sandbox.tool);
  }
  return {
    read: [...new Set(read)],
    write: [...new Set(write)],
    net: [...net, ...new Set(sockets)],
    run,
  };
}

/**
 * The folders a worker reads to copy the caller's working state: the repository's top
 * level (found by its `.git`), for a linked worktree the git directory it points to, and
 * the object folders the copy borrows. Outside a repository, the
 * directory itself.
 */
function repositoryPaths(cwd: string): string[] {
  for (let dir = resolve(cwd);; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    try {
      if (nodeFs().statSync(dotGit).isFile()) {
        const gitdir = /^gitdir:\s*(.+)$/m.exec(nodeFs().readFileSync(dotGit, "utf8"))?.[1]?.trim();
        // A linked worktree's git directory lives in the main repository's .git.
        return gitdir ? [dir, resolve(dir, gitdir, "..", "..")] : [dir];
      }
      return [dir, ...borrowedObjects(join(dotGit, "objects"))];
    } catch { /* no .git here: look further up */ }
    if (dirname(dir) === dir) return [resolve(cwd)];
  }
}

/** The object folders `objects` borrows, and theirs in turn (git follows five levels). */
function borrowedObjects(objects: string, depth = 0): string[] {
  if (depth >= 5) return [];
  let listed: string;
  try {
    listed = nodeFs().readFileSync(join(objects, "info", "alternates"), "utf8");
  } catch {
    return [];
  }
  return listed.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"))
    .map((l) => resolve(objects, l))
    .flatMap((alt) => [alt, ...borrowedObjects(alt, depth + 1)]);
}
