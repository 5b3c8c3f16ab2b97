/**
 * Local delegation end to end with a stand-in harness: `observal delegate run` on an
 * approved registry Agent, a real detached worker, a real workspace copy and a real child
 * process in it. The real harness CLIs are driven in harness_delegate_test.ts; this file
 * covers the run's rules and its faults quickly and deterministically.
 */
import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { pidExists, processIdentity } from "../../lib/process/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { systemClock } from "../../lib/core/mod.ts";
import {
  gitDirState,
  killIfAlive,
  type LocalPlayground,
  localPlayground,
  treeOf,
  waitFor,
} from "../support/local_delegation.ts";

/**
 * A stand-in for `claude -p`: logs how it was started, runs $FAKE_ACTIONS in its cwd,
 * then prints Claude's JSON result. Everything it does is steered through the
 * environment, which the worker passes on.
 */
const FAKE_CLAUDE = `#!/bin/sh
sid=""
prev=""
for a in "$@"; do
  [ "$prev" = "--session-id" ] && sid="$a"
  prev="$a"
done
log="\${FAKE_LOG:-/dev/null}"
{ printf 'cwd=%s\\n' "$PWD"; for a in "$@"; do printf 'arg=%s\\n' "$a"; done; env | grep '^OBSERVAL_'; } > "$log"
cat > "$log.stdin"
eval "\${FAKE_ACTIONS:-}"
[ -n "\${FAKE_SILENT:-}" ] && exit "\${FAKE_EXIT:-0}"
printf '{"type":"result","result":"%s","is_error":false,"session_id":"%s"}\\n' "\${FAKE_ANSWER:-Done here.}" "$sid"
exit "\${FAKE_EXIT:-0}"
`;

async function setup(): Promise<LocalPlayground & { log: string }> {
  // These tests cover the run's rules with no sandbox: the stand-in logs outside its copy,
  // and a worker killed here must leave its child running (in a sandbox it dies with the
  // worker). sandbox_escape_test.ts and harness_delegate_test.ts cover the sandbox.
  const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: "off" } });
  pg.program("claude", FAKE_CLAUDE);
  return Object.assign(pg, { log: join(pg.root, "child.log") });
}

function workspaces(pg: LocalPlayground): string[] {
  const ws = join(pg.home, "delegations", "ws");
  return existsSync(ws) ? readdirSync(ws) : [];
}

/**
 * Starts a delegation whose child runs `actions`, waits until its start time is recorded,
 * then kills its worker with SIGKILL, leaving the child running alone.
 */
async function orphanChild(
  pg: LocalPlayground,
  actions: string,
): Promise<{ id: string; running: Task; child: number }> {
  const r = await pg.json(["delegate", "run", pg.identifier, "Long", "--wait", "0"], {
    env: { FAKE_ACTIONS: actions },
  });
  const id = String(r.body.id);
  const running = await waitFor(pg, id, (t) => t.metadata.observal.childStartTime !== undefined);
  const worker = Number(readFileSync(join(pg.home, "delegations", id, "worker.pid"), "utf8"));
  Deno.kill(worker, "SIGKILL");
  while (pidExists(worker)) await new Promise((res) => setTimeout(res, 20));
  return { id, running, child: running.metadata.observal.childPid! };
}

Deno.test("delegate run: a registry Agent edits a copy and its changes come back as a patch", async () => {
  const pg = await setup();
  try {
    // Uncommitted and untracked work the agent must see; the caller keeps it as it is.
    writeFileSync(join(pg.repo, "edit.txt"), "one\ntwo\nthree (uncommitted)\n");
    writeFileSync(join(pg.repo, "draft.txt"), "untracked draft\n");
    const beforeTree = treeOf(pg.repo);
    const beforeGit = gitDirState(pg.repo);
    const actions = [
      "printf 'new file\\n' > created.txt",
      "printf 'four\\n' >> edit.txt",
      "rm gone.txt",
      "cat draft.txt > seen-draft.txt",
    ].join("; ");
    const r = await pg.json(
      ["delegate", "run", pg.identifier, "--harness", "claude-code", "--", "-- make the change"],
      { env: { FAKE_LOG: pg.log, FAKE_ACTIONS: actions } },
    );
    assert.equal(r.code, 0, r.stderr);
    const task = r.body as unknown as Task;
    const meta = task.metadata.observal;
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    assert.match(
      JSON.stringify(task.status.message),
      /Proposed changes attached \(4 files changed/,
    );
    assert.equal(meta.harness, "claude-code");
    assert.equal(meta.workspace, "git-worktree");
    assert.ok(meta.childSessionId);
    const result = task.artifacts!.find((a) => a.name === "result")!;
    assert.equal(result.parts[0].text, "Done here.");
    const patch = task.artifacts!.find((a) => a.name === "changes.patch")!;
    assert.equal(patch.parts[0].mediaType, "text/x-diff");
    assert.equal(readFileSync(meta.patchPath!, "utf8"), patch.parts[0].text);

    // The child ran in the copy, with the task on stdin and its place in the chain.
    const log = readFileSync(pg.log, "utf8");
    assert.match(log, /^cwd=.*\/delegations\/ws\/observal-delegate-[^/]+\/worktree$/m);
    assert.equal(readFileSync(`${pg.log}.stdin`, "utf8"), "-- make the change");
    assert.match(log, /^OBSERVAL_DELEGATION_DEPTH=1$/m);
    assert.match(log, new RegExp(`^OBSERVAL_DELEGATION_TASK_ID=${task.id}$`, "m"));
    assert.match(log, /^OBSERVAL_HARNESS=claude-code$/m);
    assert.match(log, new RegExp(`^OBSERVAL_AGENT_ID=${pg.agentId}$`, "m"));
    assert.match(log, new RegExp(`^OBSERVAL_DELEGATION_CHAIN=.*${pg.agentId}`, "m"));

    // Nothing of the caller's changed, and the copy is gone.
    assert.deepEqual(treeOf(pg.repo), beforeTree);
    assert.deepEqual(gitDirState(pg.repo), beforeGit);
    assert.deepEqual(workspaces(pg), []);

    // The hint names the commands; `delegate apply` applies from the repository's top.
    assert.equal(meta.repository, pg.repo);
    const shown = await pg.observal(["delegate", "status", task.id]);
    assert.match(shown.stdout, new RegExp(`Review with: observal delegate diff ${task.id}`));
    assert.match(shown.stdout, new RegExp(`Apply with: observal delegate apply ${task.id}`));
    // The patch applies to the caller's working tree and reproduces the child's.
    pg.git("apply", meta.patchPath!);
    const after = treeOf(pg.repo);
    assert.equal(after["created.txt"], "new file\n");
    assert.equal(after["edit.txt"], "one\ntwo\nthree (uncommitted)\nfour\n");
    assert.equal(after["gone.txt"], undefined);
    assert.equal(after["seen-draft.txt"], "untracked draft\n");
    // The agent's own install files are not part of the patch.
    assert.doesNotMatch(patch.parts[0].text!, /\.claude\/agents/);
  } finally {
    await pg.close();
  }
});

Deno.test("delegate run: exit 0 with no answer and no changes is a failure that names the log", async () => {
  const pg = await setup();
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Do nothing"], {
      env: { FAKE_SILENT: "1" },
    });
    assert.equal(r.code, 3);
    const task = r.body as unknown as Task;
    assert.equal(task.status.state, "TASK_STATE_FAILED");
    assert.match(JSON.stringify(task.status.message), /returned no answer and made no changes/);
    assert.match(JSON.stringify(task.status.message), /stderr\.log/);
    assert.deepEqual(workspaces(pg), []);
  } finally {
    await pg.close();
  }
});

Deno.test("delegate run: a failing child fails the task with its stderr", async () => {
  const pg = await setup();
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Break"], {
      env: { FAKE_ACTIONS: "echo 'the model is over quota' >&2", FAKE_EXIT: "7" },
    });
    assert.equal(r.code, 3);
    assert.match(JSON.stringify((r.body as unknown as Task).status.message), /over quota/);
    assert.deepEqual(workspaces(pg), []);
  } finally {
    await pg.close();
  }
});

Deno.test("delegate run --timeout: the child's group is stopped and the task fails", async () => {
  const pg = await setup();
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Hang", "--timeout", "1"], {
      env: { FAKE_ACTIONS: "sleep 30 & echo $! > grandchild.pid; wait" },
    });
    assert.equal(r.code, 3);
    assert.match(
      JSON.stringify((r.body as unknown as Task).status.message),
      /Timed out after 1 seconds/,
    );
    assert.deepEqual(workspaces(pg), []);
  } finally {
    await pg.close();
  }
});

Deno.test("delegate cancel: a running child is stopped and the copy removed", async () => {
  const pg = await setup();
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Long", "--wait", "0"], {
      env: { FAKE_ACTIONS: "sleep 30" },
    });
    const id = String(r.body.id);
    const running = await waitFor(pg, id, (t) => t.metadata.observal.childPid !== undefined);
    const child = running.metadata.observal.childPid!;
    const c = await pg.json(["delegate", "cancel", id]);
    assert.equal(c.code, 0, c.stderr);
    assert.equal((c.body as unknown as Task).status.state, "TASK_STATE_CANCELED");
    assert.equal(pidExists(child), false);
    assert.deepEqual(workspaces(pg), []);
  } finally {
    await pg.close();
  }
});

Deno.test("kill -9 of the worker mid-run: status settles it, kills the child, removes the copy", async () => {
  const pg = await setup();
  let child: number | undefined;
  try {
    const orphan = await orphanChild(pg, "sleep 60");
    const id = orphan.id;
    child = orphan.child;
    assert.ok(pidExists(child), "the child outlives its worker");
    const s = await pg.json(["delegate", "status", id]);
    assert.equal((s.body as unknown as Task).status.state, "TASK_STATE_FAILED");
    assert.match(
      JSON.stringify((s.body as unknown as Task).status.message),
      /stopped unexpectedly/,
    );
    for (let i = 0; i < 100 && pidExists(child); i++) {
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.equal(pidExists(child), false, "the provably-ours child was killed");
    assert.deepEqual(workspaces(pg), []);
    // The settled task names no child any more: its pid may belong to anyone now.
    const after = (await pg.json(["delegate", "status", id])).body as unknown as Task;
    assert.equal(after.metadata.observal.childPid, undefined);
    assert.equal(after.metadata.observal.childStartTime, undefined);
    assert.equal((s.body as unknown as Task).metadata.observal.childPid, undefined);
  } finally {
    killIfAlive(child);
    await pg.close();
  }
});

Deno.test("a child that cannot be proven ours is left alone; its copy goes once it exits", async () => {
  const pg = await setup();
  let child: number | undefined;
  try {
    const flag = join(pg.root, "release");
    const orphan = await orphanChild(pg, `while [ ! -e '${flag}' ]; do sleep 0.05; done`);
    const id = orphan.id;
    child = orphan.child;
    // As if the pid had been reused: the recorded start time no longer matches.
    const store = openTaskStore({ home: pg.home, clock: systemClock });
    try {
      store.update(id, (t) => {
        t.metadata.observal.childStartTime = "linux:someone-else:1";
        return t;
      });
    } finally {
      store.close();
    }
    const s = await pg.json(["delegate", "status", id]);
    assert.equal((s.body as unknown as Task).status.state, "TASK_STATE_FAILED");
    assert.ok(pidExists(child), "an unproven process is never signalled");
    assert.equal(workspaces(pg).length, 1, "its workspace stays while it runs");
    writeFileSync(flag, "");
    while (pidExists(child)) await new Promise((res) => setTimeout(res, 20));
    await pg.json(["delegate", "status", id]);
    assert.deepEqual(workspaces(pg), [], "the next sweep removes it");
  } finally {
    killIfAlive(child);
    await pg.close();
  }
});

Deno.test("a reused pid is never killed: the sweep leaves an unrelated process running", async () => {
  const pg = await setup();
  // An unrelated process that happens to have the recorded pid.
  const stranger = new Deno.Command("sleep", { args: ["30"] }).spawn();
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Quick"], {
      env: { FAKE_ACTIONS: "printf x > x.txt" },
    });
    const id = String(r.body.id);
    const store = openTaskStore({ home: pg.home, clock: systemClock });
    const ws = join(pg.home, "delegations", "ws", "observal-delegate-reused");
    try {
      mkdirSync(join(ws, "worktree"), { recursive: true });
      // A settled task whose recorded child pid now belongs to the stranger.
      const twin = structuredClone(r.body as unknown as Task);
      twin.id = crypto.randomUUID();
      twin.status = { state: "TASK_STATE_FAILED" };
      twin.metadata.observal.workspaceRoot = ws;
      twin.metadata.observal.childPid = stranger.pid;
      twin.metadata.observal.childStartTime = `${processIdentity(stranger.pid)!.startTime}0`;
      store.insert(twin);
    } finally {
      store.close();
    }
    await pg.json(["delegate", "status", id]);
    assert.ok(pidExists(stranger.pid));
    assert.ok(existsSync(ws), "the workspace waits until that process is gone");
  } finally {
    stranger.kill("SIGKILL");
    await stranger.status;
    await pg.close();
  }
});

Deno.test("guards hold inside a workspace whose environment was stripped", async () => {
  const pg = await setup();
  try {
    const flag = join(pg.root, "release");
    const r = await pg.json(["delegate", "run", pg.identifier, "Long", "--wait", "0"], {
      env: { FAKE_ACTIONS: `while [ ! -e '${flag}' ]; do sleep 0.05; done` },
    });
    const id = String(r.body.id);
    const running = await waitFor(pg, id, (t) => t.metadata.observal.childPid !== undefined);
    const root = running.metadata.observal.workspaceRoot!;
    // From inside the copy, with no OBSERVAL_DELEGATION_* at all (as Codex starts MCP
    // servers): delegating to the same agent again is caught as a loop.
    const nested = await pg.observal(["delegate", "run", pg.identifier, "Again"], {
      cwd: join(root, "worktree"),
    });
    assert.equal(nested.code, 6, nested.stderr);
    assert.match(nested.stderr, /already working on this task higher up the chain/);
    // An agent that invents a parent (or names another real task) to reset depth, chain
    // and breadth is refused: inside a copy, the copy's task is the parent.
    const done = await pg.json(["delegate", "run", pg.identifier, "Quick"], {
      env: { FAKE_ACTIONS: "true" },
    });
    for (const named of [crypto.randomUUID(), String(done.body.id)]) {
      const forged = await pg.observal(["delegate", "run", pg.identifier, "Again"], {
        cwd: join(root, "worktree"),
        env: {
          OBSERVAL_DELEGATION_TASK_ID: named,
          OBSERVAL_DELEGATION_DEPTH: "0",
          OBSERVAL_DELEGATION_CHAIN: "",
        },
      });
      assert.equal(forged.code, 6, forged.stderr);
      assert.match(forged.stderr, new RegExp(`OBSERVAL_DELEGATION_TASK_ID is "${named}"`));
      assert.match(forged.stderr, new RegExp(`the workspace of task ${id}`));
    }
    // The chain is read in any spelling: upper case, and the older urn:ai: form.
    const spelled = await pg.observal(["delegate", "run", pg.identifier, "Again"], {
      env: {
        OBSERVAL_DELEGATION_CHAIN: pg.identifier.toUpperCase().replace(/^URN:AIR:/, "URN:AI:"),
      },
    });
    assert.equal(spelled.code, 6, spelled.stderr);
    assert.match(spelled.stderr, /already working on this task higher up the chain/);
    writeFileSync(flag, "");
    await waitFor(pg, id, (t) => t.status.state !== "TASK_STATE_WORKING");
  } finally {
    await pg.close();
  }
});

Deno.test("delegate find and registry search mark an Agent delegable only where a harness can run it", async () => {
  const pg = await localPlayground();
  try {
    // Only this PATH: no harness at all, then a stand-in Claude Code.
    const bare = { PATH: pg.bin + ":/usr/bin:/bin" };
    const none = await pg.json(["delegate", "find", "fix", "small", "things"], { env: bare });
    const agents = none.body.items as Array<Record<string, unknown>>;
    assert.equal(agents[0].delegable, false);
    assert.match(String(agents[0].unavailable), /^Install one of: Claude Code \(claude\), Codex/);
    const human = await pg.observal(["delegate", "find", "fix", "small", "things"], { env: bare });
    assert.match(human.stdout, /fixer cannot run on this machine: Install one of: Claude Code/);
    const search = await pg.json(["registry", "search", "fix", "small", "things"], { env: bare });
    const hit = (search.body.items as Array<Record<string, unknown>>)[0];
    assert.equal(hit.delegable, false);
    assert.match(String(hit.unavailable), /Install one of/);
    const run = await pg.observal(["delegate", "run", pg.identifier, "Fix it"], { env: bare });
    assert.equal(run.code, 6);
    assert.match(run.stderr, /No harness on this machine can run an agent headless/);
    assert.match(run.stderr, /Install one of: Claude Code \(claude\)/);

    pg.program("claude", FAKE_CLAUDE);
    const some = await pg.json(["delegate", "find", "fix", "small", "things"], { env: bare });
    assert.equal((some.body.items as Array<Record<string, unknown>>)[0].delegable, true);
    const again = await pg.json(["registry", "search", "fix", "small", "things"], { env: bare });
    assert.equal((again.body.items as Array<Record<string, unknown>>)[0].delegable, true);
  } finally {
    await pg.close();
  }
});

Deno.test("sessions attribute names the delegated agent by session id or workspace, after the copy is gone", async () => {
  const pg = await setup();
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Quick"], {
      env: { FAKE_ACTIONS: "printf x > x.txt" },
    });
    const task = r.body as unknown as Task;
    const meta = task.metadata.observal;
    assert.deepEqual(workspaces(pg), [], "the copy is gone");
    const bySession = await pg.json([
      "sessions",
      "attribute",
      "--session-id",
      meta.childSessionId!,
    ]);
    assert.equal(bySession.body.attributed, true);
    assert.equal(bySession.body.agentId, pg.agentId);
    assert.equal(bySession.body.version, "1.0.0");
    assert.equal(bySession.body.matchedBy, "session");
    const byCwd = await pg.json([
      "sessions",
      "attribute",
      "--cwd",
      join(meta.workspaceRoot!, "worktree", "src"),
      "--session-id",
      "../unknown",
    ]);
    assert.equal(byCwd.body.taskId, task.id);
    assert.equal(byCwd.body.matchedBy, "workspace");
    const none = await pg.json(["sessions", "attribute", "--cwd", pg.repo]);
    assert.deepEqual(none.body, { attributed: false });
  } finally {
    await pg.close();
  }
});

Deno.test("reconcile --dry-run says what it would do; reconcile settles, reaps, removes and prunes", async () => {
  const pg = await setup();
  let child: number | undefined;
  try {
    const { id, running, child: orphan } = await orphanChild(pg, "sleep 60");
    child = orphan;
    appendFileSync(
      join(pg.home, "capability_lock.jsonl"),
      '{"ts":"2020-01-01T00:00:00Z","kind":"agent","mode":"delegated","source":"delegate"}\n',
    );

    const dry = await pg.json(["reconcile", "--dry-run"]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(dry.body.settled, [
      { task_id: id, reason: "The delegation worker stopped unexpectedly." },
    ]);
    assert.deepEqual(dry.body.workspaces, [
      { root: running.metadata.observal.workspaceRoot, task_id: id, action: "killed" },
    ]);
    // Nothing changed.
    assert.ok(pidExists(child));
    assert.equal(workspaces(pg).length, 1);
    const store = openTaskStore({ home: pg.home, clock: systemClock });
    try {
      assert.equal(store.require(id).status.state, "TASK_STATE_WORKING");
    } finally {
      store.close();
    }

    const done = await pg.json(["reconcile"]);
    assert.equal(done.code, 0, done.stderr);
    assert.equal((done.body.settled as unknown[]).length, 1);
    assert.equal((done.body.workspaces as Array<{ action: string }>)[0].action, "killed");
    for (let i = 0; i < 100 && pidExists(child); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(pidExists(child), false);
    assert.deepEqual(workspaces(pg), []);
    assert.equal((done.body.pruned as { lock_lines: number }).lock_lines, 1);
    const sessions = done.body.sessions as Array<Record<string, string>>;
    assert.equal(sessions[0].task_id, id);
    assert.equal(sessions[0].child_session_id, running.metadata.observal.childSessionId);
    assert.equal(sessions[0].agent_id, pg.agentId);
    const human = await pg.observal(["reconcile"]);
    assert.match(
      human.stdout,
      new RegExp(`session \\S+ \\(claude-code\\) belongs to agent ${pg.agentId}`),
    );
  } finally {
    killIfAlive(child);
    await pg.close();
  }
});

Deno.test("delegate run: a home, OBSERVAL_HOME and repository reached through symlinks work, sandboxed or not", async () => {
  const pg = await setup();
  try {
    // Each place the caller names is a link to where it really is.
    const links = join(pg.root, "links");
    mkdirSync(links);
    symlinkSync(pg.root, join(links, "user-home"));
    symlinkSync(pg.home, join(links, "observal-home"));
    symlinkSync(pg.repo, join(links, "repo"));
    const env = {
      HOME: join(links, "user-home"),
      OBSERVAL_HOME: join(links, "observal-home"),
      PWD: join(links, "repo"),
      FAKE_ACTIONS: "printf 'through links\\n' > linked.txt",
    };
    const before = treeOf(pg.repo);
    for (const sandbox of ["on", "off"]) {
      const r = await pg.json(
        ["delegate", "run", pg.identifier, "--sandbox", sandbox, "--", "Write it."],
        { env, cwd: join(links, "repo") },
      );
      const task = r.body as unknown as Task;
      assert.equal(r.code, 0, `${sandbox}: ${r.stderr}\n${JSON.stringify(task.status)}`);
      assert.equal(task.metadata.observal.sandbox, sandbox === "on" ? "bwrap" : "none");
      const patch = readFileSync(task.metadata.observal.patchPath!, "utf8");
      assert.match(patch, /^\+through links$/m);
      assert.deepEqual(treeOf(pg.repo), before);
      assert.deepEqual(workspaces(pg), []);
    }
  } finally {
    await pg.close();
  }
});

Deno.test("delegate run: a new 100 MB file is left out of the patch and named in the result; the rest comes back", async () => {
  const pg = await setup();
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "--", "Make a big file"], {
      env: {
        FAKE_ACTIONS: "head -c 104857600 /dev/urandom > big.bin; printf 'small\\n' >> edit.txt",
      },
    });
    assert.equal(r.code, 0, r.stderr);
    const task = r.body as unknown as Task;
    const text = JSON.stringify(task.status.message);
    assert.match(text, /Proposed changes attached \(1 file changed/);
    assert.match(text, /Left out of the patch as too large: big\.bin \(100\.0 MiB\)/);
    assert.ok(task.metadata.observal.notes?.some((n) => n.includes('"big.bin" (100 MiB)')));
    const patch = readFileSync(task.metadata.observal.patchPath!, "utf8");
    assert.doesNotMatch(patch, /big\.bin/);
    pg.git("apply", task.metadata.observal.patchPath!);
    assert.equal(readFileSync(join(pg.repo, "edit.txt"), "utf8"), "one\ntwo\nsmall\n");
  } finally {
    await pg.close();
  }
});
