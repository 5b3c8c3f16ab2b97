/** How a delegated task looks in a terminal, and the exit code it maps to. */
import {
  applyCommand,
  isInterrupted,
  isTerminal,
  type Part,
  stateLabel,
  type Task,
} from "../../a2a/mod.ts";
import { CATEGORIES, type Context } from "../../core/mod.ts";
import { type Color, paint, progressLine, say, type Styled } from "../output.ts";

/** Exit codes for a task's outcome and for a wait that ended (see `observal help exit-codes`). */
export const TASK_EXIT = {
  completed: 0,
  unsuccessful: 3,
  pending: 10,
  /**
   * Another reply or a cancel got there first; nothing was sent (the delegation service's
   * `REPLY_REFUSED_EXIT`, read from core so printing a task does not load the service).
   */
  replyRefused: CATEGORIES.superseded.exit,
  /** Ctrl-C before any task was started. */
  interrupted: 130,
} as const;

/** The exit code for a task as it now stands. */
export function taskExitCode(task: Task): number {
  const s = task.status.state;
  if (s === "TASK_STATE_COMPLETED") return TASK_EXIT.completed;
  if (isTerminal(s)) return TASK_EXIT.unsuccessful;
  return TASK_EXIT.pending;
}

const COLORS: Record<string, Color> = {
  completed: "green",
  working: "yellow",
  submitted: "yellow",
  "input-required": "cyan",
  "auth-required": "cyan",
  failed: "red",
  rejected: "red",
  canceled: "dim",
};

/** The task's state for people (`input-required`), in its colour. */
export function stateText(task: Task): Styled {
  const label = stateLabel(task.status.state);
  return paint(COLORS[label] ?? "bold", label);
}

/** Most lines of one data part shown for people; `--json` always has all of it. */
export const DATA_PREVIEW_LINES = 40;
/** Most characters of one data part shown for people. */
export const DATA_PREVIEW_CHARS = 4000;

/**
 * A data part as indented, pretty JSON, cut at {@linkcode DATA_PREVIEW_LINES} lines or
 * {@linkcode DATA_PREVIEW_CHARS} characters with a note saying how much was left out.
 */
export function dataPreview(data: unknown): string[] {
  const lines = (JSON.stringify(data, null, 2) ?? String(data)).split("\n");
  const shown: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (shown.length >= DATA_PREVIEW_LINES || chars >= DATA_PREVIEW_CHARS) break;
    const room = DATA_PREVIEW_CHARS - chars;
    shown.push(line.length > room ? `${line.slice(0, room)}…` : line);
    chars += line.length;
  }
  const left = lines.length - shown.length;
  const cut = left > 0 || chars > DATA_PREVIEW_CHARS;
  return [
    ...shown.map((l) => `  ${l}`),
    ...(cut ? [`  … (${left > 0 ? `${left} more lines; ` : ""}--json shows all of it)`] : []),
  ];
}

/** The lines people see for a message's or artifact's parts: text, data, files. */
export function partLines(parts: readonly Part[]): string[] {
  return parts.flatMap((p) => {
    if (typeof p.text === "string") return p.text === "" ? [] : p.text.split(/\r?\n/);
    if (p.data !== undefined) return ["data:", ...dataPreview(p.data)];
    if (typeof p.url === "string") return [`[file] ${p.url}`];
    if (typeof p.raw === "string") return [`[file] ${p.filename ?? "(inline bytes)"}`];
    return [];
  });
}

/** Prints a task for people: headline, status message, artifacts, next step. */
export function printTask(ctx: Context, task: Task): void {
  const meta = task.metadata.observal;
  say(ctx, paint("bold", meta.targetName ?? meta.target), "  ", stateText(task), "  ", task.id);
  if (meta.harness) say(ctx, `  ran in ${meta.harness}`);
  for (const line of partLines(task.status.message?.parts ?? [])) say(ctx, line);
  for (const artifact of task.artifacts ?? []) {
    if (artifact.name === "changes.patch" && meta.patchPath) {
      say(ctx, `Proposed changes (not applied): ${meta.patchPath}`);
      say(ctx, `Apply with: ${applyCommand(meta)}`);
      continue;
    }
    say(ctx);
    say(ctx, paint("bold", artifact.name ?? artifact.artifactId));
    for (const line of partLines(artifact.parts)) say(ctx, line);
  }
  const s = task.status.state;
  if (isInterrupted(s)) {
    say(ctx);
    say(ctx, `The agent needs more input: observal delegate reply ${task.id} "<your answer>"`);
    if (task.status.message?.parts.some((p) => p.data !== undefined)) {
      say(ctx, `To answer with data: observal delegate reply ${task.id} --data '<JSON object>'`);
    }
  } else if (!isTerminal(s)) {
    say(ctx);
    say(ctx, `Still running. Follow it with: observal delegate status ${task.id} --wait 60`);
  }
}

/** A live progress line on stderr while waiting (terminals only). */
export function progress(ctx: Context, started: number): { tick(task: Task): void; done(): void } {
  const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
  const line = progressLine(ctx);
  let n = 0;
  return {
    tick(task) {
      const secs = Math.floor((ctx.clock.now().getTime() - started) / 1000);
      const name = task.metadata.observal.targetName ?? "agent";
      line.draw(
        `${frames[n++ % frames.length]} `,
        name,
        `: ${stateLabel(task.status.state)} · ${secs}s`,
      );
    },
    done: () => line.clear(),
  };
}
