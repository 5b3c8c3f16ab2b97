/**
 * The observal-agents server of a delegated child, as its harness starts it inside the
 * sandbox: a relay of stdio to the broker's socket in its task folder, where the real
 * server runs outside (lib/runner/agents_broker.ts). The child thus delegates without
 * write access to the task store, the registry or the config.
 * @module
 */
import type { Readable, Writable } from "node:stream";
import { type Env, systemClock, type Writer } from "../core/mod.ts";
import { hostPlatform, nodeProcess } from "../core/system/mod.ts";
import { AGENTS_SOCKET_ENV, workspaceRootOf } from "../workspace/roots/mod.ts";

/**
 * How long the relay tries to reach the broker: a run here that hands its child over to a
 * worker leaves no one listening until the worker has started.
 */
export const RELAY_CONNECT_MS = 15_000;
const RETRY_MS = 100;

/**
 * Where a server started in `cwd` serves from: relayed to the broker's socket the
 * environment names (the child's, and the observal-agents entry written into its copy,
 * so a harness that filters its servers' environment still passes it on); refused inside
 * a delegated workspace that names none, whose OBSERVAL_HOME the sandbox hides; or, when
 * undefined, from this process.
 */
export function agentsRoute(
  env: Env,
  cwd: string,
  home: string,
): { relay: string } | { refuse: string } | undefined {
  if (hostPlatform() === "win32") return undefined;
  const named = env[AGENTS_SOCKET_ENV]?.trim();
  if (named) return { relay: named };
  const root = workspaceRootOf(cwd, home);
  if (!root) return undefined;
  return {
    refuse: `observal-agents: this folder is inside the delegated workspace ${root}, but ` +
      `${AGENTS_SOCKET_ENV} names no broker to relay to; this agent cannot delegate`,
  };
}

/** What {@linkcode relayStdio} connects. */
export interface RelayOptions {
  /** @default the process's stdin */
  stdin?: Readable;
  /** @default the process's stdout */
  stdout?: Writable;
  /** Where a broker that cannot be reached is said. */
  stderr: Writer;
  /** @default RELAY_CONNECT_MS */
  connectMs?: number;
}

/** What the relay keeps of stdin while it waits for the broker, before it stops reading. */
const EARLY_BYTES = 1024 * 1024;

/**
 * Relays stdin to the socket and the socket to stdout until either side ends. Resolves
 * true once the connection ended, false when the broker could not be reached (said on
 * `stderr`) or stdin ended first: its harness has gone, and nobody is left to relay for.
 * What comes on stdin meanwhile (the harness's `initialize`) is kept and sent first.
 */
export async function relayStdio(path: string, options: RelayOptions): Promise<boolean> {
  const { connect } = await import("node:net");
  const stdin = options.stdin ?? nodeProcess().stdin;
  const stdout = options.stdout ?? nodeProcess().stdout;
  const until = Date.now() + (options.connectMs ?? RELAY_CONNECT_MS);
  // Read while connecting, so that the end of stdin is seen: a harness that quits at once
  // must not leave its relay waiting out the whole window.
  const early: Uint8Array[] = [];
  let earlyBytes = 0;
  const gone = new AbortController();
  const keep = (chunk: Uint8Array) => {
    early.push(chunk);
    earlyBytes += chunk.byteLength;
    if (earlyBytes >= EARLY_BYTES) stdin.pause(); // the rest waits in the pipe
  };
  const end = () => gone.abort();
  stdin.on("data", keep);
  stdin.once("end", end);
  stdin.once("error", end);
  if (stdin.readableEnded) end();
  let socket: import("node:net").Socket | undefined;
  try {
    while (!gone.signal.aborted) {
      const attempt = connect(path);
      const failed = await new Promise<Error | undefined>((resolve) => {
        attempt.once("connect", () => resolve(undefined));
        attempt.once("error", resolve);
      });
      if (!failed) {
        socket = attempt;
        break;
      }
      attempt.destroy();
      const code = (failed as { code?: string }).code;
      const passing = code === "ENOENT" || code === "ECONNREFUSED";
      if (!passing || Date.now() >= until) {
        options.stderr.write(
          `observal-agents: cannot reach the delegation broker at ${path} (${failed.message}); ` +
            "this agent cannot delegate. The run that started it has ended, or its task " +
            "folder's path is too long for a socket (see the task's worker log)\n",
        );
        return false;
      }
      await systemClock.sleep(RETRY_MS, gone.signal).catch(() => {/* stdin ended */});
    }
  } finally {
    stdin.off("data", keep);
    stdin.off("end", end);
    stdin.off("error", end);
  }
  if (!socket) return false; // stdin ended before the broker could be reached
  const { promise, resolve } = Promise.withResolvers<boolean>();
  socket.once("close", () => resolve(true));
  socket.on("error", () => socket.destroy());
  for (const chunk of early) socket.write(chunk);
  if (stdin.readableEnded) socket.end();
  else {
    stdin.once("end", () => socket.end());
    stdin.once("error", () => socket.end());
    stdin.pipe(socket, { end: false });
  }
  socket.pipe(stdout);
  await promise;
  stdin.unpipe(socket);
  return true;
}
