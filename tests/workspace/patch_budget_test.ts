import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import {
  filesToLeaveOut,
  headerPath,
  PatchBudget,
  unquote,
} from "../../lib/workspace/_patch_budget.ts";
import { commitAll, git, initRepo, sandbox, write } from "./_helpers.ts";

/** A real patch with a quoted name, a binary file, a type change and a deletion. */
function realPatch(): Uint8Array {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "a.txt"), "a\n");
  write(join(repo, "kind"), "a file\n");
  write(join(repo, "gone.txt"), "gone\n");
  commitAll(repo, sb.env);
  write(join(repo, "a.txt"), "a\nb\n");
  write(join(repo, "tab\there ü.txt"), "diff --git a/x b/x\n");
  write(join(repo, "bin.dat"), new Uint8Array([0, 1, 2, 3, 255]));
  Deno.removeSync(join(repo, "kind"));
  Deno.symlinkSync("a.txt", join(repo, "kind"));
  Deno.removeSync(join(repo, "gone.txt"));
  git(repo, sb.env, "add", "-A");
  return new Uint8Array(
    execFileSync("git", ["diff", "--cached", "--binary", "--full-index", "--no-renames"], {
      cwd: repo,
      env: sb.env,
    }),
  );
}

Deno.test("PatchBudget measures each file the same however the patch is split", () => {
  const patch = realPatch();
  let want;
  for (const size of [1, 2, 7, 12, 13, 64, patch.byteLength]) {
    const budget = new PatchBudget(1 << 20);
    for (let at = 0; at < patch.byteLength; at += size) {
      budget.push(patch.subarray(at, at + size));
    }
    const read = budget.finish();
    assert.deepEqual(read.bytes, patch, `chunks of ${size}`);
    const files = read.files.map(({ path, patchBytes, blob }) => ({ path, patchBytes, blob }));
    want ??= files;
    assert.deepEqual(files, want, `chunks of ${size}`);
  }
  assert.deepEqual(want!.map((f) => f.path), [
    "a.txt",
    "bin.dat",
    "gone.txt",
    "kind", // one entry for the two sections of a type change
    "tab\there ü.txt",
  ]);
  assert.equal(want!.reduce((n, f) => n + f.patchBytes, 0), patch.byteLength);
  assert.match(want!.find((f) => f.path === "gone.txt")!.blob!, /^[0-9a-f]{40}$/);
});

Deno.test("PatchBudget keeps nothing past the cap but still measures every file", () => {
  const patch = realPatch();
  const budget = new PatchBudget(patch.byteLength - 1);
  budget.push(patch);
  const read = budget.finish();
  assert.equal(read.bytes, undefined);
  assert.equal(read.files.length, 5);
});

Deno.test("filesToLeaveOut() drops the largest files first, in patch order", () => {
  const files = [
    { path: "a", patchBytes: 50 },
    { path: "b", patchBytes: 10 },
    { path: "c", patchBytes: 60 },
    { path: "d", patchBytes: 30 },
  ];
  assert.deepEqual(filesToLeaveOut(files, 100).map((f) => f.path), ["c"]);
  assert.deepEqual(filesToLeaveOut(files, 70).map((f) => f.path), ["a", "c"]);
  assert.deepEqual(filesToLeaveOut(files, 150), []);
  assert.deepEqual(filesToLeaveOut(files, 5).map((f) => f.path), ["a", "b", "c", "d"]);
});

Deno.test("headerPath() and unquote() read back git's plain and quoted names", () => {
  assert.equal(headerPath("diff --git a/x b/y b/x b/y"), "x b/y");
  assert.equal(
    headerPath('diff --git "a/t\\tq\\"\\\\\\303\\274" "b/t\\tq\\"\\\\\\303\\274"'),
    't\tq"\\ü',
  );
  assert.equal(unquote("a\\nb\\001"), "a\nb\x01");
});
