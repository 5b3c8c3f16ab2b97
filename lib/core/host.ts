/**
 * What every command touches of its process (environment, working folder, standard
 * streams, a few file calls) without loading Deno's Node layer.
 *
 * Under Deno the first import of a `node:` built-in loads its part of that layer: node:fs
 * costs about 30 ms and node:process about 19 ms, each more than `deno eval ''` takes in
 * all. Deno's own API costs nothing to load, so under Deno these use it; under Node they
 * are Node's own. Code off the hot paths keeps importing `node:` built-ins directly; code
 * on them takes the rarely needed ones from {@linkcode nodeFs}, {@linkcode nodeProcess} and
 * the like, which load on first call.
 *
 * One module past 400 lines: it is the only seam between the two runtimes, and every
 * command loads it first; each part is small and more modules would cost start-up time.
 * @module
 */
import type * as NodeFs from "node:fs";

/** The part of Deno's API used here (lib/ is type-checked without Deno's types too). */
interface DenoHost {
  env: { toObject(): Record<string, string>; get(name: string): string | undefined };
  cwd(): string;
  build: { os: string };
  stdin: ByteReader & { isTerminal(): boolean; setRaw(raw: boolean): void };
  stdout: DenoStream;
  stderr: DenoStream;
  statSync(path: string): PathStat;
  lstatSync(path: string): PathStat;
  realPathSync(path: string): string;
  readTextFileSync(path: string): string;
  writeTextFileSync(path: string, text: string, options: { mode: number }): void;
  readFileSync(path: string): Uint8Array;
  writeFileSync(path: string, bytes: Uint8Array, options: { mode: number }): void;
  mkdirSync(path: string, options: { recursive: boolean; mode: number }): void;
  removeSync(path: string): void;
  renameSync(from: string, to: string): void;
  openSync(
    path: string,
    options?: {
      read?: boolean;
      write?: boolean;
      create?: boolean;
      createNew?: boolean;
      mode?: number;
    },
  ): DenoFile;
  errors: { BrokenPipe: new () => Error; WouldBlock: new () => Error };
  exit(code: number): never;
  pid: number;
  uid(): number | null;
  osRelease(): string;
  createHttpClient(options: { poolMaxIdlePerHost: number }): { close(): void };
  addSignalListener(signal: StopSignal, listener: () => void): void;
  removeSignalListener(signal: StopSignal, listener: () => void): void;
}

interface DenoFile {
  readSync(into: Uint8Array): number | null;
  writeSync(bytes: Uint8Array): number;
  syncSync(): void;
  tryLockSync(exclusive: boolean): boolean;
  close(): void;
}

/** The signals that ask a waiting command to stop: Ctrl-C, a closed terminal, a kill. */
type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

interface DenoStream {
  writeSync(bytes: Uint8Array): number;
  write(bytes: Uint8Array): Promise<number>;
  isTerminal(): boolean;
}

// deno-lint-ignore no-explicit-any
const deno = (globalThis as any).Deno as DenoHost | undefined;

/** Bytes read into a buffer given, as `Deno.stdin` reads; null once input ends. */
export interface ByteReader {
  read(into: Uint8Array): Promise<number | null>;
}

/** Bytes written, possibly fewer than given, as `Deno.stdout` writes. */
export interface ByteWriter {
  write(bytes: Uint8Array): Promise<number>;
}

/**
 * Under Deno, the process's stdin and stdout as Deno reads and writes them; undefined under
 * Node, where `process.stdin` and `process.stdout` cost nothing extra.
 */
export function hostStdio(): { stdin: ByteReader; stdout: ByteWriter } | undefined {
  if (!deno) return undefined;
  const { stdin, stdout, errors } = deno;
  return {
    stdin,
    stdout: {
      async write(bytes) {
        for (;;) {
          try {
            return await stdout.write(bytes);
          } catch (err) {
            // A full pipe its reader made non-blocking: wait for the reader.
            if (!(err instanceof errors.WouldBlock)) throw err;
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
        }
      },
    },
  };
}

/** The process's standard input, as a command that reads it needs it. */
export interface HostStdin extends ByteReader {
  /** Whether it is a terminal (nothing was piped or redirected to it). */
  isTerminal(): boolean;
  /**
   * A terminal's raw mode: no echo, no line editing, Ctrl-C read as a byte rather than
   * sent as a signal. Absent where it cannot be set.
   */
  setRaw?(raw: boolean): void;
}

/**
 * The process's stdin: `Deno.stdin` under Deno; under Node, reads of file descriptor 0,
 * so `process.stdin` is never made and nothing is read ahead into memory.
 */
export function hostStdin(): HostStdin {
  if (deno) return deno.stdin;
  return {
    isTerminal: () => globalThis.process.getBuiltinModule("node:tty").isatty(0),
    // Not process.stdin's setRawMode: making process.stdin would read ahead of us.
    setRaw: (raw) =>
      void nodeChildProcess().spawnSync("stty", raw ? ["raw", "-echo"] : ["-raw", "echo"], {
        stdio: ["inherit", "ignore", "ignore"],
      }),
    read: (into) =>
      new Promise((resolve, reject) => {
        const attempt = () =>
          nodeFs().read(0, into, 0, into.length, null, (err, bytes) => {
            // A descriptor someone made non-blocking has nothing yet: wait, as a plain read would.
            if ((err as { code?: string } | null)?.code === "EAGAIN") setTimeout(attempt, 5);
            else if (err) reject(err);
            else resolve(bytes === 0 ? null : bytes);
          });
        attempt();
      }),
  };
}

/** A standard stream that goes quiet once its reader has gone. */
export interface HostStream {
  write(text: string): void;
}

/** The process's environment, as a copy. */
export function hostEnv(): Record<string, string | undefined> {
  return deno ? deno.env.toObject() : { ...globalThis.process.env };
}

/** `env` without its unset variables: what a spawned program's environment takes. */
export function definedEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/** This process's id. */
export function hostPid(): number {
  return deno ? deno.pid : globalThis.process.pid;
}

/** This process's user id; undefined where the OS has none (Windows). */
export function hostUid(): number | undefined {
  const uid = deno ? deno.uid() : globalThis.process.getuid?.();
  return uid ?? undefined;
}

/** The kernel's release (`uname -r`): Deno's own call costs nothing, node:os 3-4 ms to load. */
export function hostOsRelease(): string {
  return deno ? deno.osRelease() : globalThis.process.getBuiltinModule("node:os").release();
}

/** The process's working folder. */
export function hostCwd(): string {
  return deno ? deno.cwd() : globalThis.process.cwd();
}

/** The OS, named as Node names it (`linux`, `darwin`, `win32`, ...). */
export function hostPlatform(): NodeJS.Platform {
  if (!deno) return globalThis.process.platform;
  return (deno.build.os === "windows" ? "win32" : deno.build.os) as NodeJS.Platform;
}

/**
 * The process's stdout or stderr. A broken pipe (`observal delegate list | head -1`) ends
 * the output, not the command, and prints no stack trace. Under Deno a write is complete
 * when it returns, so nothing is lost when the process exits right after.
 */
export function hostStream(name: "stdout" | "stderr"): HostStream {
  return deno ? denoStream(deno, name) : nodeStream(globalThis.process[name]);
}

/**
 * Ends the process with `code`, once a command has finished. Under Deno the process exits
 * at once: every write here has completed when it returns, and tearing the runtime down
 * costs a command 5–15 ms more. Under Node, whose stdout may still be draining into a
 * pipe, this only sets the code and the process ends when nothing is left to run.
 */
export function endProcess(code: number): void {
  if (deno) deno.exit(code);
  globalThis.process.exitCode = code;
}

/**
 * Ends the process with `code` now, whatever is still running: for a person who asked
 * twice to stop. What was written to stderr has reached it (writes there are synchronous
 * under both runtimes when it is a terminal, a file or a pipe).
 */
export function exitNow(code: number): never {
  if (deno) deno.exit(code);
  return globalThis.process.exit(code);
}

/** Whether stdout is a terminal. */
export function stdoutIsTerminal(): boolean {
  return deno ? deno.stdout.isTerminal() : Boolean(globalThis.process.stdout.isTTY);
}

/** Whether stdin and stderr are both a terminal: a person runs this command by hand. */
export function runByHand(): boolean {
  if (deno) return deno.stdin.isTerminal() && deno.stderr.isTerminal();
  const { isatty } = globalThis.process.getBuiltinModule("node:tty");
  return isatty(0) && isatty(2);
}

function denoStream(d: DenoHost, name: "stdout" | "stderr"): HostStream {
  const stream = d[name];
  const encoder = new TextEncoder();
  let closed = false;
  return {
    write(text) {
      if (closed) return;
      let bytes = encoder.encode(text);
      while (bytes.length > 0) {
        try {
          bytes = bytes.subarray(stream.writeSync(bytes));
        } catch (err) {
          if (err instanceof d.errors.BrokenPipe) return void (closed = true);
          if (!(err instanceof d.errors.WouldBlock)) throw err;
          // A pipe its reader made non-blocking is full: wait for the reader, as a
          // blocking write would, instead of failing the command.
          pauseSync(2);
        }
      }
    },
  };
}

function nodeStream(stream: NodeJS.WriteStream): HostStream {
  let closed = false;
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE" || err.code === "ERR_STREAM_DESTROYED") closed = true;
    else throw err;
  });
  return {
    write(text) {
      if (closed) return;
      try {
        stream.write(text);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EPIPE") throw err;
        closed = true;
      }
    },
  };
}

/**
 * Calls `fn` once, `ms` milliseconds from now; the function returned cancels the call.
 * While armed it keeps the process running, as a timer does.
 *
 * Under Deno the global `setTimeout` loads the runtime's Node timers on its first use
 * (5-16 ms, more than the rest of a worker's bookkeeping), so there the time comes from
 * `AbortSignal.timeout`, which Deno keeps running only while the signal has a listener:
 * removing it is the cancel.
 */
export function startTimer(ms: number, fn: () => void): () => void {
  // Both APIs take whole milliseconds up to 2^31 - 1; a bad value means "now", as in Node.
  const delay = Number.isFinite(ms) ? Math.min(Math.max(0, Math.floor(ms)), 2 ** 31 - 1) : 0;
  if (!deno) {
    const timer = setTimeout(fn, delay);
    return () => clearTimeout(timer);
  }
  const signal = AbortSignal.timeout(delay);
  signal.addEventListener("abort", fn, { once: true });
  return () => signal.removeEventListener("abort", fn);
}

/** Blocks the thread for `ms`: for callers that must answer synchronously. */
export function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * node:crypto, loaded on the first call: digests and API keys need it, most commands not
 * (under Deno it costs ~25 ms to load).
 */
export function nodeCrypto(): typeof import("node:crypto") {
  return globalThis.process.getBuiltinModule("node:crypto");
}

/** node:fs, loaded on the first call (under Deno, with its part of the Node layer). */
export function nodeFs(): typeof NodeFs {
  return globalThis.process.getBuiltinModule("node:fs");
}

/** node:http, loaded on the first call. */
export function nodeHttp(): typeof import("node:http") {
  return globalThis.process.getBuiltinModule("node:http");
}

/** node:https, loaded on the first call. */
export function nodeHttps(): typeof import("node:https") {
  return globalThis.process.getBuiltinModule("node:https");
}

/** node:child_process, loaded on the first call. */
export function nodeChildProcess(): typeof import("node:child_process") {
  return globalThis.process.getBuiltinModule("node:child_process");
}

/** node:path, loaded on the first call: what lib/core/paths.ts does not cover. */
export function nodePath(): typeof import("node:path") {
  return globalThis.process.getBuiltinModule("node:path");
}

/**
 * Node's `process`: pids, signals and the rest of what only some paths need. Under Deno
 * the first use loads its part of the Node layer, so call it where it is needed, not at
 * module load.
 */
export function nodeProcess(): NodeJS.Process {
  return globalThis.process;
}

/**
 * Calls `listener` when the process is asked to stop (Ctrl-C, its terminal closing, or
 * SIGTERM) until the function returned is called; meanwhile those signals do not end it.
 */
export function onInterrupt(listener: () => void): () => void {
  // Windows delivers only Ctrl-C (and Ctrl-Break) to a process.
  const signals: StopSignal[] = hostPlatform() === "win32"
    ? ["SIGINT"]
    : ["SIGINT", "SIGTERM", "SIGHUP"];
  if (deno) {
    for (const s of signals) deno.addSignalListener(s, listener);
    return () => signals.forEach((s) => deno.removeSignalListener(s, listener));
  }
  for (const s of signals) globalThis.process.on(s, listener);
  return () => signals.forEach((s) => void globalThis.process.off(s, listener));
}

/** An exclusive lock on a file, held until released or until the process ends. */
export interface FileLock {
  release(): void;
}

/**
 * Exclusive advisory file locks (flock), which the OS drops when their holder dies however
 * it dies, so a held lock proves a live holder. Under Deno only: Node has no file locks,
 * and there this is undefined.
 */
export interface FileLocks {
  /**
   * Locks `path`, creating the file; undefined when some other open file holds it. Its
   * release removes the file.
   */
  take(path: string): FileLock | undefined;
  /** Whether some open file holds a lock on `path` (false when there is no such file). */
  held(path: string): boolean;
}

/** See {@linkcode FileLocks}. */
export function fileLocks(): FileLocks | undefined {
  if (!deno) return undefined;
  return {
    take(path) {
      const file = deno.openSync(path, { read: true, write: true, create: true, mode: 0o600 });
      if (file.tryLockSync(true)) {
        return {
          release() {
            try {
              deno.removeSync(path);
            } catch { /* gone already: the lock goes all the same */ }
            file.close();
          },
        };
      }
      file.close();
      return undefined;
    },
    held(path) {
      let file: DenoFile;
      try {
        file = deno.openSync(path, { read: true });
      } catch (err) {
        if ((err as { code?: string }).code === "ENOENT") return false;
        throw err;
      }
      try {
        return !file.tryLockSync(true);
      } finally {
        file.close(); // closing drops a lock taken just now
      }
    },
  };
}

/** Whether something is at `path` (following links), as node:fs `existsSync` says. */
export function pathExists(path: string): boolean {
  return statPath(path) !== undefined;
}

/** What is at a path: its type, and its permission bits (null where the OS has none). */
export interface PathStat {
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
  mode: number | null;
  /** Its size in bytes (meaningful for a regular file). */
  size: number;
  /** Its owner's user id (null where the OS has none). */
  uid: number | null;
}

/** What is at `path`, following links; undefined when it cannot be stat'ed. */
export function statPath(path: string): PathStat | undefined {
  return statWith(path, false);
}

/** What is at `path` itself (a link is not followed); undefined when it cannot be stat'ed. */
export function lstatPath(path: string): PathStat | undefined {
  return statWith(path, true);
}

function statWith(path: string, link: boolean): PathStat | undefined {
  try {
    if (deno) {
      const { isFile, isDirectory, isSymlink, mode, size, uid } = link
        ? deno.lstatSync(path)
        : deno.statSync(path);
      return { isFile, isDirectory, isSymlink, mode, size, uid };
    }
    const stat = link ? nodeFs().lstatSync(path) : nodeFs().statSync(path);
    return {
      isFile: stat.isFile(),
      isDirectory: stat.isDirectory(),
      isSymlink: stat.isSymbolicLink(),
      mode: stat.mode,
      size: stat.size,
      uid: hostPlatform() === "win32" ? null : stat.uid,
    };
  } catch {
    return undefined;
  }
}

/** `path` with every link and `..` resolved; undefined when it does not exist. */
export function realPath(path: string): string | undefined {
  try {
    return deno ? deno.realPathSync(path) : nodeFs().realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * `path` with every link resolved, also when its last parts do not exist yet (they are
 * kept as written under the nearest folder that exists).
 */
export function realPathOrLexical(path: string): string {
  const real = realPath(path);
  if (real) return real;
  const cut = path.replace(/\/+$/, "").lastIndexOf("/");
  if (cut <= 0) return path;
  return `${realPathOrLexical(path.slice(0, cut))}${path.slice(cut)}`;
}

/**
 * A UTF-8 file's text. Errors carry Node's `code` (`ENOENT`, ...) under either runtime.
 */
export function readText(path: string): string {
  return deno ? deno.readTextFileSync(path) : nodeFs().readFileSync(path, "utf8");
}

/** A file's bytes. Errors carry Node's `code` (`ENOENT`, ...) under either runtime. */
export function readBytes(path: string): Uint8Array {
  return deno ? deno.readFileSync(path) : nodeFs().readFileSync(path);
}

/** Writes `bytes` to a file, creating it with `mode` or replacing what it held. */
export function writeBytes(path: string, bytes: Uint8Array, mode = 0o600): void {
  if (deno) deno.writeFileSync(path, bytes, { mode });
  else nodeFs().writeFileSync(path, bytes, { mode });
}

/** Removes a file; nothing there is no error. */
export function removeFile(path: string): void {
  try {
    if (deno) deno.removeSync(path);
    else nodeFs().rmSync(path, { force: true });
  } catch (err) {
    if ((err as { code?: string }).code !== "ENOENT") throw err;
  }
}

/**
 * Up to `length` bytes from the start of a file (fewer for a shorter file), or undefined
 * when it cannot be opened.
 */
export function readHead(path: string, length: number): Uint8Array | undefined {
  const head = new Uint8Array(length);
  let got = 0;
  if (deno) {
    let file;
    try {
      file = deno.openSync(path);
    } catch {
      return undefined;
    }
    try {
      for (let n; got < length && (n = file.readSync(head.subarray(got))); got += n);
    } finally {
      file.close();
    }
    return head.subarray(0, got);
  }
  const { openSync, readSync, closeSync } = nodeFs();
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    for (let n; got < length && (n = readSync(fd, head, got, length - got, got)); got += n);
  } finally {
    closeSync(fd);
  }
  return head.subarray(0, got);
}

/**
 * Writes `text` to a file as UTF-8, creating it with `mode` or replacing what it held.
 * Private by default: every file written here lives under OBSERVAL_HOME, and Deno applies
 * the mode as given, whatever the umask. Errors carry Node's `code` under either runtime.
 */
export function writeText(path: string, text: string, mode = 0o600): void {
  if (deno) deno.writeTextFileSync(path, text, { mode });
  else nodeFs().writeFileSync(path, text, { mode });
}

/**
 * Writes `text` over the start of a file, creating it with `mode` when missing, without
 * truncating it first: for a small file rewritten often with text of one length. A
 * truncating write makes ext4 flush the file on close (its `auto_da_alloc` guard), about
 * 3 ms a write; this takes microseconds, and a watcher sees the change all the same.
 */
export function overwriteText(path: string, text: string, mode = 0o600): void {
  const bytes = new TextEncoder().encode(text);
  if (deno) {
    const file = deno.openSync(path, { write: true, create: true, mode });
    try {
      writeAllDeno(file, bytes);
    } finally {
      file.close();
    }
    return;
  }
  const fs = nodeFs();
  const fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_CREAT, mode);
  try {
    writeAllNode(fd, bytes);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes all of `bytes` to a file Deno opened, from where it stands (a new file's start). */
function writeAllDeno(file: { writeSync(p: Uint8Array): number }, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += file.writeSync(bytes.subarray(at));
}

/** Writes all of `bytes` to a file Node opened, from its start. */
function writeAllNode(fd: number, bytes: Uint8Array): void {
  const fs = nodeFs();
  for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at, at);
}

/**
 * Replaces the file at `path` with `text` (UTF-8) so that a reader sees the old content or
 * the new, never part of it: written to `tmp` (created new, with `mode` before the umask),
 * then renamed over `path`. With `flush` (the default) it is forced to the disk before the
 * rename, so a crash of the machine also leaves one or the other; that costs a disk round
 * trip (about 7 ms here against 1 without). `tmp` must be a fresh name in the same folder;
 * it is removed when anything fails.
 */
export function replaceFile(
  path: string,
  tmp: string,
  text: string,
  mode: number,
  { flush = true }: { flush?: boolean } = {},
): void {
  const bytes = new TextEncoder().encode(text);
  if (deno) {
    try {
      const file = deno.openSync(tmp, { write: true, createNew: true, mode });
      try {
        writeAllDeno(file, bytes);
        if (flush) file.syncSync();
      } finally {
        file.close();
      }
      deno.renameSync(tmp, path);
    } catch (err) {
      try {
        deno.removeSync(tmp);
      } catch { /* never made, or gone */ }
      throw err;
    }
    return;
  }
  const fs = nodeFs();
  try {
    const fd = fs.openSync(tmp, "wx", mode);
    try {
      writeAllNode(fd, bytes);
      try {
        if (flush) fs.fsyncSync(fd);
      } catch (err) {
        // Node's permission model (a worker's fence) disables fsync outright; the rename
        // is still atomic, only not forced to the disk before it.
        if ((err as { code?: string }).code !== "ERR_ACCESS_DENIED") throw err;
      }
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** The variables through which Deno's fetch would send a request by a proxy. */
const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"].flatMap((v) => [
  v,
  v.toLowerCase(),
]);

/**
 * The runtime's own fetch, for one exchange, where it connects straight to the URL's
 * host: under Deno, when no proxy is set in the environment (Deno's fetch honours
 * `HTTP_PROXY` and the like; node:http, and so observal, never does). No idle connection
 * is kept; call `close` once the answer is read. Undefined under Node, and where a proxy
 * is set.
 */
export function directFetch(): DirectFetch | undefined {
  if (!deno) return undefined;
  try {
    if (PROXY_VARIABLES.some((v) => deno.env.get(v))) return undefined;
  } catch {
    return undefined; // Not allowed to read them: a proxy may be set.
  }
  const client = deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  return {
    fetch: (url, init) => fetch(url, { ...init, client } as RequestInit),
    close: () => client.close(),
  };
}

/** See {@linkcode directFetch}. */
export interface DirectFetch {
  fetch(url: URL, init: RequestInit): Promise<Response>;
  close(): void;
}

/** Creates a folder and any missing parents, with `mode` (before the umask). */
export function makeDir(path: string, mode: number): void {
  if (deno) deno.mkdirSync(path, { recursive: true, mode });
  else nodeFs().mkdirSync(path, { recursive: true, mode });
}
