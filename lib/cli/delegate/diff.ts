/** `observal delegate diff`: the patch a task returned, whole or summarised. */
import type { Context } from "../../core/mod.ts";
import { dirname, readText } from "../../core/system/mod.ts";
import { openTaskStore } from "../../store/mod.ts";
import { patchPaths, patchStat } from "../../workspace/mod.ts";
import type { Command } from "../command.ts";
import { page } from "../pager.ts";
import {
  type Color,
  paint,
  type Piece,
  printBlock,
  printJson,
  printVerbatim,
  renderLine,
  say,
} from "../output.ts";
import { TASK_ID_NOTE, taskPatch } from "./_patch.ts";
import { TASK_EXIT } from "./task_exit.ts";

/** `observal delegate diff TASK_ID`. */
export const diffCommand: Command = {
  name: "diff",
  summary: "Show the changes a delegated task returned",
  args: ["task-id"],
  flags: {
    stat: { type: "boolean", description: "Summarise: each file with its lines added and removed" },
    "name-only": { type: "boolean", description: "Only the paths of the changed files" },
    "no-pager": { type: "boolean", description: "Print straight to the terminal" },
  },
  details: `${TASK_ID_NOTE}
Prints the task's patch (changes.patch in its folder), coloured and through the pager
(GIT_PAGER, PAGER, else less) on a terminal, as it is in a pipe: \`observal delegate diff ID |
git apply\` works. Apply it with \`observal delegate apply TASK-ID\`.
Exit codes: 0 shown, ${TASK_EXIT.noPatch} the task has no patch (not completed, or it changed nothing).
With --json: {"id", "patchPath", "files": [...], "patch"}.`,
  async run(inv, ctx) {
    const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
    let found;
    try {
      found = taskPatch(store, inv.args["task-id"]);
    } finally {
      store.close();
    }
    const { task, patchPath } = found;
    const git = { env: ctx.env };
    const where = dirname(patchPath);
    if (inv.json) {
      const files = await patchPaths(patchPath, where, git);
      return printJson(ctx, { id: task.id, patchPath, files, patch: readText(patchPath) });
    }
    if (inv.flags.stat === true) return printBlock(ctx, await patchStat(patchPath, where, git));
    if (inv.flags["name-only"] === true) {
      for (const path of await patchPaths(patchPath, where, git)) say(ctx, path);
      return;
    }
    const patch = readText(patchPath);
    if (!ctx.io.isTTY) return printVerbatim(ctx, patch);
    const shown = patch.replace(/\n$/, "").split("\n").map((line) =>
      renderLine(ctx, ...styled(line))
    )
      .join("");
    if (inv.flags["no-pager"] === true || !(await page(ctx, shown))) printColored(ctx, patch);
  },
};

/** Each line printed with its colour, for a terminal without a pager. */
function printColored(ctx: Context, patch: string): void {
  for (const line of patch.replace(/\n$/, "").split("\n")) say(ctx, ...styled(line));
}

/** A patch line in git's colours: headers bold, hunk heads cyan, added green, removed red. */
function styled(line: string): Piece[] {
  const color: Color | undefined = /^(diff --git |index |--- |\+\+\+ |new file|deleted file)/
      .test(line)
    ? "bold"
    : line.startsWith("@@")
    ? "cyan"
    : line.startsWith("+")
    ? "green"
    : line.startsWith("-")
    ? "red"
    : undefined;
  return [color ? paint(color, line) : line];
}
