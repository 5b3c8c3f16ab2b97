import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { join } from "node:path";
import {
  createWorkspace,
  type GitWorkspace,
  listWorkspaceRoots,
  markBaseline,
  removeWorkspace,
  type Workspace,
  workspaceChanges,
  workspacesDir,
} from "../../lib/workspace/mod.ts";
import {
  assertRoundTrip,
  assertSameSnapshot,
  commitAll,
  git,
  initRepo,
  link,
  type Sandbox,
  sandbox,
  snapshot,
  write,
} from "./_helpers.ts";

function asGit(ws: Workspace): GitWorkspace {
  assert.equal(ws.kind, "git", `expected a git workspace, got: ${JSON.stringify(ws.notes)}`);
  return ws as GitWorkspace;
}

/** A committed repository with a subfolder, an ignored folder and a .gitignore. */
function basicRepo(sb: Sandbox): string {
  const repo = initRepo(sb);
  write(join(repo, "README.md"), "# readme\n");
  write(join(repo, "src", "main.ts"), "export const a = 1;\n");
  write(join(repo, "src", "run.sh"), "#!/bin/sh\necho hi\n", 0o755);
  write(join(repo, ".gitignore"), "*.log\nbuild/\n");
  commitAll(repo, sb.env);
  return repo;
}

Deno.test("createWorkspace() makes a private, resolved root under <home>/delegations/ws", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  // A home reached through a symlink still yields resolved paths.
  const alias = join(sb.dir, "home-alias");
  symlinkSync(sb.dir, alias);
  const home = join(alias, "observal");
  const ws = await createWorkspace({ home, cwd: repo, env: sb.env });
  assert.equal(ws.root, realpathSync(ws.root));
  assert.equal(ws.path, realpathSync(ws.path));
  assert.equal(realpathSync(join(ws.root, "..")), realpathSync(workspacesDir(home)));
  assert.match(ws.root.split("/").pop()!, /^observal-delegate-.+/);
  assert.equal(statSync(ws.root).mode & 0o777, 0o700);
  assert.equal(statSync(workspacesDir(home)).mode & 0o077, 0);
  assert.equal(ws.scratch, join(ws.root, "scratch"));
  assert.ok(statSync(ws.scratch).isDirectory());
  assert.deepEqual(listWorkspaceRoots(home), [ws.root]);
});

Deno.test("createWorkspace() outside a git repository gives an empty folder and no patch", async () => {
  using sb = sandbox();
  const cwd = join(sb.dir, "plain");
  write(join(cwd, "file.txt"), "not in git\n");
  const ws = await createWorkspace({ home: sb.home, cwd, env: sb.env });
  assert.equal(ws.kind, "empty");
  assert.deepEqual(Deno.readDirSync(ws.path).toArray(), []);
  assert.match(ws.notes.join("\n"), /not inside a git repository/);
  const baseline = await markBaseline(ws, ["agent.md"]);
  assert.deepEqual(baseline, { setupPaths: [] });
  write(join(ws.path, "new.txt"), "made by the agent\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.equal(changes.patch, "");
  assert.equal(changes.bytes.byteLength, 0);
  assert.deepEqual(changes.stat, { files: 0, insertions: 0, deletions: 0 });
});

Deno.test("createWorkspace() makes a repository sharing the caller's objects, detached at its HEAD, with its tags and branch and no remote", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  git(repo, sb.env, "branch", "feature");
  git(repo, sb.env, "tag", "-a", "v1.0", "-m", "release");
  git(repo, sb.env, "tag", "light");
  // A user default remote name must not rename the clone's remote out of our reach.
  write(join(sb.env.HOME, ".gitconfig"), "[clone]\n\tdefaultRemoteName = upstream\n");
  const head = git(repo, sb.env, "rev-parse", "HEAD").trim();
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }));
  assert.equal(ws.head, head);
  assert.equal(ws.repository, realpathSync(repo));
  assert.equal(ws.worktree, join(ws.root, "worktree"));
  assert.equal(ws.path, ws.worktree);
  assert.equal(git(ws.worktree, sb.env, "rev-parse", "HEAD").trim(), head);
  assert.throws(() => git(ws.worktree, sb.env, "symbolic-ref", "-q", "HEAD"));
  assert.equal(git(ws.worktree, sb.env, "remote").trim(), "");
  // As a clone keeps them once its remote is gone: the tags and the current branch only.
  const refs = (dir: string, ...names: string[]) =>
    git(dir, sb.env, "for-each-ref", "--format=%(objectname) %(refname)", ...names).trim();
  const branch = git(repo, sb.env, "symbolic-ref", "HEAD").trim();
  assert.equal(refs(ws.worktree), refs(repo, "refs/tags", branch));
  assert.equal(
    git(ws.worktree, sb.env, "describe", "--tags").trim(),
    git(repo, sb.env, "describe", "--tags").trim(),
  );
  const alternates = readFileSync(
    join(ws.worktree, ".git", "objects", "info", "alternates"),
    "utf8",
  );
  assert.equal(realpathSync(alternates.trim()), realpathSync(join(repo, ".git", "objects")));
  assert.ok(!existsSync(join(ws.worktree, ".git", "hooks")), "no sample hooks in the copy");
  assert.equal(ws.startTree, git(repo, sb.env, "rev-parse", "HEAD^{tree}").trim());
  assertRoundTrip(sb, repo, ws.worktree, new Uint8Array());
});

Deno.test("createWorkspace() carries staged and unstaged changes over, whatever the caller's diff config", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  write(join(repo, "old.txt"), "old\n");
  write(join(repo, "src", "shout.txt"), "quiet\n");
  write(join(repo, ".gitattributes"), "*.txt diff=shout\n");
  commitAll(repo, sb.env);
  const garbage = join(sb.dir, "external-diff.sh");
  write(garbage, "#!/bin/sh\necho garbage\n", 0o755);
  for (
    const [k, v] of [
      ["diff.noprefix", "true"],
      ["diff.mnemonicPrefix", "true"],
      ["diff.relative", "true"],
      ["diff.renames", "copies"],
      ["diff.external", garbage],
      ["diff.submodule", "log"],
      ["diff.context", "0"],
      ["diff.orderFile", join(sb.dir, "missing-order-file")],
      ["diff.shout.textconv", "tr a-z A-Z"],
      ["color.ui", "always"],
      ["color.diff", "always"],
      ["core.quotePath", "false"],
      ["apply.whitespace", "error"],
    ]
  ) git(repo, sb.env, "config", k, v);
  write(join(repo, "src", "main.ts"), "export const a = 2;   \n"); // unstaged, trailing spaces
  write(join(repo, "staged.txt"), "staged\n");
  git(repo, sb.env, "add", "staged.txt");
  write(join(repo, "README.md"), "# staged readme\n");
  git(repo, sb.env, "add", "README.md");
  write(join(repo, "README.md"), "# staged, then edited again\n");
  write(join(repo, "src", "shout.txt"), "still quiet\n");
  git(repo, sb.env, "mv", "old.txt", "renamed.txt");
  write(join(repo, "bin.dat"), new Uint8Array([0, 1, 2, 255, 0, 10]));
  git(repo, sb.env, "add", "bin.dat");
  Deno.chmodSync(join(repo, "src", "run.sh"), 0o644);
  const ws = asGit(
    await createWorkspace({ home: sb.home, cwd: join(repo, "src"), env: sb.env }),
  );
  assert.deepEqual(ws.notes, []);
  assert.equal(ws.path, join(ws.worktree, "src"));
  assertRoundTrip(sb, repo, ws.worktree, new Uint8Array());
  assert.equal(readFileSync(join(ws.worktree, "src", "shout.txt"), "utf8"), "still quiet\n");
});

Deno.test("createWorkspace() copies untracked files: links as links, modes kept, ignored never", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  const outside = join(sb.dir, "outside.txt");
  write(outside, "outside the repository\n");
  write(join(repo, "notes", "todo.txt"), "todo\n");
  write(join(repo, "notes", "tool.sh"), "#!/bin/sh\n", 0o750);
  link(outside, join(repo, "notes", "abs-link"));
  link("todo.txt", join(repo, "notes", "rel-link"));
  link("../src", join(repo, "notes", "dir-link"));
  link("missing-target", join(repo, "notes", "dangling"));
  write(join(repo, "debug.log"), "ignored by .gitignore\n");
  write(join(repo, "build", "out.bin"), "ignored folder\n");
  write(join(repo, ".git", "info", "exclude"), "secret.txt\n");
  write(join(repo, "secret.txt"), "ignored by info/exclude\n");
  write(join(sb.env.XDG_CONFIG_HOME, "git", "ignore"), "*.tmp\n");
  write(join(repo, "scratch.tmp"), "ignored by the user's excludes file\n");
  git(repo, sb.env, "init", "-q", "nested");
  write(join(repo, "nested", "inner.txt"), "in a nested repository\n");

  const ws = asGit(await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }));
  const w = ws.worktree;
  assert.equal(readlinkSync(join(w, "notes", "abs-link")), outside);
  assert.equal(readlinkSync(join(w, "notes", "rel-link")), "todo.txt");
  assert.equal(readlinkSync(join(w, "notes", "dir-link")), "../src");
  assert.equal(readlinkSync(join(w, "notes", "dangling")), "missing-target");
  assert.equal(statSync(join(w, "notes", "tool.sh")).mode & 0o777, 0o750);
  assert.equal(statSync(join(w, "src", "run.sh")).mode & 0o111, 0o111);
  for (const p of ["debug.log", "build", "secret.txt", "scratch.tmp", "nested"]) {
    assert.ok(!existsSync(join(w, p)), `${p} must not be copied`);
  }
  assert.equal(readFileSync(join(w, ".git", "info", "exclude"), "utf8"), "secret.txt\n");
  assert.match(ws.notes.join("\n"), /1 untracked nested repository was left out/);
  assertRoundTrip(sb, repo, w, new Uint8Array());
  // An agent file matching the caller's info/exclude stays out of the patch.
  const baseline = await markBaseline(ws);
  write(join(w, "secret.txt"), "the agent's secret\n");
  write(join(w, "kept.txt"), "kept\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.match(changes.patch, /kept\.txt/);
  assert.doesNotMatch(changes.patch, /secret/);
});

Deno.test("createWorkspace() leaves untracked files past the size cap out, with a note", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  write(join(repo, "a.txt"), "12345678");
  write(join(repo, "b.txt"), "12345678");
  write(join(repo, "c.txt"), "1");
  write(join(repo, "d.txt"), "1234567890");
  const ws = asGit(
    await createWorkspace({ home: sb.home, cwd: repo, env: sb.env, maxUntrackedBytes: 10 }),
  );
  assert.ok(existsSync(join(ws.worktree, "a.txt")));
  assert.ok(!existsSync(join(ws.worktree, "b.txt")));
  assert.ok(existsSync(join(ws.worktree, "c.txt")));
  assert.ok(!existsSync(join(ws.worktree, "d.txt")));
  assert.match(ws.notes.join("\n"), /^2 untracked file\(s\) were left out .*10 B limit/m);
});

Deno.test("createWorkspace() keeps the caller's subdirectory, making it when the copy lacks it", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  const inBuild = join(repo, "build", "deep");
  Deno.mkdirSync(inBuild, { recursive: true });
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: inBuild, env: sb.env }));
  assert.equal(ws.path, join(ws.worktree, "build", "deep"));
  assert.ok(statSync(ws.path).isDirectory());
  const empty = join(repo, "empty", "dir");
  Deno.mkdirSync(empty, { recursive: true });
  const ws2 = asGit(await createWorkspace({ home: sb.home, cwd: empty, env: sb.env }));
  assert.equal(ws2.path, join(ws2.worktree, "empty", "dir"));
  assert.ok(statSync(ws2.path).isDirectory());
});

Deno.test("createWorkspace() notes uncommitted changes it cannot apply and starts from HEAD", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  // The caller allowed a path git refuses by default; the copy does not, so the apply fails.
  git(repo, sb.env, "config", "core.protectNTFS", "false");
  write(join(repo, "GIT~1", "x.txt"), "x\n");
  git(repo, sb.env, "add", "GIT~1/x.txt");
  write(join(repo, "README.md"), "# edited\n");
  write(join(repo, "untracked.txt"), "still copied\n");
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }));
  assert.match(ws.notes.join("\n"), /Uncommitted changes could not be carried into the copy/);
  assert.equal(readFileSync(join(ws.worktree, "README.md"), "utf8"), "# readme\n");
  assert.ok(existsSync(join(ws.worktree, "untracked.txt")));
  assert.ok(!existsSync(join(ws.worktree, "GIT~1")));
});

Deno.test("createWorkspace() names each untracked link it leaves out, and why", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  write(join(repo, "docs"), "a file at HEAD\n");
  commitAll(repo, sb.env);
  // The caller turned the file into a folder holding untracked entries. The uncommitted
  // changes cannot be carried over (see the test above), so the copy still has the file
  // where those entries would go.
  git(repo, sb.env, "config", "core.protectNTFS", "false");
  write(join(repo, "GIT~1", "x.txt"), "x\n");
  git(repo, sb.env, "add", "GIT~1/x.txt");
  Deno.removeSync(join(repo, "docs"));
  link("../README.md", join(repo, "docs", "readme-link"));
  write(join(repo, "docs", "page.md"), "page\n");
  link("README.md", join(repo, "top-link"));
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }));
  const notes = ws.notes.filter((n) => n.startsWith("The untracked"));
  assert.deepEqual(notes, [
    'The untracked file "docs/page.md" was left out of the copy: its folder in the copy is a ' +
    "link or a file, not a folder",
    'The untracked link "docs/readme-link" was left out of the copy: its folder in the copy ' +
    "is a link or a file, not a folder",
  ]);
  assert.equal(readlinkSync(join(ws.worktree, "top-link")), "README.md");
  assert.equal(readFileSync(join(ws.worktree, "docs"), "utf8"), "a file at HEAD\n");
});

Deno.test("createWorkspace() on an unborn branch starts from the empty tree plus the caller's files", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "staged.txt"), "staged\n");
  write(join(repo, "sub", "both.txt"), "staged version\n");
  git(repo, sb.env, "add", "staged.txt", "sub/both.txt");
  write(join(repo, "sub", "both.txt"), "working version\n");
  write(join(repo, "untracked.sh"), "#!/bin/sh\n", 0o755);
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: join(repo, "sub"), env: sb.env }));
  assert.equal(ws.head, undefined);
  assert.deepEqual(ws.notes, []);
  assert.equal(ws.path, join(ws.worktree, "sub"));
  assertRoundTrip(sb, repo, ws.worktree, new Uint8Array());
  const baseline = await markBaseline(ws);
  write(join(ws.path, "both.txt"), "the agent's version\n");
  write(join(ws.worktree, "new.txt"), "new\n");
  Deno.removeSync(join(ws.worktree, "staged.txt"));
  const changes = await workspaceChanges(ws, baseline);
  assert.equal(changes.stat.files, 3);
  assertRoundTrip(sb, repo, ws.worktree, changes.bytes);
});

Deno.test("createWorkspace() with a submodule leaves it uncloned and patches elsewhere apply", async () => {
  using sb = sandbox();
  const lib = initRepo(sb, "lib");
  write(join(lib, "lib.txt"), "library\n");
  commitAll(lib, sb.env);
  const repo = basicRepo(sb);
  git(
    repo,
    sb.env,
    "-c",
    "protocol.file.allow=always",
    "submodule",
    "add",
    "-q",
    lib,
    "vendor/lib",
  );
  commitAll(repo, sb.env, "add submodule");
  write(join(repo, "vendor", "lib", "lib.txt"), "edited inside the submodule\n");
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }));
  assert.deepEqual(Deno.readDirSync(join(ws.worktree, "vendor", "lib")).toArray(), []);
  const baseline = await markBaseline(ws);
  write(join(ws.worktree, "src", "main.ts"), "export const a = 42;\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.deepEqual(changes.stat, { files: 1, insertions: 1, deletions: 1 });
  assertRoundTrip(sb, repo, ws.worktree, changes.bytes);
});

Deno.test("createWorkspace() makes the copy without refs, and says so, when the caller's refs cannot be read", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  git(repo, sb.env, "tag", "v1.0");
  // A git that fails to list refs (a repository with more refs than a git call may print).
  const real = git(sb.dir, sb.env, "--exec-path").trim() + "/git";
  const bin = join(sb.dir, "failing-bin");
  write(
    join(bin, "git"),
    `#!/bin/sh\nfor a; do [ "$a" = for-each-ref ] && { echo "fatal: too many refs" >&2; exit 128; }; done\nexec '${real}' "$@"\n`,
    0o755,
  );
  const env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}` };
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: repo, env }));
  assert.equal(git(ws.worktree, sb.env, "for-each-ref").trim(), "");
  assert.equal(ws.head, git(repo, sb.env, "rev-parse", "HEAD").trim());
  assert.ok(
    ws.notes.some((n) => /tags and branch could not be read.*too many refs/.test(n)),
    ws.notes.join("\n"),
  );
  assertRoundTrip(sb, repo, ws.worktree, new Uint8Array());
});

Deno.test("createWorkspace() copies a repository whose path holds a newline and a quote", async () => {
  using sb = sandbox();
  // The copy names the caller's object folder in a file of lines: such a path is quoted.
  const repo = join(sb.dir, 'two\nlines "quoted"');
  mkdirSync(repo);
  git(repo, sb.env, "init", "-q");
  write(join(repo, "README.md"), "# readme\n");
  commitAll(repo, sb.env);
  write(join(repo, "README.md"), "# readme\nuncommitted\n");
  await assertCopies(sb, repo);
});

/**
 * A copy of the repository at `dir`, whose history reads as the caller's (as an agent's
 * `git log` sees it), and whose patch of a new file applies back to the caller.
 */
async function assertCopies(sb: Sandbox, dir: string): Promise<void> {
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: dir, env: sb.env }));
  const log = (at: string) => git(at, sb.env, "log", "--format=%H").trim();
  assert.equal(log(ws.worktree), log(dir));
  const baseline = await markBaseline(ws);
  write(join(ws.worktree, "new.txt"), "new\n");
  const changes = await workspaceChanges(ws, baseline);
  assertRoundTrip(sb, dir, ws.worktree, changes.bytes);
}

Deno.test("createWorkspace() works from a linked worktree and from a shallow clone", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  const linked = join(sb.dir, "linked");
  git(repo, sb.env, "worktree", "add", "-q", "-b", "feature", linked);
  write(join(linked, "README.md"), "# on the feature branch\n");
  commitAll(linked, sb.env, "feature");
  write(join(linked, "src", "main.ts"), "// uncommitted in the linked worktree\n");
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: linked, env: sb.env }));
  assert.equal(ws.head, git(linked, sb.env, "rev-parse", "HEAD").trim());
  assertRoundTrip(sb, linked, ws.worktree, new Uint8Array());

  // Two commits, so that the shallow clone's only one has a parent it lacks.
  write(join(repo, "CHANGES.md"), "second\n");
  commitAll(repo, sb.env, "second");
  const shallow = join(sb.dir, "shallow");
  git(sb.dir, sb.env, "clone", "-q", "--depth", "1", `file://${repo}`, shallow);
  write(join(shallow, "README.md"), "# shallow edit\n");
  // History in the copy ends where the caller's does.
  await assertCopies(sb, shallow);
});

Deno.test("createWorkspace() ignores repository-redirecting variables in the caller's env", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  const other = initRepo(sb, "other");
  write(join(other, "other.txt"), "other\n");
  commitAll(other, sb.env);
  const script = join(sb.dir, "ext.sh");
  write(script, "#!/bin/sh\necho external\n", 0o755);
  const env = {
    ...sb.env,
    GIT_DIR: join(other, ".git"),
    GIT_WORK_TREE: other,
    GIT_INDEX_FILE: join(other, ".git", "index"),
    GIT_OBJECT_DIRECTORY: join(other, ".git", "objects"),
    GIT_COMMON_DIR: join(other, ".git"),
    GIT_NAMESPACE: "elsewhere",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_DIFF_OPTS: "--unified=0",
    GIT_EXTERNAL_DIFF: script,
    GIT_CONFIG_PARAMETERS: "'diff.noprefix'='true'",
  };
  const before = snapshot(other);
  write(join(repo, "README.md"), "# edited\n");
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: repo, env }));
  assertRoundTrip(sb, repo, ws.worktree, new Uint8Array());
  write(join(ws.worktree, "setup.json"), "{}\n");
  const baseline = await markBaseline(ws, ["setup.json"]);
  write(join(ws.worktree, "src", "main.ts"), "export const a = 3;\n");
  write(join(ws.worktree, "setup.json"), "{ changed }\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.deepEqual(changes.stat, { files: 1, insertions: 1, deletions: 1 });
  assertRoundTrip(sb, repo, ws.worktree, changes.bytes, baseline.setupPaths);
  assertSameSnapshot(before, snapshot(other), "the repository named by GIT_DIR");
});

Deno.test("createWorkspace() runs no hook and no fsmonitor, in the caller's repository or the copy", async () => {
  using sb = sandbox();
  const marker = join(sb.dir, "hook-ran");
  const hooks = join(sb.dir, "hooks");
  const hook = `#!/bin/sh\necho "$0" >> "${marker}"\n`;
  for (
    const name of ["post-checkout", "post-index-change", "reference-transaction", "pre-commit"]
  ) {
    write(join(hooks, name), hook, 0o755);
  }
  write(join(sb.dir, "fsmonitor.sh"), hook, 0o755);
  write(
    join(sb.env.HOME, ".gitconfig"),
    `[core]\n\thooksPath = ${hooks}\n\tfsmonitor = ${join(sb.dir, "fsmonitor.sh")}\n`,
  );
  // The hooks do run for plain git here, so their absence below means something.
  const probe = initRepo(sb, "probe");
  commitAll(probe, sb.env);
  git(probe, sb.env, "status");
  assert.ok(existsSync(marker), "the probe should have run a hook");
  Deno.removeSync(marker);

  const repo = basicRepo(sb);
  Deno.removeSync(marker);
  write(join(repo, ".git", "hooks", "post-checkout"), hook, 0o755);
  write(join(repo, "README.md"), "# edited\n");
  write(join(repo, "untracked.txt"), "u\n");
  const ws = asGit(await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }));
  const baseline = await markBaseline(ws, []);
  write(join(ws.worktree, "new.txt"), "new\n");
  await workspaceChanges(ws, baseline);
  assert.ok(removeWorkspace(ws.root, sb.home));
  assert.ok(
    !existsSync(marker),
    `a hook ran: ${existsSync(marker) ? readFileSync(marker, "utf8") : ""}`,
  );
});

Deno.test("createWorkspace() removes its root when it is cancelled or fails", async () => {
  using sb = sandbox();
  const repo = basicRepo(sb);
  const ac = new AbortController();
  const pending = createWorkspace({ home: sb.home, cwd: repo, env: sb.env, signal: ac.signal });
  ac.abort();
  await assert.rejects(pending, { code: "UNAVAILABLE" });
  assert.deepEqual(listWorkspaceRoots(sb.home), []);
  await assert.rejects(
    createWorkspace({ home: sb.home, cwd: join(sb.dir, "missing"), env: sb.env }),
    { code: "NOT_FOUND" },
  );
  // No git on PATH: the failure names the git subcommand.
  await assert.rejects(
    createWorkspace({
      home: sb.home,
      cwd: repo,
      env: { ...sb.env, PATH: join(sb.dir, "nothing") },
    }),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, "UNAVAILABLE");
      assert.match(err.message, /^git rev-parse could not be started/);
      return true;
    },
  );
  assert.deepEqual(listWorkspaceRoots(sb.home), []);
  assert.ok(lstatSync(workspacesDir(sb.home)).isDirectory());
});
