/**
 * The resident runner: a process that keeps observal's code loaded and compiled, and runs
 * the `delegate run` commands of callers identical to the one that started it (see
 * identity.ts), one at a time, each with a Context built from its request. A command
 * costs a cold process about 230 ms more than a warm one (loading and first running our
 * code); here it is paid once.
 *
 * It ends after `idleMs` without a command, after `maxRuns` commands, on SIGTERM or SIGINT
 * (a command it runs then hands its task to a worker), or when a person quits a command
 * outright (a second Ctrl-C ends the process that ran it, as it would the caller's). What a
 * command's task needs to outlive it (a worker, on Ctrl-C) is started as the command would
 * start it.
 * @module
 */
import { type Context, createContext, type Interrupts, ObservalError } from "../core/mod.ts";
import {
  connectLocal,
  exitNow,
  fileLocks,
  hostPid,
  listenLocal,
  type LocalConn,
  makeDir,
  onInterrupt,
  processFacts,
  removeFile,
  startTimer,
} from "../core/system/mod.ts";
import { frameBytes, frameLines, type ResidentFrame } from "./_frames.ts";
import { MAX_REQUEST, type ResidentRequest, ResidentRequestSchema } from "./_request.ts";
import { isPrivateFolder, residentCommand, residentPlace } from "./identity.ts";
import { interruptHub } from "./_interrupt_hub.ts";

/** How long a caller may take to send its request once connected. */
const REQUEST_MS = 5000;

/** How a runner runs. */
export interface ResidentOptions {
  /** The place name its starter computed: the runner ends unless its own is the same. */
  name: string;
  /** Runs a command (the CLI). */
  run(argv: string[], ctx: Context): Promise<number>;
  /** Loads what commands will need, before the first one comes. */
  preload(): Promise<unknown>;
  idleMs: number;
  maxRuns: number;
}

/**
 * Serves commands until the runner ends (see the module's comment); resolves to its exit
 * code. `ctx` is the runner's own: its environment is its starter's.
 */
export async function serveResident(ctx: Context, options: ResidentOptions): Promise<number> {
  const place = await residentPlace(ctx.env);
  const own = processFacts(hostPid());
  if (place.name !== options.name || !own) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      own
        ? "this process differs from the one that started it, so no caller could use it"
        : "this process cannot read its own facts in /proc, which each caller's must match",
    );
  }
  makeDir(place.dir, 0o700);
  if (!isPrivateFolder(place.dir)) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `${place.dir} is not a folder only this user may enter`,
    );
  }
  const locks = fileLocks();
  const lock = locks ? locks.take(place.lock) : await unanswered(place.socket);
  // Another runner holds it: that one serves these callers.
  if (!lock) return 0;
  removeFile(place.socket);
  const listener = listenLocal(place.socket);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    stopIdle();
    listener.close();
    removeFile(place.socket);
    // Its log says why a runner ended early; this one ends as it should.
    removeFile(place.log);
    lock.release();
  };
  let stopIdle = startTimer(options.idleMs, end);
  /** The command running now, and how to interrupt it. */
  let current: { done: Promise<boolean>; interrupt(): void } | undefined;
  let runs = 0;
  // Asked to stop (SIGTERM, SIGINT): take no more, and interrupt the command running, which
  // then hands its task to a worker as its caller's Ctrl-C would.
  const offSignals = onInterrupt(() => {
    end();
    current?.interrupt();
  });
  try {
    await options.preload();
    for await (const conn of listener) {
      if (current) {
        void refuse(conn, "busy with another command");
        continue;
      }
      stopIdle();
      const one = serveOne(conn, { ...options, facts: own.facts }, end);
      current = one;
      // A command that broke the runner's own code counts as one, and the runner goes on.
      one.done.catch(() => true).then((taken) => {
        current = undefined;
        if (taken) runs++;
        if (runs >= options.maxRuns) end();
        else if (!ended) stopIdle = startTimer(options.idleMs, end);
      });
    }
    await current?.done.catch(() => {});
  } finally {
    end();
    offSignals();
  }
  return 0;
}

/**
 * Whether the caller's environment is the one this runner was started for, and its
 * process (the pid it gives, started when it says) has the same facts as this one.
 */
async function sameCaller(
  request: ResidentRequest,
  options: { name: string; facts: string },
): Promise<boolean> {
  if ((await residentPlace(request.env)).name !== options.name) return false;
  const caller = processFacts(request.pid);
  // A pid from another PID namespace names some other process here: its start gives it away.
  return caller?.facts === options.facts &&
    Math.abs(caller.startedAt - request.startedAt) < 3000;
}

/**
 * Under Node, which has no file locks: the socket is free when nothing answers on it. Two
 * runners started at once may both find it so; the one whose socket the other replaced
 * then reaches no caller, and ends when its idle time is up.
 */
async function unanswered(socket: string): Promise<{ release(): void } | undefined> {
  try {
    (await connectLocal(socket)).close();
    return undefined;
  } catch {
    return { release() {} };
  }
}

async function refuse(conn: LocalConn, why: string): Promise<void> {
  try {
    const writer = conn.writable.getWriter();
    await writer.write(frameBytes({ busy: why } satisfies ResidentFrame));
    await writer.close();
  } catch { /* it went away */ }
}

/** Runs one caller's command, if it takes it (`done` says whether); `end` ends the runner. */
function serveOne(
  conn: LocalConn,
  options: ResidentOptions & { facts: string },
  end: () => void,
): { done: Promise<boolean>; interrupt(): void } {
  const hub = interruptHub();
  return { done: runOne(conn, options, end, hub), interrupt: hub.interrupt };
}

async function runOne(
  conn: LocalConn,
  options: ResidentOptions & { facts: string },
  end: () => void,
  hub: ReturnType<typeof interruptHub>,
): Promise<boolean> {
  const lines = frameLines(conn.readable, MAX_REQUEST);
  let request: ResidentRequest;
  // A caller sends its request at once: one that does not would hold the runner.
  const late = startTimer(REQUEST_MS, () => conn.close());
  try {
    const first = await lines.next();
    if (first.done) {
      conn.close();
      return false;
    }
    request = ResidentRequestSchema.parse(JSON.parse(first.value));
  } catch {
    await refuse(conn, "a request it could not read");
    return false;
  } finally {
    late();
  }
  // Only what a caller would have sent it: anything else runs where it was asked.
  if (!residentCommand(request.argv)) {
    await refuse(conn, "not a command it runs");
    return false;
  }
  if (!(await sameCaller(request, options))) {
    await refuse(conn, "a caller unlike the one that started it");
    return false;
  }
  const out = frameWriter(conn);
  let quit = false;
  const interrupts: Interrupts = {
    on: hub.on,
    quit(code) {
      // As in the caller's own process: it ends now, and what it was running with it.
      quit = true;
      void out.close({ exit: code }).finally(() => {
        end();
        exitNow(code);
      });
    },
  };
  // Ctrl-C from the caller; its going away (its terminal closed, it was killed) counts as
  // one, as a closing terminal does for a command that runs in it.
  void (async () => {
    try {
      for await (const line of lines) {
        if (line.length < 100 && JSON.parse(line)?.interrupt === true) hub.interrupt();
      }
    } catch { /* a broken connection: the caller is gone */ }
    if (!out.finished) hub.interrupt();
  })();
  out.send({ taken: true });
  const ctx = createContext({
    env: request.env,
    cwd: request.cwd,
    startedAt: new Date(request.startedAt),
    io: {
      stdout: { write: (text) => out.send({ out: text }) },
      stderr: { write: (text) => out.send({ err: text }) },
      isTTY: request.isTTY,
      stdin: undefined,
    },
    interrupts,
  });
  let code: number;
  try {
    code = await options.run(request.argv, ctx);
  } catch (err) {
    ctx.io.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    code = 1;
  }
  if (!quit) await out.close({ exit: code });
  return true;
}

/** Frames to the caller, in order; once closed, or the caller gone, the rest is dropped. */
function frameWriter(conn: LocalConn): {
  send(frame: ResidentFrame): void;
  close(last: ResidentFrame): Promise<void>;
  /** The command ended (not: the caller went away). */
  readonly finished: boolean;
} {
  const writer = conn.writable.getWriter();
  let chain = Promise.resolve();
  let closed = false;
  let finished = false;
  const send = (frame: ResidentFrame) => {
    if (closed) return;
    const bytes = frameBytes(frame);
    chain = chain.then(() => writer.write(bytes)).catch(() => {
      closed = true;
    });
  };
  return {
    send,
    async close(last) {
      send(last);
      closed = true;
      finished = true;
      await chain;
      try {
        await writer.close();
      } catch { /* the caller went away */ }
      try {
        conn.close();
      } catch { /* closed already */ }
    },
    get finished() {
      return finished;
    },
  };
}
