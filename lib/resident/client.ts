/**
 * A command's side of the resident runner: find the runner for a caller like this one,
 * hand it the command and relay what it writes, Ctrl-C and the exit code. When there is
 * none (or it is busy, or refuses), the command runs here as always, and a first
 * `delegate run` starts one for the next.
 *
 * It loads before the CLI, so it stays small and checks the runner's frames by hand.
 * @module
 */
import {
  connectLocal,
  definedEnv,
  hostCwd,
  hostEnv,
  hostPid,
  hostStream,
  onInterrupt,
  pathExists,
  runByHand,
  stdoutIsTerminal,
} from "../core/system/mod.ts";
import { frameBytes, frameLines, type ResidentRequest } from "./_frames.ts";
import {
  isPrivateFolder,
  residentCommand,
  type ResidentPlace,
  residentPlace,
  residentRefusal,
  runsFromSource,
} from "./identity.ts";

/** What came of asking: the command's exit code, or run it here (then maybe start one). */
export type ResidentAttempt =
  | { code: number }
  | { code?: undefined; startAfter?: ResidentPlace };

/** The most a runner's line may hold: a task printed whole, with its history. */
const MAX_FRAME = 64 * 1024 * 1024;

/** Runs `argv` in this caller's resident runner, if it has one that takes it. */
export async function throughResident(argv: readonly string[]): Promise<ResidentAttempt> {
  if (!residentCommand(argv)) return {};
  const env = hostEnv();
  if (residentRefusal(env, { terminal: runByHand(), fromSource: runsFromSource() })) return {};
  const place = await residentPlace(env);
  if (!pathExists(place.dir)) return { startAfter: place };
  // Only a folder of this user's, closed to everyone else, may hold the socket.
  if (!isPrivateFolder(place.dir)) return {};
  let conn;
  try {
    conn = await connectLocal(place.socket);
  } catch {
    // None listens there (no socket, or a dead runner's): start one once this is done.
    return { startAfter: place };
  }
  const request: ResidentRequest = {
    argv: [...argv],
    cwd: hostCwd(),
    env: definedEnv(env),
    isTTY: stdoutIsTerminal(),
    startedAt: performance.timeOrigin,
    pid: hostPid(),
  };
  return await relay(conn, request);
}

async function relay(
  conn: Awaited<ReturnType<typeof connectLocal>>,
  request: ResidentRequest,
): Promise<ResidentAttempt> {
  const writer = conn.writable.getWriter();
  let started = false;
  const off = onInterrupt(() => {
    writer.write(frameBytes({ interrupt: true })).catch(() => {});
  });
  try {
    await writer.write(frameBytes(request));
    const stdout = hostStream("stdout");
    const stderr = hostStream("stderr");
    for await (const line of frameLines(conn.readable, MAX_FRAME)) {
      const frame = JSON.parse(line) as Record<string, unknown>;
      if (typeof frame.out === "string") stdout.write(frame.out);
      else if (typeof frame.err === "string") stderr.write(frame.err);
      else if (typeof frame.exit === "number" && Number.isInteger(frame.exit)) {
        return { code: frame.exit };
      } else if (frame.taken === true && !started) started = true;
      else if (typeof frame.busy === "string" && !started) return {};
      else throw new Error(`an unknown frame: ${line.slice(0, 80)}`);
    }
    throw new Error("it closed the connection");
  } catch (err) {
    // Once taken, the command has begun there: running it again here could start a
    // second task. Say what happened, as a command that failed.
    if (!started) return {};
    hostStream("stderr").write(
      `error: the resident runner stopped before the command ended (${
        err instanceof Error ? err.message : String(err)
      }). \`observal delegate list\` shows its task, which the next delegate command ` +
        "settles if nothing runs it. OBSERVAL_RESIDENT=off runs commands without a runner.\n",
    );
    return { code: 1 };
  } finally {
    off();
    try {
      conn.close();
    } catch { /* closed already */ }
  }
}
