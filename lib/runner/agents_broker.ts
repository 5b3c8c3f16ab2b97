/**
 * The sandboxed child's way to delegate further. Its harness starts `observal delegate
 * mcp` inside the sandbox, which cannot see OBSERVAL_HOME (the task store, the registry,
 * the config): there that command only relays its bytes to a socket in the task folder.
 * Here, outside, every connection gets an observal-agents server of its own, started
 * with the child's delegation variables in the child's copy, so its guards see the same
 * caller they saw when the server ran inside.
 *
 * The connection itself is handed to that server as its stdin and stdout: it does not
 * pass through this process, so a run here that hands its child over to a worker leaves
 * the child's servers connected, and the worker only listens again for new ones.
 * @module
 */
import type { ChildProcess } from "node:child_process";
import type { Server, Socket } from "node:net";
import type { Task } from "../a2a/tasks/mod.ts";
import { type Context, errorMessage, selfLauncher, VERSION, type Writer } from "../core/mod.ts";
import { hostPlatform, join, nodeChildProcess, nodeFs, removeFile } from "../core/system/mod.ts";
import {
  agentsSocketFolder,
  agentsSocketPath,
  makeAgentsSocketFolder,
} from "../workspace/roots/mod.ts";
import { childEnv } from "./child_env.ts";
import { logFile } from "./worker_process.ts";

/** Servers one child may have at a time: a harness starts one per session. */
export const MAX_AGENTS_SERVERS = 4;

/** What {@linkcode openAgentsBroker} needs. */
export interface AgentsBrokerInput {
  /**
   * The socket's path, in the task folder or the folder made for it: a fenced worker may
   * listen there only.
   */
  socket: string;
  /** The child's copy: each server runs there, as it would have inside. */
  cwd: string;
  /** The child's environment (its delegation variables): each server gets it. */
  env: Record<string, string>;
  /** The argv that starts an observal-agents server (`... delegate mcp --direct ...`). */
  command: readonly string[];
  /** The servers' stderr goes to this file (appended). */
  serverLog: string;
  /** Where a refused connection or a server that cannot start is said (the worker log). */
  log: Writer;
}

/** A listening broker. */
export interface AgentsBroker {
  /** The socket's path. */
  path: string;
  /**
   * Stops taking connections and removes the socket. Servers already started keep their
   * connection: each ends when its client (the relay inside the sandbox) goes away.
   */
  close(): void;
}

/** Listens on `input.socket` and starts a server for each connection, a few at a time. */
export async function openAgentsBroker(input: AgentsBrokerInput): Promise<AgentsBroker> {
  const path = input.socket;
  // A run that handed its child over left its socket behind.
  removeFile(path);
  const live = new Set<ChildProcess>();
  const { createServer } = await import("node:net");
  // Paused, so that nothing the client sends is read here before the server takes it.
  const server: Server = createServer({ pauseOnConnect: true }, (socket) => {
    try {
      if (live.size >= MAX_AGENTS_SERVERS) {
        input.log.write(
          `observal-agents: refused a connection: ${MAX_AGENTS_SERVERS} servers already run\n`,
        );
        return;
      }
      const child = startServer(input, socket);
      live.add(child);
      child.once("exit", () => live.delete(child));
    } catch (err) {
      input.log.write(`observal-agents: could not start a server: ${String(err)}\n`);
    } finally {
      // The server holds its own copy of the connection.
      socket.destroy();
    }
  });
  server.on("error", (err) => input.log.write(`observal-agents: ${err.message}\n`));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // The run waits for its child anyway; the socket alone must not keep the process.
  server.unref();
  return {
    path,
    close() {
      server.close();
      removeFile(path);
    },
  };
}

/**
 * The broker of a local task's child: its servers run this same observal, in the child's
 * copy, with the child's environment. Undefined when it cannot listen (said in the log):
 * the child's observal-agents server then says it cannot reach the broker.
 */
export async function childBroker(
  ctx: Context,
  task: Task,
  run: { ws: { root: string; path: string }; taskDir: string; sessionId?: string },
): Promise<AgentsBroker | undefined> {
  const { ws, taskDir } = run;
  if (hostPlatform() === "win32") return undefined;
  const socket = agentsSocketPath(taskDir);
  if (!socket) {
    ctx.io.stderr.write(
      `observal-agents: ${taskDir} is too long a path for a socket; the agent cannot ` +
        "delegate further (a shorter OBSERVAL_HOME fixes this)\n",
    );
    return undefined;
  }
  const harness = task.metadata.observal.harness;
  try {
    // A task folder too deep for a socket has the socket in a folder of its own.
    const own = agentsSocketFolder(taskDir);
    if (own) makeAgentsSocketFolder(own);
    return await openAgentsBroker({
      socket,
      cwd: ws.path,
      // The home as this run resolved it (a relative OBSERVAL_HOME would move with the
      // cwd), and the child's session, which its delegations' telemetry names.
      env: {
        ...childEnv(ctx.env, task, ws.path),
        OBSERVAL_HOME: ctx.home,
        ...(run.sessionId ? { OBSERVAL_SESSION_ID: run.sessionId } : {}),
      },
      command: [
        ...selfLauncher("self", { version: VERSION, home: ctx.home }),
        "delegate",
        "mcp",
        "--direct",
        ...(harness ? ["--harness", harness] : []),
      ],
      serverLog: join(taskDir, logFile("agents")),
      log: ctx.io.stderr,
    });
  } catch (err) {
    const why = errorMessage(err);
    ctx.io.stderr.write(`observal-agents: cannot listen on ${socket}: ${why}\n`);
    return undefined;
  }
}

/** One server, its stdin and stdout the connection, in its own process group. */
function startServer(input: AgentsBrokerInput, socket: Socket): ChildProcess {
  const fs = nodeFs();
  const stderr = fs.openSync(input.serverLog, "a", 0o600);
  try {
    const [program, ...args] = input.command;
    const child = nodeChildProcess().spawn(program, args, {
      cwd: input.cwd,
      env: input.env,
      // Its own group: a Ctrl-C meant for a run here, or the end of the harness's group,
      // does not cut the child's delegations short; the end of the connection does.
      detached: true,
      stdio: [socket, socket, stderr],
    });
    child.on("error", (err) => input.log.write(`observal-agents: ${err.message}\n`));
    child.unref();
    return child;
  } finally {
    fs.closeSync(stderr);
  }
}
