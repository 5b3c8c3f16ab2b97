/** How a delegated task looks in a terminal: its state in words, its parts, its next step. */
import {
  isFinal,
  isInterrupted,
  isTerminal,
  type Part,
  stateLabel,
  type Task,
} from "../../a2a/tasks/mod.ts";
import type { Context } from "../../core/mod.ts";
import { stateWords } from "../../store/mod.ts";
import { type Color, note, paint, progressLine, say, type Styled } from "../output.ts";

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

/** The task's state for people (`input required`), in its colour. */
export function stateText(task: Task): Styled {
  const state = task.status.state;
  return paint(COLORS[stateLabel(state)] ?? "bold", stateWords(state));
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

/** `retrying until 08:12:03 UTC` while the agent is being retried, else undefined. */
function retrying(task: Task): string | undefined {
  const until = task.metadata.observal.retrying?.until;
  if (!until || isFinal(task.status.state)) return undefined;
  return `retrying until ${until.replace(/^.*T/, "").replace("Z", " UTC")}`;
}

/** Prints a task for people: headline, status message, artifacts, next step. */
export function printTask(ctx: Context, task: Task): void {
  const meta = task.metadata.observal;
  say(ctx, paint("bold", meta.targetName ?? meta.target), "  ", stateText(task), "  ", task.id);
  if (meta.harness) say(ctx, `  ran in ${meta.harness}`);
  for (const line of partLines(task.status.message?.parts ?? [])) say(ctx, line);
  const retry = retrying(task);
  if (retry) say(ctx, `The agent is not answering (${meta.retrying?.reason}); ${retry}.`);
  for (const artifact of task.artifacts ?? []) {
    if (artifact.name === "changes.patch" && meta.patchPath) {
      printPatchHints(ctx, task, meta.patchPath);
      continue;
    }
    say(ctx);
    say(ctx, paint("bold", artifact.name ?? artifact.artifactId));
    for (const line of partLines(artifact.parts)) say(ctx, line);
  }
  const s = task.status.state;
  if (s === "TASK_STATE_FAILED") {
    // The log the failure names, unless its status line names it already.
    const log = typeof meta.logPath === "string" ? meta.logPath : undefined;
    const said = (task.status.message?.parts ?? []).some((p) => log && p.text?.includes(log));
    say(ctx);
    if (log && !said) say(ctx, `Log: ${log}`);
    say(ctx, `Show its logs: observal delegate logs ${task.id}`);
  } else if (isInterrupted(s)) {
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

/** Where the proposed changes are, and either the commands for them or when they went in. */
function printPatchHints(ctx: Context, task: Task, patchPath: string): void {
  const applied = task.metadata.observal.applied;
  if (applied) {
    const onto = applied.head ? ` onto ${applied.head.slice(0, 12)}` : "";
    const conflicts = applied.conflicts?.length
      ? `, with conflicts in ${applied.conflicts.join(", ")}`
      : "";
    say(ctx, `Proposed changes: ${patchPath}`);
    say(ctx, `Applied to ${task.metadata.observal.repository} at ${applied.at}${onto}${conflicts}`);
    return;
  }
  say(ctx, `Proposed changes (not applied): ${patchPath}`);
  say(ctx, `Review with: observal delegate diff ${task.id}`);
  say(ctx, `Apply with: observal delegate apply ${task.id}`);
}

/** How often a wait in a pipe says it is still waiting. */
export const PROGRESS_EVERY_MS = 5000;

/**
 * How a wait shows progress on stderr: `live`, one line redrawn in place (a terminal);
 * `lines`, a plain line every {@linkcode PROGRESS_EVERY_MS} (a pipe or a log file, where a
 * redrawn line would be noise); `off`, nothing.
 */
export type ProgressMode = "live" | "lines" | "off";

/**
 * Progress while waiting on a task, drawn on each tick of the wait (no timer of its own,
 * so nothing outlives the wait).
 *
 * @param ctx where to write, and the clock
 * @param started when the command began (ms since the epoch)
 * @param mode how to show it
 */
export function progress(
  ctx: Context,
  started: number,
  mode: ProgressMode = "live",
): { tick(task: Task): void; done(): void } {
  const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
  const line = progressLine(ctx);
  let n = 0;
  let said = 0;
  return {
    tick(task) {
      const ms = ctx.clock.now().getTime() - started;
      const secs = Math.floor(ms / 1000);
      const name = task.metadata.observal.targetName ?? "the agent";
      const retry = retrying(task);
      const state = stateWords(task.status.state) + (retry ? `, ${retry}` : "");
      if (mode === "live") {
        line.draw(`${frames[n++ % frames.length]} `, name, `: ${state} · ${secs}s`);
      } else if (mode === "lines" && Math.floor(ms / PROGRESS_EVERY_MS) > said) {
        said = Math.floor(ms / PROGRESS_EVERY_MS);
        note(ctx, `still waiting for `, name, ` (${state}, ${secs} s)`);
      }
    },
    done: () => line.clear(),
  };
}
