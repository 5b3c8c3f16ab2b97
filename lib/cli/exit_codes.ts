/** `observal help exit-codes`: what each exit code means. */
import { CATEGORIES } from "../core/mod.ts";
import type { Command } from "./command.ts";
import { TASK_EXIT } from "./delegate/task_exit.ts";
import { say } from "./output.ts";

/** The `help exit-codes` topic. */
export const exitCodesCommand: Command = {
  name: "exit-codes",
  summary: "What observal's exit codes mean",
  run(_inv, ctx) {
    const lines = new Map<number, string[]>([
      [0, ["success (also: a search or list with no results; a delegated task completed)"]],
    ]);
    const add = (code: number, text: string) => lines.set(code, [...lines.get(code) ?? [], text]);
    for (const [category, { exit }] of Object.entries(CATEGORIES)) {
      // The reply-refused code gets its own sentence below.
      if (exit !== TASK_EXIT.replyRefused) add(exit, category.replace(/_/g, " "));
    }
    add(TASK_EXIT.unsuccessful, "a delegated task failed, was rejected or was canceled");
    add(
      TASK_EXIT.pending,
      "a delegated task is still running or waits for input (also when Ctrl-C stopped the wait)",
    );
    add(
      TASK_EXIT.replyRefused,
      "a reply was refused: another reply or a cancel got there first, and nothing was sent",
    );
    add(
      TASK_EXIT.nothingToCancel,
      "nothing to cancel: the task had already completed, failed or been rejected " +
        "(a task already canceled exits 0)",
    );
    add(
      TASK_EXIT.noPatch,
      "no patch: the task has not completed, or returned no changes",
    );
    add(
      TASK_EXIT.patchRefused,
      "the patch does not apply to the repository (each file is named); nothing was changed",
    );
    add(TASK_EXIT.alreadyApplied, "the task's patch was applied already; nothing was changed");
    add(TASK_EXIT.conflicts, "delegate apply --3way left conflicts (the files are named)");
    add(
      TASK_EXIT.interrupted,
      "interrupted (Ctrl-C) before any task was started, or while a key was typed",
    );
    for (const [code, texts] of [...lines].sort((a, b) => a[0] - b[0])) {
      say(ctx, `${String(code).padEnd(3)} ${texts.join(", ")}`);
    }
  },
};
