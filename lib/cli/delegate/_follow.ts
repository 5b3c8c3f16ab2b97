/** What the waiting delegate commands share: the --wait flag, the wait itself, the result. */
import process from "node:process";
import { isFinal, type Task } from "../../a2a/mod.ts";
import type { Context } from "../../core/mod.ts";
import type { Flag, Invocation } from "../command.ts";
import { note, printJson } from "../output.ts";
import { type Opened, withService } from "./_service.ts";
import { printTask, progress, TASK_EXIT, taskExitCode } from "./print.ts";

/** `--wait SECONDS`, with this command's default. */
export const waitFlag = (def: number): Record<"wait", Flag> => ({
  wait: {
    type: "string",
    short: "w",
    value: "SECONDS",
    description: "Wait this long for a result (0-1800)",
    default: String(def),
  },
});

/** Prints the task as JSON or for people, and maps its state to the exit code. */
export function finish(ctx: Context, inv: Invocation, task: Task): number {
  if (inv.json) printJson(ctx, task);
  else printTask(ctx, task);
  return taskExitCode(task);
}

/** What a waiting call gets: the service, when the command began, progress, Ctrl-C. */
export interface Waiting extends Opened {
  since: Date;
  onTick: (task: Task) => void;
  /** Aborts on Ctrl-C: the wait ends, the task keeps running. */
  signal: AbortSignal;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === "AbortError";
}

/**
 * Runs a call that waits on a task, with a live progress line on a terminal (never under
 * --json), then prints the task and returns its exit code. Ctrl-C stops the wait, not the
 * task (its worker runs in its own session): the task is printed as it stands, with the
 * commands to follow or cancel it, and the exit code says it is still running.
 */
export async function follow(
  inv: Invocation,
  ctx: Context,
  call: (w: Waiting) => Promise<Task>,
): Promise<number> {
  const since = ctx.clock.now();
  const p = progress(inv.json ? { ...ctx, io: { ...ctx.io, isTTY: false } } : ctx, since.getTime());
  const stop = new AbortController();
  const onSigint = () => stop.abort(new DOMException("Interrupted", "AbortError"));
  process.on("SIGINT", onSigint);
  let task: Task;
  try {
    task = await withService(
      ctx,
      (o) => call({ ...o, since, onTick: p.tick, signal: stop.signal }),
    );
  } catch (err) {
    if (!stop.signal.aborted || !isAbort(err)) throw err;
    p.done();
    note(ctx, "Interrupted before anything was started or sent.");
    return TASK_EXIT.interrupted;
  } finally {
    process.off("SIGINT", onSigint);
    p.done();
  }
  const code = finish(ctx, inv, task);
  if (stop.signal.aborted && !isFinal(task.status.state)) {
    note(ctx, `Stopped waiting. Task ${task.id} keeps running.`);
    note(ctx, `Follow it:  observal delegate status ${task.id} --wait 600`);
    note(ctx, `Cancel it:  observal delegate cancel ${task.id}`);
  }
  return code;
}

/** A harness name as its registry key; the harness facts load only when a name is given. */
export async function harnessKey(name: string): Promise<string> {
  return (await import("../../harness/facts/mod.ts")).normalizeHarness(name);
}
