import assert from "node:assert/strict";
import { join } from "node:path";
import {
  baseObjects,
  createWorkspace,
  type GitWorkspace,
  markBaseline,
  workspaceChanges,
} from "../../lib/workspace/mod.ts";
import { gitLog } from "./_git_log.ts";
import { assertRoundTrip, commitAll, initRepo, sandbox, write } from "./_helpers.ts";

// Each git process costs a few milliseconds of a delegation: these are all a plain run needs.
Deno.test("the workspace steps of a delegation from a clean repository start few git processes", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "README.md"), "one\ntwo\n");
  write(join(repo, "src", "main.ts"), "export const a = 1;\n");
  commitAll(repo, sb.env);
  const log = gitLog(sb);
  const step = async <T>(run: () => Promise<T>): Promise<[T, string[]]> => {
    log.clear();
    const out = await run();
    return [out, log.calls().sort()];
  };

  const [ws, created] = await step(() =>
    createWorkspace({ home: sb.home, cwd: repo, env: log.env })
  );
  assert.deepEqual(created, [
    "checkout --detach",
    "clone --shared",
    "config -z",
    "diff-index -p",
    "ls-files -z",
    "remote remove",
    "rev-parse --show-toplevel",
  ]);
  const git = ws as GitWorkspace;
  write(join(git.worktree, ".claude", "agents", "a.md"), "an agent\n");
  const [baseline, marked] = await step(() => markBaseline(git, [".claude/agents/a.md"]));
  assert.deepEqual(marked, ["add -A", "diff-tree -r", "write-tree "]);
  write(join(git.worktree, "README.md"), "one\ntwo\nthree\n");
  const [changes, read] = await step(() => workspaceChanges(git, baseline));
  assert.deepEqual(read, [
    "add -A",
    "config -z",
    "diff-tree -r",
    "diff-tree -r",
    "write-tree ",
  ]);
  assert.deepEqual(changes.stat, { files: 1, insertions: 1, deletions: 0 });
  const [pack, packed] = await step(() => baseObjects(git, changes.patch));
  assert.equal(pack, undefined, "the caller has every preimage");
  assert.deepEqual(packed, ["pack-objects --stdout"]);
  assertRoundTrip(sb, repo, git.worktree, changes.bytes, baseline.setupPaths);
});
