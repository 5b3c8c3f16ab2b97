import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { concatBytes } from "../../lib/core/mod.ts";
import { PATCH_FORMAT } from "../../lib/workspace/_git.ts";
import { NumstatThenPatch, sumNumstat } from "../../lib/workspace/_numstat.ts";
import { commitAll, git, initRepo, sandbox, write } from "./_helpers.ts";

/**
 * One `diff-tree -z --numstat -p` output and what two separate calls print: odd names,
 * a binary file, a mode change, a type change, a deletion, a file without a final newline.
 */
function outputs(): { both: Uint8Array; numstat: string[]; patch: Uint8Array } {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "a.txt"), "a\n");
  write(join(repo, "kind"), "a file\n");
  write(join(repo, "gone.txt"), "gone\n");
  write(join(repo, "run.sh"), "#!/bin/sh\n");
  write(join(repo, "nonl.txt"), "no newline");
  commitAll(repo, sb.env);
  const base = git(repo, sb.env, "rev-parse", "HEAD^{tree}").trim();
  write(join(repo, "a.txt"), "a\nb\nc\n");
  write(join(repo, "tab\there ü.txt"), "diff --git a/x b/x\n");
  write(join(repo, "new\nline.txt"), "two\nlines\n");
  write(join(repo, 'quo"te.txt'), "q\n");
  write(join(repo, "bin.dat"), new Uint8Array([0, 1, 2, 3, 255]));
  write(join(repo, "nonl.txt"), "still none");
  Deno.chmodSync(join(repo, "run.sh"), 0o755);
  Deno.removeSync(join(repo, "kind"));
  Deno.symlinkSync("a.txt", join(repo, "kind"));
  Deno.removeSync(join(repo, "gone.txt"));
  git(repo, sb.env, "add", "-A");
  const after = git(repo, sb.env, "write-tree").trim();
  const run = (...args: string[]) =>
    new Uint8Array(
      execFileSync("git", ["diff-tree", "-r", ...args, base, after, "--", ":(top)"], {
        cwd: repo,
        env: sb.env,
      }),
    );
  const numstat = new TextDecoder().decode(run("-z", "--numstat", "--no-renames")).split("\0");
  numstat.pop();
  return {
    both: run("-z", "--numstat", "-p", ...PATCH_FORMAT),
    numstat,
    patch: run("-p", ...PATCH_FORMAT),
  };
}

Deno.test("NumstatThenPatch splits one diff-tree output as two calls print it, however it is cut", () => {
  const { both, numstat, patch } = outputs();
  assert.equal(numstat.length, 9);
  for (const size of [1, 2, 3, 7, 64, 1000, both.byteLength]) {
    const got: Uint8Array[] = [];
    const split = new NumstatThenPatch((chunk) => got.push(chunk.slice()), 1 << 20);
    for (let at = 0; at < both.byteLength; at += size) split.push(both.subarray(at, at + size));
    split.finish();
    assert.deepEqual(split.records, numstat, `chunks of ${size}`);
    assert.deepEqual(concatBytes(got), patch, `chunks of ${size}`);
  }
  assert.deepEqual(sumNumstat(numstat, new Set()), { files: 9, insertions: 8, deletions: 3 });
  assert.deepEqual(sumNumstat(numstat, new Set(["a.txt", "new\nline.txt"])), {
    files: 7,
    insertions: 4,
    deletions: 3,
  });
});

Deno.test("NumstatThenPatch takes no output as no change, and bounds the diffstat", () => {
  const empty = new NumstatThenPatch(() => assert.fail("no patch"), 100);
  empty.finish();
  assert.deepEqual(empty.records, []);

  const { both } = outputs();
  const small = new NumstatThenPatch(() => {}, 40);
  assert.throws(() => small.push(both), (err: Error & { code?: string }) => {
    assert.equal(err.code, "RESOURCE_EXHAUSTED");
    assert.match(err.message, /diffstat of more than the 40 B cap/);
    return true;
  });

  // Records with no patch after them are not a whole answer.
  const cut = new NumstatThenPatch(() => {}, 1 << 20);
  cut.push(new TextEncoder().encode("1\t0\ta.txt\0"));
  assert.throws(() => cut.finish(), { code: "INTERNAL" });
});
