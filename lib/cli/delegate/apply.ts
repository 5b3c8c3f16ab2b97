/** `observal delegate apply`: a task's patch into the caller's repository, all or nothing. */
import { ObservalError } from "../../core/mod.ts";
import { dirname, join, pathExists, readBytes, readText, statPath } from "../../core/system/mod.ts";
import { type Applied, openTaskStore } from "../../store/mod.ts";
import {
  addBaseObjects,
  type ApplyMode,
  applyPatch,
  BASE_PACK_FILE,
  checkPatch,
  headCommit,
  missingBlobs,
  type PatchCheck,
  patchPaths,
} from "../../workspace/mod.ts";
import type { Command } from "../command.ts";
import { note, paint, printJson, say } from "../output.ts";
import { TASK_ID_NOTE, taskPatch } from "./_patch.ts";
import { TASK_EXIT } from "./task_exit.ts";

/** `observal delegate apply TASK_ID`. */
export const applyCommand: Command = {
  name: "apply",
  summary: "Apply the changes a delegated task returned to your repository",
  args: ["task-id"],
  flags: {
    check: { type: "boolean", description: "Only check that the patch applies; change nothing" },
    "3way": {
      type: "boolean",
      description: "Merge with the files as the task found them where lines moved " +
        "(conflicts are left marked; updates the index)",
    },
    index: { type: "boolean", description: "Also stage the changes (update the index)" },
  },
  details: `${TASK_ID_NOTE}
The patch is applied to the repository the task was started from, from its top: first checked
whole (git apply --check), then applied, so either every file changes or none does. Files that
do not apply are named with git's reason. A task's patch is applied once; the apply is recorded
on the task (when, onto which HEAD).
Exit codes: 0 applied (or, with --check, it would apply), ${TASK_EXIT.noPatch} the task has no patch,
${TASK_EXIT.patchRefused} the patch does not apply (nothing changed), ${TASK_EXIT.alreadyApplied} applied already (nothing changed),
${TASK_EXIT.conflicts} --3way merged with conflicts (the files are named).
With --json: {"id", "repository", "files": [...], "checked": true} for --check, else
{"id", "repository", "files", "applied": {"at", "head", "threeWay", "index", "conflicts"}}.`,
  async run(inv, ctx) {
    const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
    try {
      const { task, patchPath } = taskPatch(store, inv.args["task-id"]);
      const meta = task.metadata.observal;
      if (meta.applied) throw appliedAlready(task.id, meta.applied);
      const top = meta.repository;
      if (!top || !pathExists(top)) throw noRepository(task.id, patchPath, top);
      const mode: ApplyMode = {
        threeWay: inv.flags["3way"] === true,
        index: inv.flags.index === true,
      };
      const git = { env: ctx.env };
      if (mode.threeWay) {
        const patch = readText(patchPath);
        let missing = await missingBlobs(top, patch, git);
        // The preimages of what the caller had not committed travel with the patch.
        const pack = join(dirname(patchPath), BASE_PACK_FILE);
        if (missing.length > 0 && statPath(pack)?.isFile) {
          await addBaseObjects(top, readBytes(pack), git);
          missing = await missingBlobs(top, patch, git);
        }
        if (missing.length > 0) throw noBase(missing.length);
      }
      const check = await checkPatch(top, patchPath, mode, git);
      if (check.refused.length > 0 || check.other.length > 0) {
        throw refused(task.id, top, check, mode);
      }
      const files = await patchPaths(patchPath, top, git);
      if (inv.flags.check === true) {
        if (inv.json) return printJson(ctx, { id: task.id, repository: top, files, checked: true });
        say(ctx, `The patch applies to ${top} (${count(files.length)}); nothing was changed.`);
        return 0;
      }
      const head = await headCommit(top, git);
      const { conflicts } = await applyPatch(top, patchPath, mode, git);
      const applied: Applied = {
        at: ctx.clock.now().toISOString(),
        ...(head ? { head } : {}),
        threeWay: mode.threeWay === true,
        index: mode.index === true || mode.threeWay === true,
        ...(conflicts.length > 0 ? { conflicts } : {}),
      };
      const { recorded, task: after } = store.recordApplied(task.id, applied);
      const record = after.metadata.observal.applied ?? applied;
      if (inv.json) {
        printJson(ctx, { id: task.id, repository: top, files, applied: record });
      } else {
        say(ctx, `Applied task ${task.id}'s changes to ${top} (${count(files.length)}):`);
        for (const f of files) say(ctx, `  ${conflicts.includes(f) ? paint("red", f) : f}`);
        if (!recorded) note(ctx, "Another apply of this task was recorded meanwhile.");
        if (conflicts.length > 0) {
          note(
            ctx,
            paint("red", "conflicts:"),
            ` ${conflicts.join(", ")}: resolve the marked lines, then \`git add\` each file.`,
          );
        }
      }
      return conflicts.length > 0 ? TASK_EXIT.conflicts : 0;
    } finally {
      store.close();
    }
  },
};

function count(n: number): string {
  return `${n} file${n === 1 ? "" : "s"}`;
}

function appliedAlready(id: string, applied: Applied): ObservalError {
  const onto = applied.head ? ` onto ${applied.head.slice(0, 12)}` : "";
  return new ObservalError(
    "FAILED_PRECONDITION",
    `Task ${id}'s changes were applied already, at ${applied.at}${onto}`,
    {
      resource: id,
      exitCode: TASK_EXIT.alreadyApplied,
      remediation: "Nothing was changed. See them with `observal delegate diff " +
        `${id}\`; to undo them, use git (\`git diff\`, \`git restore\`)`,
    },
  );
}

function noRepository(id: string, patchPath: string, top: string | undefined): ObservalError {
  return new ObservalError(
    "FAILED_PRECONDITION",
    top
      ? `Task ${id}'s repository is gone: ${top}`
      : `Task ${id} was not started in a git repository, so there is none to apply it to`,
    {
      resource: id,
      exitCode: TASK_EXIT.patchRefused,
      remediation: `Apply it by hand from a repository's top: git apply ${patchPath}`,
    },
  );
}

function noBase(missing: number): ObservalError {
  return new ObservalError(
    "FAILED_PRECONDITION",
    `A three-way merge needs the files as the task found them, and the repository lacks ` +
      `${missing} of them (the task started from changes that were never committed or staged)`,
    {
      exitCode: TASK_EXIT.patchRefused,
      remediation: "Nothing was changed. Apply without --3way, or restore those files as " +
        "they were when the task started and try again",
    },
  );
}

function refused(id: string, top: string, check: PatchCheck, mode: ApplyMode): ObservalError {
  const lines = [
    ...check.refused.map((f) => `  ${f.path}: ${f.reasons.join("; ")}`),
    ...check.other.map((o) => `  ${o}`),
  ];
  const files = check.refused.length;
  return new ObservalError(
    "FAILED_PRECONDITION",
    `The patch does not apply to ${top}${
      files > 0 ? ` (${count(files)})` : ""
    }; nothing was changed:\n${lines.join("\n")}`,
    {
      resource: id,
      exitCode: TASK_EXIT.patchRefused,
      remediation: mode.threeWay
        ? "Commit or stash your own changes to those files, then try again"
        : `Merge instead: observal delegate apply ${id} --3way (conflicts are left marked)`,
    },
  );
}
