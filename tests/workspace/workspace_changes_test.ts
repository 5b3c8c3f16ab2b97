import assert from "node:assert/strict";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import {
  createWorkspace,
  type GitWorkspace,
  markBaseline,
  workspaceChanges,
} from "../../lib/workspace/mod.ts";
import {
  assertRoundTrip,
  assertSameSnapshot,
  commitAll,
  git,
  gitMaybe,
  initRepo,
  link,
  type Sandbox,
  sandbox,
  snapshot,
  write,
} from "./_helpers.ts";

async function setup(sb: Sandbox, files: Record<string, string | Uint8Array> = {}) {
  const repo = initRepo(sb);
  write(join(repo, "README.md"), "one\ntwo\nthree\n");
  write(join(repo, "tool.sh"), "#!/bin/sh\n", 0o755);
  write(join(repo, "plain.txt"), "plain\n");
  write(join(repo, "dir", "inner.txt"), "inner\n");
  write(join(repo, ".gitignore"), "*.log\n");
  link("README.md", join(repo, "readme-link"));
  for (const [p, c] of Object.entries(files)) write(join(repo, p), c);
  commitAll(repo, sb.env);
  const ws = await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }) as GitWorkspace;
  return { repo, ws, w: ws.worktree };
}

Deno.test("workspaceChanges() returns an empty patch when nothing changed", async () => {
  using sb = sandbox();
  const { ws, w } = await setup(sb);
  const baseline = await markBaseline(ws);
  write(join(w, "debug.log"), "ignored files do not count\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.deepEqual(changes, {
    patch: "",
    bytes: new Uint8Array(),
    notes: [],
    stat: { files: 0, insertions: 0, deletions: 0 },
    omitted: [],
  });
});

Deno.test("workspaceChanges() round-trips odd names, binaries, modes, links and deletions", async () => {
  using sb = sandbox();
  const { repo, ws, w } = await setup(sb, { "old name.txt": "x\n", "ünïcødé.txt": "u\n" });
  const baseline = await markBaseline(ws);
  write(join(w, "with space.txt"), "spaces\n");
  write(join(w, "line\nbreak.txt"), "newline in the name\n");
  write(join(w, 'tab\tand "quote".txt'), "quoted\n");
  write(join(w, "日本語", "ファイル.txt"), "unicode folder\n");
  write(join(w, "ünïcødé.txt"), "edited\n");
  write(
    join(w, "image.bin"),
    new Uint8Array(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256)),
  );
  write(join(w, "no-newline.txt"), "no final newline");
  Deno.chmodSync(join(w, "tool.sh"), 0o644);
  Deno.chmodSync(join(w, "plain.txt"), 0o755);
  link("dir/inner.txt", join(w, "readme-link")); // retarget
  link("plain.txt", join(w, "new-link"));
  rmSync(join(w, "dir", "inner.txt"));
  symlinkSync("../plain.txt", join(w, "dir", "inner.txt")); // file -> link
  rmSync(join(w, "old name.txt"));
  write(join(w, "README.md"), "one\n2\nthree\nfour\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.deepEqual(changes.notes, []);
  assertRoundTrip(sb, repo, w, changes.bytes);
  assert.equal(changes.patch, new TextDecoder().decode(changes.bytes));
  assert.ok(changes.stat.files >= 13, JSON.stringify(changes.stat));
});

Deno.test("workspaceChanges() counts files, insertions and deletions", async () => {
  using sb = sandbox();
  const { ws, w } = await setup(sb);
  const baseline = await markBaseline(ws);
  write(join(w, "README.md"), "one\nTWO\nthree\nfour\nfive\n"); // +3 -1
  rmSync(join(w, "plain.txt")); // -1
  write(join(w, "blob.bin"), new Uint8Array([0, 1, 2, 3])); // binary: counted as a file only
  const changes = await workspaceChanges(ws, baseline);
  assert.deepEqual(changes.stat, { files: 3, insertions: 3, deletions: 2 });
});

Deno.test("workspaceChanges() leaves setup paths out and notes the ones the agent changed", async () => {
  using sb = sandbox();
  const { repo, ws, w } = await setup(sb, { "*.md": "a literal star\n", "a.md": "a\n" });
  // The install writes two files, one with a name that looks like a glob.
  write(join(w, "*.md"), "installed\n");
  write(join(w, ".agent", "config.json"), "{}\n");
  const baseline = await markBaseline(ws, [".agent/config.json"]);
  assert.deepEqual(baseline.setupPaths, ["*.md", ".agent/config.json"]);
  write(join(w, "*.md"), "changed by the agent\n");
  write(join(w, "a.md"), "also changed by the agent\n");
  write(join(w, "README.md"), "changed\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.deepEqual(changes.notes, [
    "The agent also changed files the agent install wrote; those changes are not in the patch: *.md",
  ]);
  assert.match(changes.patch, /a\/a\.md/);
  assert.doesNotMatch(changes.patch, /\*\.md|\.agent/);
  assert.equal(changes.stat.files, 2);
  assertRoundTrip(sb, repo, w, changes.bytes, baseline.setupPaths);
});

Deno.test("workspaceChanges() leaves the largest changes out when the patch would pass the cap", async () => {
  using sb = sandbox();
  const { repo, ws, w } = await setup(sb, { "tabbed\tbig.txt": "old\n" });
  const baseline = await markBaseline(ws);
  const big = "line\n".repeat(2000); // 10000 bytes
  write(join(w, "big ünï.txt"), big);
  write(join(w, "tabbed\tbig.txt"), big);
  write(join(w, "README.md"), "one\nTWO\nthree\n");
  write(join(w, "new.txt"), "new\n");
  const changes = await workspaceChanges(ws, baseline, { maxPatchBytes: 4096 });
  assert.deepEqual(changes.omitted, [
    { path: "big ünï.txt", bytes: 10000 },
    { path: "tabbed\tbig.txt", bytes: 10000 },
  ]);
  assert.deepEqual(changes.stat, { files: 2, insertions: 2, deletions: 1 });
  assert.ok(changes.bytes.byteLength <= 4096);
  assert.match(changes.patch, /^diff --git a\/README\.md b\/README\.md$/m);
  assert.match(changes.patch, /^diff --git a\/new\.txt b\/new\.txt$/m);
  assert.doesNotMatch(changes.patch, /big/);
  assert.deepEqual(changes.notes, [
    'The agent\'s change to "big ünï.txt" (9.8 KiB) was left out of the patch, which would ' +
    "otherwise pass its 4 KiB limit; the copy is removed after the run, so that change is " +
    "not kept anywhere",
    'The agent\'s change to "tabbed\\tbig.txt" (9.8 KiB) was left out of the patch, which ' +
    "would otherwise pass its 4 KiB limit; the copy is removed after the run, so that change " +
    "is not kept anywhere",
  ]);
  // Without the left-out files, the patch reproduces the agent's tree.
  rmSync(join(w, "big ünï.txt"));
  write(join(w, "tabbed\tbig.txt"), "old\n");
  assertRoundTrip(sb, repo, w, changes.bytes);
});

Deno.test("workspaceChanges() leaves a 100 MiB new file out of the patch and keeps the rest", async () => {
  using sb = sandbox();
  const { repo, ws, w } = await setup(sb);
  const baseline = await markBaseline(ws);
  const size = 100 * 1024 * 1024;
  const block = new TextEncoder().encode("a line of a very large generated file\n".repeat(1638));
  mkdirSync(join(w, "data"));
  const fd = openSync(join(w, "data", "huge.txt"), "w");
  try {
    for (let left = size; left > 0; left -= block.byteLength) {
      writeSync(fd, block, 0, Math.min(left, block.byteLength));
    }
  } finally {
    closeSync(fd);
  }
  write(join(w, "README.md"), "one\ntwo\nthree\nfour\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.deepEqual(changes.omitted, [{ path: "data/huge.txt", bytes: size }]);
  assert.deepEqual(changes.stat, { files: 1, insertions: 1, deletions: 0 });
  assert.match(changes.patch, /^\+four$/m);
  assert.doesNotMatch(changes.patch, /huge/);
  assert.equal(changes.notes.length, 1);
  assert.match(
    changes.notes[0],
    /^The agent's change to "data\/huge\.txt" \(100 MiB\) was left out of the patch, .*64 MiB limit; .*not kept anywhere$/,
  );
  rmSync(join(w, "data"), { recursive: true });
  assertRoundTrip(sb, repo, w, changes.bytes);
});

Deno.test("workspaceChanges() is not fooled by the agent's git commands and config in its copy", async () => {
  using sb = sandbox();
  const { repo, ws, w } = await setup(sb, { "crlf.txt": "a\r\nb\r\n" });
  const baseline = await markBaseline(ws);
  const run = (...args: string[]) => gitMaybe(w, sb.env, ...args);
  write(join(w, "README.md"), "committed by the agent\n");
  run("commit", "-qam", "agent commit");
  run("branch", "agent-branch");
  write(join(w, "plain.txt"), "stashed away\n");
  run("stash");
  write(join(w, "dir", "inner.txt"), "edited after the stash\n");
  const excludes = join(sb.dir, "agent-excludes");
  write(excludes, "*.txt\n");
  const ext = join(sb.dir, "ext.sh");
  write(ext, "#!/bin/sh\necho external\n", 0o755);
  for (
    const [k, v] of [
      ["diff.noprefix", "true"],
      ["diff.mnemonicPrefix", "true"],
      ["diff.relative", "true"],
      ["diff.external", ext],
      ["diff.context", "0"],
      ["color.ui", "always"],
      ["core.autocrlf", "true"],
      ["core.fileMode", "false"],
      ["core.excludesFile", excludes],
      ["core.ignoreStat", "true"],
      ["core.sparseCheckout", "true"],
      ["core.worktree", join(sb.dir, "elsewhere")],
      ["status.showUntrackedFiles", "no"],
    ]
  ) run("config", k, v);
  write(join(w, "crlf.txt"), "a\r\nb\r\nc\r\n");
  write(join(w, "new.txt"), "a new text file\n");
  Deno.chmodSync(join(w, "tool.sh"), 0o644);
  const changes = await workspaceChanges(ws, baseline);
  assert.match(changes.patch, /^diff --git a\/README\.md b\/README\.md$/m);
  assert.doesNotMatch(changes.patch, /external/);
  assert.ok(!changes.patch.includes("\x1b["), "no colour codes");
  assert.match(changes.patch, /old mode 100755\nnew mode 100644/);
  assertRoundTrip(sb, repo, w, changes.bytes);
  assert.equal(readFileSync(join(w, "crlf.txt"), "utf8"), "a\r\nb\r\nc\r\n");
});

Deno.test("workspaceChanges() refuses a copy whose .git now points at the caller's repository", async () => {
  using sb = sandbox();
  const { repo, ws, w } = await setup(sb);
  const baseline = await markBaseline(ws);
  const before = snapshot(repo);
  write(join(w, "new.txt"), "new\n");
  rmSync(join(w, ".git"), { recursive: true });
  symlinkSync(join(repo, ".git"), join(w, ".git"));
  await assert.rejects(workspaceChanges(ws, baseline), { code: "FAILED_PRECONDITION" });
  rmSync(join(w, ".git"));
  write(join(w, ".git"), `gitdir: ${join(repo, ".git")}\n`);
  await assert.rejects(workspaceChanges(ws, baseline), { code: "FAILED_PRECONDITION" });
  assertSameSnapshot(before, snapshot(repo), "the caller's repository");
  assert.ok(existsSync(join(repo, ".git", "HEAD")));
  assert.equal(git(repo, sb.env, "status", "--porcelain").trim(), "");
});

Deno.test("workspaceChanges() does not report a $schema key a harness added to an install file", async () => {
  using sb = sandbox();
  const { ws, w } = await setup(sb);
  // The install writes three JSON configs; the harness then rewrites them on start.
  write(join(w, "opencode.json"), '{"agent":{"rev":{"model":"m"}}}\n');
  write(join(w, "other.json"), '{"$schema":"https://a.example/1.json","x":1}\n');
  write(join(w, "real.json"), '{"x":1}\n');
  const baseline = await markBaseline(ws, ["opencode.json", "other.json", "real.json"]);
  write(
    join(w, "opencode.json"),
    '{\n  "$schema": "https://opencode.ai/config.json",\n  "agent": { "rev": { "model": "m" } }\n}\n',
  );
  write(join(w, "other.json"), '{"x":1,"$schema":"https://a.example/2.json"}\n');
  write(join(w, "real.json"), '{"$schema":"https://a.example/1.json","x":2}\n');
  write(join(w, "README.md"), "changed\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.deepEqual(changes.notes, [
    "The agent also changed files the agent install wrote; those changes are not in the " +
    "patch: real.json",
  ]);
  assert.equal(changes.stat.files, 1);
});
