/** How a delegated task looks in a terminal, and the exit code it maps to. */
import { isInterrupted, isTerminal, partsText, stateLabel, type Task } from "../../a2a/mod.ts";
import type { Context } from "../../core/mod.ts";
import { type Color, paint, say } from "../output.ts";

/** Exit codes for a task's outcome (see `observal help exit-codes`). */
export const TASK_EXIT = { completed: 0, unsuccessful: 3, pending: 10 } as const;

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

export function stateText(ctx: Context, task: Task): string {
  const label = stateLabel(task.status.state);
  return paint(ctx, COLORS[label] ?? "bold", label);
}

/** Prints a task for people: headline, status line, artifacts, next step. */
export function printTask(ctx: Context, task: Task): void {
  const meta = task.metadata.observal;
  say(
    ctx,
    `${paint(ctx, "bold", meta.targetName ?? meta.target)}  ${stateText(ctx, task)}  ${task.id}`,
  );
  if (meta.harness) say(ctx, `  ran in ${meta.harness}`);
  const status = task.status.message ? partsText(task.status.message.parts) : "";
  if (status) say(ctx, status);
  for (const artifact of task.artifacts ?? []) {
    if (artifact.name === "changes.patch" && meta.patchPath) {
      say(ctx, `Proposed changes (not applied): ${meta.patchPath}`);
      say(ctx, `Apply with: git apply ${meta.patchPath}`);
      continue;
    }
    say(ctx);
    say(ctx, paint(ctx, "bold", artifact.name ?? artifact.artifactId));
    say(ctx, partsText(artifact.parts));
  }
  const s = task.status.state;
  if (isInterrupted(s)) {
    say(ctx);
    say(ctx, `The agent needs more input: observal delegate reply ${task.id} "<your answer>"`);
  } else if (!isTerminal(s)) {
    say(ctx);
    say(ctx, `Still running. Follow it with: observal delegate status ${task.id} --wait 60`);
  }
}

/** A live progress line on stderr while waiting (terminals only). */
export function progress(ctx: Context, started: number): { tick(task: Task): void; done(): void } {
  if (!ctx.io.isTTY) return { tick() {}, done() {} };
  const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
  let n = 0;
  let shown = false;
  return {
    tick(task) {
      const secs = Math.floor((ctx.clock.now().getTime() - started) / 1000);
      const name = task.metadata.observal.targetName ?? "agent";
      ctx.io.stderr.write(
        `\r\x1b[2K${frames[n++ % frames.length]} ${name}: ${
          stateLabel(task.status.state)
        } · ${secs}s`,
      );
      shown = true;
    },
    done() {
      if (shown) ctx.io.stderr.write("\r\x1b[2K");
    },
  };
}
