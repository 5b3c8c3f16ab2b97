import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ObservalError } from "../../lib/core/mod.ts";
import { ALWAYS_CONFIG, gitEnv, runGit } from "../../lib/workspace/_git.ts";
import { commitAll, initRepo, sandbox, write } from "./_helpers.ts";

Deno.test("gitEnv() keeps what git needs and drops every repository-redirecting variable", () => {
  const env = gitEnv({
    PATH: "/bin",
    HOME: "/home/me",
    XDG_CONFIG_HOME: "/home/me/.config",
    GIT_CONFIG_GLOBAL: "/home/me/.gitconfig",
    GIT_CEILING_DIRECTORIES: "/home",
    SECRET_TOKEN: "s3cret",
    GIT_DIR: "/x/.git",
    GIT_WORK_TREE: "/x",
    GIT_INDEX_FILE: "/x/.git/index",
    GIT_OBJECT_DIRECTORY: "/x/.git/objects",
    GIT_ALTERNATE_OBJECT_DIRECTORIES: "/y",
    GIT_NAMESPACE: "n",
    GIT_COMMON_DIR: "/x/.git",
    GIT_CONFIG_PARAMETERS: "'a.b'='c'",
    GIT_CONFIG_COUNT: "1",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_EXTERNAL_DIFF: "/bin/false",
    GIT_DIFF_OPTS: "-u0",
    GIT_OPTIONAL_LOCKS: "1",
    UNSET: undefined,
  });
  assert.deepEqual(env, {
    PATH: "/bin",
    HOME: "/home/me",
    XDG_CONFIG_HOME: "/home/me/.config",
    GIT_CONFIG_GLOBAL: "/home/me/.gitconfig",
    GIT_CEILING_DIRECTORIES: "/home",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_LFS_SKIP_SMUDGE: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    LC_ALL: "C",
    LANGUAGE: "C",
  });
  assert.deepEqual(ALWAYS_CONFIG, ["core.hooksPath=/dev/null", "core.fsmonitor=false"]);
});

Deno.test("runGit() fails with the subcommand and the start of stderr", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  const settings = { env: gitEnv(sb.env), timeoutMs: 10_000 };
  await assert.rejects(
    runGit(["rev-parse", "--verify", "no-such-ref"], { cwd: repo, settings }),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, "INTERNAL");
      assert.match(err.message, /^git rev-parse failed: fatal: Needed a single revision/);
      return true;
    },
  );
  // A long stderr is cut to a few hundred characters.
  await assert.rejects(
    runGit(["rev-parse", "--verify", "x".repeat(2000)], { cwd: repo, settings }),
    (err: Error) => err.message.length < 400,
  );
  const ok = await runGit(["rev-parse", "--verify", "-q", "no-such-ref"], {
    cwd: repo,
    settings,
    okCodes: [0, 1],
  });
  assert.equal(ok.code, 1);
});

Deno.test("runGit() stops a call that passes its time limit", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  const fifo = join(sb.dir, "fifo");
  execFileSync("mkfifo", [fifo]);
  const started = performance.now();
  // Opening a FIFO nobody writes to blocks git itself until it is killed.
  await assert.rejects(
    runGit(["hash-object", fifo], { cwd: repo, settings: { env: gitEnv(sb.env), timeoutMs: 300 } }),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, "UNAVAILABLE");
      assert.equal(err.message, "git hash-object did not finish within 0.3 s");
      return true;
    },
  );
  assert.ok(performance.now() - started < 5_000);
});

Deno.test("runGit() stops a call whose output passes the cap", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "big.txt"), "x".repeat(200_000));
  commitAll(repo, sb.env);
  const settings = { env: gitEnv(sb.env), timeoutMs: 10_000 };
  await assert.rejects(
    runGit(["cat-file", "-p", "HEAD:big.txt"], { cwd: repo, settings, maxOutputBytes: 64 * 1024 }),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, "RESOURCE_EXHAUSTED");
      assert.equal(err.message, "git cat-file printed more than the 64 KiB cap");
      return true;
    },
  );
  const all = await runGit(["cat-file", "-p", "HEAD:big.txt"], { cwd: repo, settings });
  assert.equal(all.stdout.byteLength, 200_000);
});

Deno.test("runGit() stops a call whose stdout receiver throws, failing with its error", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "big.txt"), "x".repeat(4_000_000));
  commitAll(repo, sb.env);
  const settings = { env: gitEnv(sb.env), timeoutMs: 10_000 };
  let chunks = 0;
  const started = performance.now();
  await assert.rejects(
    runGit(["cat-file", "-p", "HEAD:big.txt"], {
      cwd: repo,
      settings,
      onStdout: () => {
        chunks++;
        throw new ObservalError("RESOURCE_EXHAUSTED", "too much for the receiver");
      },
    }),
    { code: "RESOURCE_EXHAUSTED", message: "too much for the receiver" },
  );
  assert.equal(chunks, 1, "nothing is passed on after the throw");
  assert.ok(performance.now() - started < 5_000);
  await assert.rejects(
    runGit(["cat-file", "-p", "HEAD:big.txt"], {
      cwd: repo,
      settings,
      onStdout: () => {
        throw new Error("a bug");
      },
    }),
    { code: "INTERNAL", message: "Unexpected failure: a bug" },
  );
});

Deno.test("runGit() never runs the repository's hooks", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  const marker = join(sb.dir, "ran");
  write(join(repo, ".git", "hooks", "pre-commit"), `#!/bin/sh\ntouch "${marker}"\n`, 0o755);
  const settings = { env: gitEnv(sb.env), timeoutMs: 10_000 };
  const env = {
    GIT_AUTHOR_NAME: "a",
    GIT_AUTHOR_EMAIL: "a@a",
    GIT_COMMITTER_NAME: "a",
    GIT_COMMITTER_EMAIL: "a@a",
  };
  await runGit(["commit", "-q", "--allow-empty", "-m", "m"], { cwd: repo, settings, env });
  assert.throws(() => Deno.statSync(marker));
  // Without our settings the same hook runs.
  execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "m"], {
    cwd: repo,
    env: { ...sb.env },
  });
  assert.ok(Deno.statSync(marker).isFile);
});
