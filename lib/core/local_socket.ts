/**
 * Unix domain sockets and the facts of this process that a resident runner must share with
 * the commands it runs. Under Deno its own API, which costs nothing to load (`node:net`
 * would load the Node layer, about 30 ms, into every command that merely looks for a
 * runner); under Node, Node's. On other systems than Linux none of it exists, and callers
 * run as before.
 * @module
 */
import type * as NodeNet from "node:net";
import { hostPlatform, nodeChildProcess, nodeFs } from "./host.ts";

/** A connected socket: bytes both ways. */
export interface LocalConn {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  close(): void;
}

/** A listening socket. */
export interface LocalListener extends AsyncIterable<LocalConn> {
  close(): void;
}

interface DenoSocketApi {
  build: { os: string };
  connect(options: { transport: "unix"; path: string }): Promise<LocalConn>;
  listen(options: { transport: "unix"; path: string }): LocalListener;
  Command: new (program: string, options: {
    args: string[];
    clearEnv: boolean;
    env: Record<string, string>;
    stdin: "null";
    stdout: "piped";
    stderr: "null";
  }) => { outputSync(): { success: boolean; stdout: Uint8Array } };
  execPath(): string;
  hostname(): string;
  statSync(path: string): { size: number; mtime: Date | null; ino: number | null };
  permissions: { querySync(d: { name: string }): { state: string } };
}

// deno-lint-ignore no-explicit-any
const deno = (globalThis as any).Deno as DenoSocketApi | undefined;

function nodeNet(): typeof NodeNet {
  return globalThis.process.getBuiltinModule("node:net");
}

/** This machine's name (a container has its own, as a rule). */
export function machineName(): string {
  return deno ? deno.hostname() : globalThis.process.getBuiltinModule("node:os").hostname();
}

/** Whether this process can use local sockets here: Linux. */
export function localSocketsHere(): boolean {
  return hostPlatform() === "linux";
}

/** Connects to the socket at `path`; rejects as the system does (ENOENT, ECONNREFUSED). */
export function connectLocal(path: string): Promise<LocalConn> {
  if (deno) return deno.connect({ transport: "unix", path });
  return new Promise((resolve, reject) => {
    const socket = nodeNet().createConnection(path);
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(fromNodeSocket(socket));
    });
  });
}

function fromNodeSocket(socket: NodeNet.Socket): LocalConn {
  const { Duplex } = globalThis.process.getBuiltinModule("node:stream");
  const { readable, writable } = Duplex.toWeb(socket);
  return {
    readable: readable as ReadableStream<Uint8Array>,
    writable: writable as WritableStream<Uint8Array>,
    close: () => void socket.destroy(),
  };
}

/** Listens on `path`, which must not exist; iterating fails if it cannot. */
export function listenLocal(path: string): LocalListener {
  if (deno) return deno.listen({ transport: "unix", path });
  const server = nodeNet().createServer();
  const waiting: NodeNet.Socket[] = [];
  let wake = () => {};
  let failure: Error | undefined;
  let closed = false;
  server.on("connection", (socket) => {
    waiting.push(socket);
    wake();
  });
  server.on("error", (err) => {
    failure = err;
    wake();
  });
  server.listen(path);
  return {
    close() {
      closed = true;
      server.close();
      wake();
    },
    async *[Symbol.asyncIterator]() {
      while (true) {
        const next = waiting.shift();
        if (next) {
          yield fromNodeSocket(next);
          continue;
        }
        if (failure) throw failure;
        if (closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

const PERMISSIONS = ["read", "write", "net", "env", "run", "sys", "ffi"] as const;

/**
 * The permissions granted whole to this process, by Deno's names. Under Node, all of them,
 * unless its permission model is on: then none.
 */
export function grantedPermissions(): string[] {
  if (!deno) return "permission" in globalThis.process ? [] : [...PERMISSIONS];
  return PERMISSIONS.filter((name) => deno.permissions.querySync({ name }).state === "granted");
}

/**
 * What process `pid` inherited that changes how the programs it starts behave and what
 * they may do, as Linux reports it: user and groups, capabilities, umask,
 * no-new-privileges, seccomp, cgroup, namespaces, resource limits, nice and OOM score,
 * security label; and when it started. Two processes with the same facts (and
 * environment) start programs alike.
 *
 * Read by a shell of ours from /proc: Deno lets only a process with every permission read
 * /proc itself, and a compiled binary has not all of them. Undefined when they cannot be
 * read (no such process, or not ours).
 */
export function processFacts(pid: number): { facts: string; startedAt: number } | undefined {
  const args = ["-c", FACTS_SCRIPT, "observal-facts", String(pid)];
  const env = { PATH: "/usr/bin:/bin", LC_ALL: "C" };
  try {
    let text: string;
    if (deno) {
      const r = new deno.Command("/bin/sh", {
        args,
        clearEnv: true,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).outputSync();
      text = r.success ? new TextDecoder().decode(r.stdout) : "";
    } else {
      const r = nodeChildProcess().spawnSync("/bin/sh", args, {
        env,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
      text = r.status === 0 ? r.stdout : "";
    }
    const m = /\nstarted (\d+) (\d+) (\d+)\nfacts-end\n$/.exec(text);
    if (!m) return undefined;
    // Boot time (s) plus the start in clock ticks since boot, at the usual 100 ticks a
    // second: right to a second, as boot time is.
    const [bootS, ticks, hz] = [Number(m[1]), Number(m[2]), Number(m[3])];
    return { facts: text.slice(0, m.index), startedAt: bootS * 1000 + (ticks * 1000) / hz };
  } catch {
    return undefined;
  }
}

/**
 * Prints the facts of process $1 (see {@linkcode processFacts}), with two programs besides
 * the shell (each costs a command about a millisecond); the end mark only when all were read.
 */
const FACTS_SCRIPT = `p=/proc/$1
while IFS= read -r l; do
  case $l in Uid:*|Gid:*|Groups:*|Umask:*|NoNewPrivs:*|Seccomp:*|Cap*) echo "$l" ;; esac
done < $p/status || exit 1
read -r s < $p/stat || exit 1
set -- \${s##*) }
echo "nice \${17}"
{ read -r a < $p/attr/current; } 2>/dev/null && echo "label $a"
cat $p/cgroup $p/limits $p/oom_score_adj || exit 1
readlink $p/ns/cgroup $p/ns/ipc $p/ns/mnt $p/ns/net $p/ns/pid $p/ns/user $p/ns/uts || exit 1
while read -r k v; do [ "$k" = btime ] && b=$v; done < /proc/stat
echo "started $b \${20} 100"
echo facts-end
`;

/**
 * What tells this build from another: the executable and the file of `moduleUrl` (a
 * module of ours), each by path, size, inode and change time. An upgrade replaces one of
 * them.
 */
export function buildStamp(moduleUrl: string): string {
  const paths = [deno ? deno.execPath() : globalThis.process.execPath];
  if (moduleUrl.startsWith("file:")) paths.push(decodeURIComponent(new URL(moduleUrl).pathname));
  return paths.map((path) => {
    try {
      const { size, mtime, ino } = deno ? deno.statSync(path) : nodeFs().statSync(path);
      return `${path} ${size} ${ino} ${mtime?.getTime()}`;
    } catch {
      return `${path} -`;
    }
  }).join("\n");
}
