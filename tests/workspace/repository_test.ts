import assert from "node:assert/strict";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { gitEnv } from "../../lib/workspace/_git.ts";
import { type CallerRepository, findRepository } from "../../lib/workspace/_repository.ts";
import { commitAll, git, initRepo, sandbox, write } from "./_helpers.ts";
import { gitLog } from "./_git_log.ts";

/** What separate `git rev-parse` calls say about `cwd`. */
function expected(cwd: string, env: Record<string, string>): CallerRepository {
  const ask = (...args: string[]) => git(cwd, env, "rev-parse", ...args).replace(/\n$/, "");
  let head: CallerRepository["head"];
  try {
    head = { commit: ask("--verify", "-q", "HEAD^{commit}"), tree: ask("HEAD^{tree}") };
  } catch {
    head = undefined;
  }
  return {
    top: realpathSync(ask("--show-toplevel")),
    commonDir: ask("--path-format=absolute", "--git-common-dir"),
    ...(head ? { head } : {}),
  };
}

Deno.test("findRepository() answers as separate rev-parse calls do, in one git call", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "sub", "a.txt"), "a\n");
  commitAll(repo, sb.env);
  const linked = join(sb.dir, "linked");
  git(repo, sb.env, "worktree", "add", "-q", "-b", "feature", linked);
  write(join(linked, "b.txt"), "b\n");
  commitAll(linked, sb.env, "on the feature branch");
  const unborn = initRepo(sb, "unborn");
  mkdirSync(join(unborn, "deep", "er"), { recursive: true });
  const log = gitLog(sb);
  const settings = { env: gitEnv(log.env), timeoutMs: 10_000 };
  for (const cwd of [repo, join(repo, "sub"), linked, unborn, join(unborn, "deep", "er")]) {
    log.clear();
    const found = await findRepository(cwd, settings);
    assert.deepEqual(found, expected(cwd, sb.env), cwd);
    assert.deepEqual(log.calls(), ["rev-parse --show-toplevel"], cwd);
  }
  assert.notEqual(
    (await findRepository(linked, settings))?.head?.commit,
    (await findRepository(repo, settings))?.head?.commit,
    "a linked worktree has its own HEAD",
  );
});

Deno.test("findRepository() finds no working tree in a bare repository, a .git folder or elsewhere", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  commitAll(repo, sb.env);
  const bare = join(sb.dir, "bare.git");
  git(sb.dir, sb.env, "init", "-q", "--bare", bare);
  const plain = join(sb.dir, "plain");
  mkdirSync(plain);
  const settings = { env: gitEnv(sb.env), timeoutMs: 10_000 };
  for (const cwd of [bare, join(repo, ".git"), join(repo, ".git", "objects"), plain]) {
    assert.equal(await findRepository(cwd, settings), undefined, cwd);
  }
  // A repository git refuses is an error, not "no repository".
  write(join(repo, ".git", "config"), "[core\n");
  await assert.rejects(findRepository(repo, settings), (err: Error & { code?: string }) => {
    assert.equal(err.code, "FAILED_PRECONDITION");
    assert.match(err.message, /^git rev-parse failed: .*bad config/s);
    return true;
  });
});

Deno.test("findRepository() asks one question per call when a path holds a newline", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "a.txt"), "a\n");
  commitAll(repo, sb.env);
  // A linked worktree at such a path: the main repository, which a copy borrows objects
  // from, keeps a plain path.
  const linked = join(sb.dir, "two\nlines");
  git(repo, sb.env, "worktree", "add", "-q", "-b", "feature", linked);
  const unbornAt = join(sb.dir, "un\nborn");
  mkdirSync(unbornAt);
  git(unbornAt, sb.env, "init", "-q");
  const log = gitLog(sb);
  const settings = { env: gitEnv(log.env), timeoutMs: 10_000 };
  for (const cwd of [linked, unbornAt]) {
    log.clear();
    assert.deepEqual(await findRepository(cwd, settings), expected(cwd, sb.env), cwd);
    // The combined call, then the four questions apart.
    assert.equal(log.calls().length, 5, cwd);
  }
});
