/**
 * `observal delegate diff` and `delegate apply` on real tasks: a registry Agent run by a
 * stand-in harness in a real workspace copy returns a patch; the caller's real repository
 * is then moved, edited or left alone, and the patch applied to it whole or not at all.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { TASK_EXIT } from "../../lib/cli/delegate/task_exit.ts";
import { type LocalPlayground, localPlayground, treeOf } from "../support/local_delegation.ts";

const LONG = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

/**
 * A stand-in for `claude -p` that edits its copy: a line added, a line changed, a file
 * deleted, a text and a binary file created.
 */
const EDITS = `#!/bin/sh
cat > /dev/null
printf 'three\\n' >> edit.txt
rm gone.txt
printf 'new file\\n' > created.txt
printf '\\000\\001\\002binary\\377\\n' > data.bin
sed 's/^line 2$/line 2 changed by the agent/' long.txt > long.tmp && mv long.tmp long.txt
printf '{"type":"result","result":"Done.","is_error":false,"session_id":"s1"}\\n'
`;

/** A playground whose caller has long.txt committed, and a completed task with a patch. */
async function withTask(
  fn: (pg: LocalPlayground, task: Task) => Promise<void>,
  before?: (pg: LocalPlayground) => void,
): Promise<void> {
  const pg = await localPlayground();
  try {
    writeFileSync(join(pg.repo, "long.txt"), LONG);
    pg.git("add", "long.txt");
    pg.git("commit", "-q", "-m", "long");
    pg.program("claude", EDITS);
    before?.(pg);
    const r = await pg.json([
      "delegate",
      "run",
      pg.identifier,
      "make the changes",
      "--harness",
      "claude-code",
      "--wait",
      "60",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const task = r.body as unknown as Task;
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    assert.ok(task.metadata.observal.patchPath);
    await fn(pg, task);
  } finally {
    await pg.close();
  }
}

/** Everything of the caller an apply could change: files, HEAD, index and status. */
function snapshot(pg: LocalPlayground) {
  return {
    tree: treeOf(pg.repo),
    head: pg.git("rev-parse", "HEAD"),
    staged: pg.git("diff", "--cached", "--binary"),
    status: pg.git("status", "--porcelain"),
  };
}

function stored(pg: LocalPlayground, id: string): Promise<Task> {
  return pg.json(["delegate", "status", id]).then((r) => r.body as unknown as Task);
}

/** Commits `content` as `file` in the caller: its HEAD moves on from where the task began. */
function commit(pg: LocalPlayground, file: string, content: string): void {
  writeFileSync(join(pg.repo, file), content);
  pg.git("commit", "-q", "-am", `moved ${file}`);
}

const AGENT_LONG = LONG.replace("line 2\n", "line 2 changed by the agent\n");

Deno.test("delegate apply on a clean caller changes the files as the patch says and records when and onto which HEAD; diff shows the patch", async () => {
  await withTask(async (pg, task) => {
    const patch = readFileSync(task.metadata.observal.patchPath!, "utf8");
    const shown = await pg.observal(["delegate", "diff", task.id.slice(0, 8)]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout, patch, "in a pipe the patch is printed as it is");

    const stat = await pg.observal(["delegate", "diff", task.id, "--stat"]);
    assert.equal(stat.code, 0, stat.stderr);
    for (const f of ["created.txt", "data.bin", "edit.txt", "gone.txt", "long.txt"]) {
      assert.match(stat.stdout, new RegExp(`^ ${f.replace(".", "\\.")}\\s+\\|`, "m"));
    }
    assert.match(stat.stdout, /5 files changed/);
    const names = await pg.observal(["delegate", "diff", task.id, "--name-only"]);
    assert.deepEqual(names.stdout.trim().split("\n").sort(), [
      "created.txt",
      "data.bin",
      "edit.txt",
      "gone.txt",
      "long.txt",
    ]);

    // Before the apply, the status names the two commands.
    const hints = await pg.observal(["delegate", "status", task.id]);
    assert.match(hints.stdout, new RegExp(`^Review with: observal delegate diff ${task.id}$`, "m"));
    assert.match(hints.stdout, new RegExp(`^Apply with: observal delegate apply ${task.id}$`, "m"));

    const head = pg.git("rev-parse", "HEAD").trim();
    const r = await pg.observal(["delegate", "apply", task.id]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`Applied task ${task.id}'s changes to .* \\(5 files\\)`));
    const tree = treeOf(pg.repo);
    assert.equal(tree["edit.txt"], "one\ntwo\nthree\n");
    assert.equal(tree["long.txt"], AGENT_LONG);
    assert.equal(tree["created.txt"], "new file\n");
    assert.equal(tree["gone.txt"], undefined, "the file the agent deleted is gone");
    assert.equal(tree["data.bin"], "\x00\x01\x02binary\xff\n", "the binary file applied");
    assert.equal(tree["keep.txt"], "keep\n");
    // Without --index nothing is staged.
    assert.equal(pg.git("diff", "--cached", "--name-only"), "");

    const applied = (await stored(pg, task.id)).metadata.observal.applied!;
    assert.equal(applied.head, head);
    assert.ok(Date.now() - Date.parse(applied.at) < 60_000, applied.at);
    assert.equal(applied.threeWay, false);
    assert.equal(applied.index, false);

    // Once applied, the status says when and onto which HEAD instead of the commands.
    const status = await pg.observal(["delegate", "status", task.id]);
    assert.match(
      status.stdout,
      new RegExp(`^Applied to ${pg.repo} at .* onto ${head.slice(0, 12)}$`, "m"),
    );
    assert.doesNotMatch(status.stdout, /Apply with/);
  });
});

Deno.test("delegate apply on a caller whose HEAD moved: other lines apply; the same lines are refused, whole, naming the file; --3way merges or marks conflicts as git does", async () => {
  await withTask(async (pg, task) => {
    // Another file changed, and long.txt far from the agent's line: the patch still applies.
    commit(pg, "keep.txt", "kept, but changed\n");
    commit(pg, "long.txt", LONG.replace("line 19\n", "line 19 changed by the caller\n"));
    const moved = pg.git("rev-parse", "HEAD").trim();
    const r = await pg.observal(["delegate", "apply", task.id]);
    assert.equal(r.code, 0, r.stderr);
    const tree = treeOf(pg.repo);
    assert.equal(
      tree["long.txt"],
      AGENT_LONG.replace("line 19\n", "line 19 changed by the caller\n"),
    );
    assert.equal(tree["keep.txt"], "kept, but changed\n");
    assert.equal((await stored(pg, task.id)).metadata.observal.applied!.head, moved);
  });

  await withTask(async (pg, task) => {
    // The caller changed the agent's very line: refused, and nothing changes.
    commit(pg, "long.txt", LONG.replace("line 2\n", "line 2 changed by the caller\n"));
    const before = snapshot(pg);
    const r = await pg.observal(["delegate", "apply", task.id]);
    assert.equal(r.code, TASK_EXIT.patchRefused, r.stderr);
    assert.match(r.stderr, /The patch does not apply to .* \(1 file\); nothing was changed/);
    assert.match(r.stderr, /^ {2}long\.txt: .*patch does not apply/m);
    assert.match(r.stderr, /--3way/);
    assert.deepEqual(snapshot(pg), before);
    assert.equal((await stored(pg, task.id)).metadata.observal.applied, undefined);

    // --3way: git merges what it can and marks the conflict; the file is named.
    const merged = await pg.observal(["delegate", "apply", task.id, "--3way"]);
    assert.equal(merged.code, TASK_EXIT.conflicts, merged.stderr);
    assert.match(merged.stderr, /conflicts: long\.txt: resolve/);
    const tree = treeOf(pg.repo);
    assert.match(
      tree["long.txt"],
      /<<<<<<< ours\nline 2 changed by the caller\n=======\nline 2 changed by the agent\n>>>>>>> theirs\n/,
    );
    // The rest applied (and --3way stages it, as git does).
    assert.equal(tree["edit.txt"], "one\ntwo\nthree\n");
    assert.equal(tree["gone.txt"], undefined);
    assert.match(pg.git("status", "--porcelain"), /^UU long\.txt$/m);
    assert.match(pg.git("status", "--porcelain"), /^M {2}edit\.txt$/m);
    const applied = (await stored(pg, task.id)).metadata.observal.applied!;
    assert.deepEqual(applied.conflicts, ["long.txt"]);
    assert.equal(applied.threeWay, true);
  });

  await withTask(async (pg, task) => {
    // The caller changed a line within the patch's context but not the agent's: plain
    // apply refuses (the context differs), --3way merges cleanly.
    commit(pg, "long.txt", LONG.replace("line 4\n", "line 4 changed by the caller\n"));
    const before = snapshot(pg);
    const plain = await pg.observal(["delegate", "apply", task.id]);
    assert.equal(plain.code, TASK_EXIT.patchRefused, plain.stderr);
    assert.deepEqual(snapshot(pg), before);
    const merged = await pg.observal(["delegate", "apply", task.id, "--3way"]);
    assert.equal(merged.code, 0, merged.stderr);
    assert.equal(
      treeOf(pg.repo)["long.txt"],
      AGENT_LONG.replace("line 4\n", "line 4 changed by the caller\n"),
    );
  });
});

Deno.test("delegate apply refuses a patch with conflicting files, names every one, and leaves the caller untouched", async () => {
  await withTask(async (pg, task) => {
    // Uncommitted edits over the agent's lines in two files, and the created file taken.
    writeFileSync(join(pg.repo, "edit.txt"), "ONE\nTWO\n");
    writeFileSync(join(pg.repo, "long.txt"), LONG.replace("line 2\n", "mine\n"));
    writeFileSync(join(pg.repo, "created.txt"), "mine too\n");
    const before = snapshot(pg);
    for (const flags of [[], ["--index"], ["--check"]]) {
      const r = await pg.observal(["delegate", "apply", task.id, ...flags]);
      assert.equal(r.code, TASK_EXIT.patchRefused, `${flags}: ${r.stderr}`);
      assert.match(r.stderr, /^ {2}edit\.txt: /m);
      assert.match(r.stderr, /^ {2}long\.txt: /m);
      assert.match(r.stderr, /^ {2}created\.txt: already exists in working directory/m);
      assert.deepEqual(snapshot(pg), before);
    }
    assert.equal((await stored(pg, task.id)).metadata.observal.applied, undefined);
    const json = await pg.json(["delegate", "apply", task.id]);
    assert.equal(json.code, TASK_EXIT.patchRefused);
    assert.match(json.stderr, /"errorCode":"FAILED_PRECONDITION"/);
  });
});

Deno.test("delegate apply refuses a second apply with its own exit code; --check changes nothing; --index stages", async () => {
  await withTask(async (pg, task) => {
    const before = snapshot(pg);
    const checked = await pg.observal(["delegate", "apply", task.id, "--check"]);
    assert.equal(checked.code, 0, checked.stderr);
    assert.match(checked.stdout, /The patch applies to .* \(5 files\); nothing was changed/);
    assert.deepEqual(snapshot(pg), before);
    assert.equal((await stored(pg, task.id)).metadata.observal.applied, undefined);

    const r = await pg.json(["delegate", "apply", task.id, "--index"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((r.body.applied as { index: boolean }).index, true);
    assert.deepEqual(
      pg.git("diff", "--cached", "--name-only").trim().split("\n").sort(),
      ["created.txt", "data.bin", "edit.txt", "gone.txt", "long.txt"],
    );
    assert.equal(pg.git("status", "--porcelain", "--untracked-files=no").includes(" M"), false);

    const after = snapshot(pg);
    const again = await pg.observal(["delegate", "apply", task.id]);
    assert.equal(again.code, TASK_EXIT.alreadyApplied, again.stderr);
    assert.match(again.stderr, /changes were applied already, at .* onto [0-9a-f]{12}/);
    assert.deepEqual(snapshot(pg), after);
    // Even a check is refused: the task's changes are in already.
    const check = await pg.observal(["delegate", "apply", task.id, "--check"]);
    assert.equal(check.code, TASK_EXIT.alreadyApplied);
  });
});

Deno.test("delegate diff and apply say so when a task has no patch", async () => {
  const pg = await localPlayground();
  try {
    pg.program(
      "claude",
      `#!/bin/sh\ncat > /dev/null\nprintf '{"type":"result","result":"Nothing to do.","is_error":false,"session_id":"s1"}\\n'\n`,
    );
    const r = await pg.json([
      "delegate",
      "run",
      pg.identifier,
      "look only",
      "--harness",
      "claude-code",
      "--wait",
      "60",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const id = String(r.body.id);
    for (const command of ["diff", "apply"]) {
      const out = await pg.observal(["delegate", command, id]);
      assert.equal(out.code, TASK_EXIT.noPatch, out.stderr);
      assert.match(out.stderr, /has no patch: it completed without changing any file/);
    }
    assert.equal(existsSync(join(pg.repo, "created.txt")), false);
  } finally {
    await pg.close();
  }
});

Deno.test("delegate apply --3way merges a file the caller had changed but not committed when the task began: its preimage travels with the patch", async () => {
  const uncommitted = LONG.replace("line 12\n", "line 12 changed, not committed\n");
  await withTask(async (pg, task) => {
    const dir = join(task.metadata.observal.patchPath!, "..");
    assert.ok(existsSync(join(dir, "changes.base.pack")), "the preimages are kept");
    // The caller commits that work with a line within the patch's context changed too:
    // plain apply refuses; --3way needs the file as the task began, which only the copy had.
    commit(pg, "long.txt", uncommitted.replace("line 4\n", "line 4 changed later\n"));
    const before = snapshot(pg);
    const plain = await pg.observal(["delegate", "apply", task.id]);
    assert.equal(plain.code, TASK_EXIT.patchRefused, plain.stderr);
    assert.deepEqual(snapshot(pg), before);
    // --3way finds the preimage (from the task's pack) and merges cleanly.
    const merged = await pg.observal(["delegate", "apply", task.id, "--3way"]);
    assert.equal(merged.code, 0, merged.stderr);
    assert.equal(
      treeOf(pg.repo)["long.txt"],
      uncommitted.replace("line 4\n", "line 4 changed later\n").replace(
        "line 2\n",
        "line 2 changed by the agent\n",
      ),
    );
  }, (pg) => writeFileSync(join(pg.repo, "long.txt"), uncommitted));
});
