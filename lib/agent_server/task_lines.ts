/**
 * The lines of messages that follow a served task's runs. A message naming a task that is
 * still running is the task's next turn: it is admitted when its request arrives (before
 * the SDK hands it to the executor, so a run that ends meanwhile still sees it), waits for
 * the run before it, and is handed the task when that run completes. A failed or canceled
 * run closes the line, and the messages waiting end with the task.
 * @module
 */
import type { ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { endWith } from "./_events.ts";

/** Most messages that may wait to follow a task's run. */
export const MAX_FOLLOW_UPS = 4;

/** A message admitted to follow a task's run. */
export interface Turn {
  messageId: string;
  /** Resolves true when the task is handed to it, false when the task ends first. */
  start: PromiseWithResolvers<boolean>;
  /** Set once its execution has come for it. */
  taken?: boolean;
}

/** One task's runs and the messages waiting to follow them. */
export interface Line {
  /** Runs of the task so far, the one going included. */
  runs: number;
  /** Messages admitted to follow, in order. */
  queue: Turn[];
  /** The turn the task was last handed to. */
  current?: Turn;
  /** Set when a client cancels the task: no further run starts. */
  canceled?: boolean;
  /** The task's event bus and first request, to end it if a turn handed the task never comes. */
  bus: ExecutionEventBus;
  request: RequestContext;
}

/** The lines of one served Agent's tasks, while a run goes or a message waits. */
export class TaskLines {
  readonly #lines = new Map<string, Line>();

  /** Opens the line of a task whose first run starts now. */
  open(request: RequestContext, bus: ExecutionEventBus): Line {
    const line: Line = { runs: 1, queue: [], bus, request };
    this.#lines.set(request.taskId, line);
    return line;
  }

  get(taskId: string): Line | undefined {
    return this.#lines.get(taskId);
  }

  /**
   * Admits a message to follow the task's runs: a function that withdraws it (its request
   * never reached the executor), or why it is refused.
   */
  admit(taskId: string, messageId: string): (() => void) | string {
    const line = this.#lines.get(taskId);
    if (!line) {
      return `Task ${taskId} is still being set up or has just ended: send the message again ` +
        "in a moment, or without taskId to start another run";
    }
    if (line.queue.length >= MAX_FOLLOW_UPS) {
      return `${line.queue.length} messages already wait to follow task ${taskId}: wait for ` +
        "its runs to end (GetTask, SubscribeToTask), then send again";
    }
    const turn: Turn = { messageId, start: Promise.withResolvers<boolean>() };
    line.queue.push(turn);
    return () => {
      if (turn.taken) return;
      const at = line.queue.indexOf(turn);
      if (at >= 0) return void line.queue.splice(at, 1);
      // Handed the task, which it will never run: on to the next, or the task ends.
      if (line.current !== turn || this.handOn(line)) return;
      this.close(line);
      endWith(line.bus, line.request, "TASK_STATE_COMPLETED", "The last run has ended.");
    };
  }

  /** The admitted turn of the message `messageId`, now taken by its execution. */
  take(line: Line, messageId: string): Turn | undefined {
    const turn = [line.current, ...line.queue].find((t) => t?.messageId === messageId);
    if (!turn || turn.taken) return undefined;
    turn.taken = true;
    return turn;
  }

  /** Hands the task to the next message in line; false when there is none. */
  handOn(line: Line): boolean {
    const next = line.queue.shift();
    if (!next) return false;
    line.current = next;
    next.start.resolve(true);
    return true;
  }

  /** Closes a task's line: the messages still waiting end with the task. */
  close(line: Line): void {
    for (const turn of line.queue.splice(0)) turn.start.resolve(false);
    const taskId = line.request.taskId;
    if (this.#lines.get(taskId) === line) this.#lines.delete(taskId);
  }

  /** Whether a message in the task's line has yet to come for its turn. */
  owes(taskId: string): boolean {
    const line = this.#lines.get(taskId);
    return line !== undefined &&
      (line.queue.length > 0 || (line.current !== undefined && !line.current.taken));
  }
}
