import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createWorkspace,
  type GitWorkspace,
  listWorkspaceRoots,
  markBaseline,
  removeWorkspace,
  workspaceChanges,
} from "../../lib/workspace/mod.ts";
import type { ObservalError } from "../../lib/core/mod.ts";
import {
  assertRoundTrip,
  commitAll,
  copyRepo,
  git,
  initRepo,
  type Sandbox,
  sandbox,
  write,
} from "./_helpers.ts";

// A reversible filter: the repository stores rot13, the working tree shows plain text.
const ROT13 = "tr A-Za-z N-ZA-Mn-za-m";

/** A repository whose own config filters `*.sec` (and, via info/attributes, `notes.txt`). */
function rot13Repo(sb: Sandbox): string {
  const repo = initRepo(sb);
  git(repo, sb.env, "config", "filter.rot13.clean", ROT13);
  git(repo, sb.env, "config", "filter.rot13.smudge", ROT13);
  git(repo, sb.env, "config", "filter.rot13.required", "true");
  write(join(repo, ".gitattributes"), "*.sec filter=rot13\n");
  write(join(repo, ".git", "info", "attributes"), "notes.txt filter=rot13\n");
  write(join(repo, "a.sec"), "hello\nworld\n");
  write(join(repo, "notes.txt"), "plain notes\n");
  write(join(repo, "other.txt"), "not filtered\n");
  commitAll(repo, sb.env);
  assert.equal(git(repo, sb.env, "cat-file", "-p", "HEAD:a.sec"), "uryyb\njbeyq\n");
  return repo;
}

Deno.test("createWorkspace() shows the agent filtered files as the caller sees them, and the patch applies", async () => {
  using sb = sandbox();
  const repo = rot13Repo(sb);
  write(join(repo, "a.sec"), "hello\nworld\nuncommitted\n");
  write(join(repo, "new.sec"), "untracked secret\n");
  const ws = await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }) as GitWorkspace;
  const w = ws.worktree;
  assert.deepEqual(ws.notes, []);
  for (const p of ["a.sec", "notes.txt", "new.sec", "other.txt"]) {
    assert.equal(readFileSync(join(w, p), "utf8"), readFileSync(join(repo, p), "utf8"), p);
  }
  const baseline = await markBaseline(ws);
  assert.equal(baseline.baseTree, ws.startTree);
  write(join(w, "a.sec"), "hello\nthere\nworld\nuncommitted\n");
  write(join(w, "notes.txt"), "plain notes\nand more\n");
  write(join(w, "b.sec"), "a new secret\n");
  const changes = await workspaceChanges(ws, baseline);
  // The patch is in the stored form; `git apply` in the caller filters it back.
  assert.match(changes.patch, /^\+gurer$/m);
  assertRoundTrip(sb, repo, w, changes.bytes);
  const applied = copyRepo(sb, repo);
  write(join(sb.dir, "changes.patch"), changes.bytes);
  git(applied, sb.env, "apply", join(sb.dir, "changes.patch"));
  for (const p of ["a.sec", "notes.txt", "b.sec", "new.sec"]) {
    assert.equal(readFileSync(join(applied, p), "utf8"), readFileSync(join(w, p), "utf8"), p);
  }
});

Deno.test("createWorkspace() refuses a filter it cannot reproduce, naming it and its files", async () => {
  using sb = sandbox();
  const cases: [string, Record<string, string>, RegExp][] = [
    ["lfs", { process: "git-lfs filter-process", required: "true" }, /long-running/],
    ["git-crypt", { clean: "git-crypt clean", smudge: "git-crypt smudge" }, /git tool/],
    ["script", { clean: "sh tools/clean.sh", smudge: "sh tools/smudge.sh" }, /tools\/clean/],
    ["piped", { clean: "tr a-z A-Z | cat", smudge: "cat" }, /plain arguments/],
  ];
  for (const [name, keys, why] of cases) {
    const repo = initRepo(sb, name);
    write(join(repo, ".gitattributes"), `*.bin filter=${name}\n`);
    write(join(repo, "data", "one.bin"), "one\n");
    write(join(repo, "two.bin"), "two\n");
    commitAll(repo, sb.env);
    write(join(repo, "three.bin"), "untracked\n");
    for (const [k, v] of Object.entries(keys)) {
      git(repo, sb.env, "config", `filter.${name}.${k}`, v);
    }
    await assert.rejects(
      createWorkspace({ home: sb.home, cwd: repo, env: sb.env }),
      (err: Error & { code?: string; remediation?: string }) => {
        assert.equal(err.code, "FAILED_PRECONDITION");
        assert.ok(
          err.message.startsWith(
            `The repository's git filter "${name}" applies to "data/one.bin", "three.bin", ` +
              '"two.bin", and a workspace copy cannot reproduce it: ',
          ),
          err.message,
        );
        assert.match(err.message, why);
        return true;
      },
      name,
    );
  }
  assert.deepEqual(listWorkspaceRoots(sb.home), []);
});

Deno.test("createWorkspace() accepts a filter it cannot reproduce when no file uses it", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, ".gitattributes"), "*.psd filter=lfs\n");
  write(join(repo, "a.txt"), "a\n");
  commitAll(repo, sb.env);
  git(repo, sb.env, "config", "filter.lfs.process", "git-lfs filter-process");
  git(repo, sb.env, "config", "filter.lfs.required", "true");
  const ws = await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }) as GitWorkspace;
  const baseline = await markBaseline(ws);
  // The filter is off in the copy: a new file it would apply to comes back as written.
  write(join(ws.worktree, "image.psd"), "raw image\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.match(changes.patch, /^\+raw image$/m);
});

Deno.test("workspaceChanges() runs no filter the agent configured in its copy", async () => {
  using sb = sandbox();
  const repo = rot13Repo(sb);
  const ws = await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }) as GitWorkspace;
  const w = ws.worktree;
  const baseline = await markBaseline(ws);
  const marker = join(sb.dir, "filter-ran");
  git(w, sb.env, "config", "filter.evil.clean", `touch ${marker}; cat`);
  git(w, sb.env, "config", "filter.evil.required", "true");
  git(w, sb.env, "config", "filter.rot13.clean", `touch ${marker}; cat`);
  write(join(w, ".gitattributes"), "*.sec filter=rot13\n*.txt filter=evil\n");
  write(join(w, "new.txt"), "plain\n");
  write(join(w, "c.sec"), "secret\n");
  const changes = await workspaceChanges(ws, baseline);
  assert.ok(!existsSync(marker), "a filter the agent set must not run");
  assert.match(changes.patch, /^\+plain$/m);
  assert.match(changes.patch, /^\+frperg$/m);

  // A process would replace the caller's clean and smudge: the changes are not read.
  git(w, sb.env, "config", "filter.rot13.process", `touch ${marker}`);
  await assert.rejects(workspaceChanges(ws, baseline), (err: Error & { code?: string }) => {
    assert.equal(err.code, "FAILED_PRECONDITION");
    assert.match(err.message, /filter process for "rot13"/);
    return true;
  });
  assert.ok(!existsSync(marker));
});

Deno.test("markBaseline() runs no filter the copy's config gained after creation", async () => {
  using sb = sandbox();
  const repo = rot13Repo(sb);
  const ws = await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }) as GitWorkspace;
  const w = ws.worktree;
  const marker = join(sb.dir, "filter-ran");
  git(w, sb.env, "config", "filter.evil.clean", `touch ${marker}; cat`);
  git(w, sb.env, "config", "filter.evil.required", "true");
  write(join(w, ".gitattributes"), "*.sec filter=rot13\n*.txt filter=evil\n");
  write(join(w, "setup.txt"), "written before the baseline\n");
  const baseline = await markBaseline(ws, ["setup.txt"]);
  assert.ok(!existsSync(marker), "a filter the copy's config gained must not run");
  assert.deepEqual(baseline.setupPaths, [".gitattributes", "setup.txt"]);
});

Deno.test("markBaseline() refuses a caller's filter whose command now names a file in the copy", async () => {
  using sb = sandbox();
  const repo = rot13Repo(sb);
  const ws = await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }) as GitWorkspace;
  // The copy's config is untouched; the filter's program name is now a file in the copy.
  write(join(ws.worktree, "tr"), "#!/bin/sh\ncat\n", 0o755);
  await assert.rejects(markBaseline(ws, ["tr"]), (err: Error & { code?: string }) => {
    assert.equal(err.code, "FAILED_PRECONDITION");
    assert.match(err.message, /the filter "rot13" names "tr", which now exists in the copy/);
    return true;
  });
});

/** A one-file repository and a workspace made from it, as a delegated agent gets one. */
async function agentCopy(sb: Sandbox) {
  const repo = initRepo(sb);
  write(join(repo, "a.txt"), "one\n");
  commitAll(repo, sb.env);
  return { repo, parent: await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }) };
}

Deno.test("a copy made from a delegated agent's copy runs none of the filters the agent configured, and keeps its edits", async () => {
  using sb = sandbox();
  const { parent } = await agentCopy(sb);
  try {
    assert.equal(parent.kind, "git");
    // The agent points a filter of its own at every file and edits one: a copy made the
    // way a person's is would run that command outside any sandbox.
    const marker = join(sb.dir, "filter-ran");
    git(parent.path, sb.env, "config", "filter.evil.clean", `touch ${marker}`);
    git(parent.path, sb.env, "config", "filter.evil.smudge", `touch ${marker}`);
    write(join(parent.path, ".git", "info", "attributes"), "* filter=evil\n");
    write(join(parent.path, "a.txt"), "two\n");
    const nested = await createWorkspace({ home: sb.home, cwd: parent.path, env: sb.env });
    try {
      assert.equal(nested.kind, "git");
      assert.equal(readFileSync(join(nested.path, "a.txt"), "utf8"), "two\n");
      const baseline = await markBaseline(nested, []);
      write(join(nested.path, "a.txt"), "three\n");
      const changes = await workspaceChanges(nested, baseline);
      assert.match(new TextDecoder().decode(changes.bytes), /-two\n\+three/);
      assert.equal(existsSync(marker), false, "the agent's filter ran");
    } finally {
      removeWorkspace(nested.root, sb.home);
    }
  } finally {
    removeWorkspace(parent.root, sb.home);
  }
});

Deno.test("a delegated agent's copy whose git folder lies elsewhere is refused as a caller", async () => {
  using sb = sandbox();
  const { repo, parent } = await agentCopy(sb);
  try {
    // The agent swaps its copy's .git for a pointer at another repository.
    rmSync(join(parent.path, ".git"), { recursive: true, force: true });
    writeFileSync(join(parent.path, ".git"), `gitdir: ${join(repo, ".git")}\n`);
    await assert.rejects(
      createWorkspace({ home: sb.home, cwd: parent.path, env: sb.env }),
      (e: ObservalError) =>
        e.code === "FAILED_PRECONDITION" && /outside its workspace/.test(e.message),
    );
    assert.deepEqual(listWorkspaceRoots(sb.home), [parent.root], "nothing is left behind");
  } finally {
    removeWorkspace(parent.root, sb.home);
  }
});
