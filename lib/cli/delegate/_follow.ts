/** What the waiting delegate commands share: the --wait flag, the wait itself, the result. */
import { isFinal, type Task } from "../../a2a/tasks/mod.ts";
import { startTimer } from "../../core/system/mod.ts";
import type { Context } from "../../core/mod.ts";
import type { Quit } from "../../delegation/mod.ts";
import type { Flag, Invocation } from "../command.ts";
import { note, printJson } from "../output.ts";
import { type Opened, withService } from "./_service.ts";
import { printTask, progress, type ProgressMode } from "./print.ts";
import { TASK_EXIT, taskExitCode } from "./task_exit.ts";

/** `--quiet`: no progress while a command waits. */
export const quietFlag: Record<"quiet", Flag> = {
  quiet: {
    type: "boolean",
    short: "q",
    description: "Print no progress while waiting (in a pipe, a line every 5 s on stderr)",
  },
};

/** `--wait SECONDS`, with this command's default, and `--quiet`. */
export const waitFlags = (def: number): Record<"wait" | "quiet", Flag> => ({
  wait: {
    type: "string",
    short: "w",
    value: "SECONDS",
    description: "Wait this long for a result (0-1800)",
    default: String(def),
  },
  ...quietFlag,
});

/** What `--json` prints for a task, said once for every command that prints one. */
export const TASK_JSON_NOTE =
  `With --json the task is printed whole, as an A2A Task: its id is "id" and its
state "status.state" (TASK_STATE_COMPLETED, ...); observal's own fields are under
"metadata.observal" (a failed task's log is "logPath").`;

/**
 * How a wait shows progress. Keyed on stdout, as tables and colour are: when a person
 * watches the output, one line is redrawn in place on stderr; when stdout goes to a pipe or
 * a file (scripts, CI, `| jq`), the caller is a program or a log, where redrawn lines are
 * noise and silence looks like a hang, so a plain line goes to stderr every 5 s. Under
 * --json on a terminal, nothing (as before); --quiet, nothing anywhere.
 */
function progressMode(inv: Invocation, ctx: Context): ProgressMode {
  if (inv.flags.quiet === true) return "off";
  if (!ctx.io.isTTY) return "lines";
  return inv.json ? "off" : "live";
}

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
  /** A second Ctrl-C, just before the process quits: the person's stop. */
  quit: Quit;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === "AbortError";
}

/**
 * Runs a call that waits on a task, with progress on stderr (see `progressMode`), then
 * prints the task and returns its exit code (`report` does both; by default
 * {@linkcode finish}). Ctrl-C stops the wait, not the task (its worker runs in its own
 * session): the task is printed as it stands, with the commands to follow or cancel it,
 * and the exit code says it is still running.
 */
export async function follow(
  inv: Invocation,
  ctx: Context,
  call: (w: Waiting) => Promise<Task>,
  report: (task: Task) => number = (task) => finish(ctx, inv, task),
): Promise<number> {
  const since = ctx.startedAt;
  const p = progress(ctx, since.getTime(), progressMode(inv, ctx));
  const stop = new AbortController();
  const quitting = new AbortController();
  const quit: Quit = { signal: quitting.signal, stopped: [] };
  /** The task the wait last saw, if it started one. */
  let seen: Task | undefined;
  const onTick = (task: Task) => {
    seen = task;
    p.tick(task);
  };
  // A task `run` runs itself goes to a worker once what was just sent is answered (or a
  // moment has passed): say so if it takes a second, and let a second Ctrl-C quit at once.
  let slowStop = () => {};
  const onSigint = () => {
    if (stop.signal.aborted) {
      p.done();
      // Listeners run now: a task run here is recorded as stopped by the user.
      quitting.abort();
      quitNote(ctx, quit.stopped, seen);
      return ctx.interrupts.quit(TASK_EXIT.interrupted);
    }
    stop.abort(new DOMException("Interrupted", "AbortError"));
    slowStop = startTimer(1000, () => {
      p.done();
      note(
        ctx,
        "Handing the task to a worker once the agent answers what was sent; " +
          "Ctrl-C again quits now (the task is then stopped).",
      );
    });
  };
  const offSigint = ctx.interrupts.on(onSigint);
  try {
    // Under Deno, a signal that comes before the event loop has turned once since the
    // listener was added takes its default action (the process dies, with no hints and no
    // handover). Turn it here, before anything is started: a Ctrl-C then either ends the
    // command while nothing exists yet, or is handled.
    await new Promise((resolve) => setTimeout(resolve, 0));
    let task: Task;
    try {
      task = await withService(
        ctx,
        (o) => call({ ...o, since, onTick, signal: stop.signal, quit }),
      );
    } catch (err) {
      if (!stop.signal.aborted || !isAbort(err)) throw err;
      p.done();
      note(ctx, "Interrupted before anything was started or sent.");
      return TASK_EXIT.interrupted;
    } finally {
      slowStop();
      p.done();
    }
    const code = report(task);
    if (stop.signal.aborted && !isFinal(task.status.state)) {
      note(ctx, `Stopped waiting. Task ${task.id} keeps running.`);
      followHints(ctx, task.id);
    }
    return code;
  } finally {
    // Last: once no listener is left, a Ctrl-C takes its default action, and a second one
    // just after the handover would kill the process before it says where the task went.
    offSigint();
  }
}

function followHints(ctx: Context, id: string): void {
  note(ctx, `Follow it:  observal delegate status ${id} --wait 600`);
  note(ctx, `Cancel it:  observal delegate cancel ${id}`);
}

/**
 * What a second Ctrl-C leaves: the tasks it stopped, or the task that goes on in its
 * worker (it was handed over before), or nothing this command knows of.
 */
export function quitNote(ctx: Context, stopped: string[], seen: Task | undefined): void {
  if (stopped.length) {
    note(ctx, `Interrupted again: quitting now. Stopped task ${stopped.join(", ")}.`);
  } else if (seen && !isFinal(seen.status.state)) {
    note(ctx, `Interrupted again: quitting now. Task ${seen.id} keeps running in its worker.`);
    followHints(ctx, seen.id);
  } else note(ctx, "Interrupted again: quitting now.");
}

/** A harness name as its registry key; the harness facts load only when a name is given. */
export async function harnessKey(name: string): Promise<string> {
  return (await import("../../harness/facts/mod.ts")).normalizeHarness(name);
}
