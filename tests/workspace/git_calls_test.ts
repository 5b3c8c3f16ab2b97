import assert from "node:assert/strict";
import { join } from "node:path";
import {
  addBaseObjects,
  baseObjects,
  createWorkspace,
  type GitWorkspace,
  markBaseline,
  preimageIds,
  workspaceChanges,
} from "../../lib/workspace/mod.ts";
import { gitLog } from "./_git_log.ts";
import { assertRoundTrip, commitAll, git, initRepo, sandbox, write } from "./_helpers.ts";

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
    "config -z",
    "diff-index -p",
    "for-each-ref --format=%(objectname) %(HEAD) %(refname)",
    "init --quiet",
    "ls-files -z",
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
  assert.deepEqual(packed, [], "a copy that started at HEAD has no preimage of its own");
  assertRoundTrip(sb, repo, git.worktree, changes.bytes, baseline.setupPaths);
});

Deno.test("baseObjects() packs the preimages only the copy has, after a start off HEAD", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "README.md"), "one\ntwo\n");
  commitAll(repo, sb.env);
  write(join(repo, "README.md"), "one\ntwo\nuncommitted\n");
  write(join(repo, "notes.txt"), "untracked\n");
  const log = gitLog(sb);
  const ws = await createWorkspace({ home: sb.home, cwd: repo, env: log.env }) as GitWorkspace;
  assert.notEqual(ws.startTree, ws.headTree);
  const baseline = await markBaseline(ws);
  write(join(ws.worktree, "README.md"), "one\ntwo\nuncommitted\nby the agent\n");
  write(join(ws.worktree, "notes.txt"), "untracked\nby the agent\n");
  const changes = await workspaceChanges(ws, baseline);
  log.clear();
  const pack = await baseObjects(ws, changes.patch);
  assert.deepEqual(log.calls(), ["pack-objects --stdout"]);
  assert.ok(pack, "the uncommitted and untracked preimages exist only in the copy");
  const ids = preimageIds(changes.patch);
  assert.equal(ids.length, 2);
  for (const id of ids) assert.throws(() => git(repo, sb.env, "cat-file", "-e", id));
  await addBaseObjects(repo, pack, { env: sb.env });
  for (const id of ids) git(repo, sb.env, "cat-file", "-e", id);
});
