/**
 * The worker's fence under `deno run`, proven on real workers: the flags a worker started
 * by `observal delegate run` really has (read from /proc), the same runtime and flags
 * refusing a probe everything outside the fence, and the task still finishing inside it.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { registryPath } from "../../lib/server/mod.ts";
import { workspacesDir } from "../../lib/workspace/mod.ts";
import { playground } from "../support/delegation.ts";
import { localPlayground, waitFor } from "../support/local_delegation.ts";
import { flagValues, MAIN, probeAs, SOURCE_READS, storeFiles, workerArgv } from "./_worker_argv.ts";

async function otherServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => res.end("other"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

function database(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`];
}

Deno.test("a remote task's worker reaches only its endpoint and its own task folder, and still finishes", async () => {
  const pg = await playground({ behaviour: "slow" });
  const other = await otherServer();
  let id: string | undefined;
  try {
    const r = await pg.json(["delegate", "run", pg.identifier, "Take your time", "--wait", "0"]);
    assert.equal(r.code, 10, r.stderr);
    id = String(r.body.id);
    await pg.untilRemote(id);
    const taskDir = join(pg.home, "delegations", id);
    const argv = workerArgv(taskDir);

    const files = [taskDir, ...storeFiles(pg.home), ...database(registryPath(pg.home))];
    assert.ok(!argv.some((a) => a === "-A" || a.startsWith("--allow-all")), argv.join(" "));
    assert.deepEqual(
      flagValues(argv, "--allow-read")?.sort(),
      [...files, join(pg.home, "config.json"), ...SOURCE_READS].sort(),
    );
    assert.deepEqual(flagValues(argv, "--allow-write")?.sort(), [...files].sort());
    assert.deepEqual(flagValues(argv, "--allow-net"), [new URL(pg.agent.url).host]);
    assert.equal(flagValues(argv, "--allow-run"), undefined);

    // Another task's folder and the rest of OBSERVAL_HOME are out of reach.
    const otherTask = join(pg.home, "delegations", crypto.randomUUID());
    mkdirSync(otherTask);
    writeFileSync(join(otherTask, "worker.log"), "someone else's log\n");
    const verdicts = await probeAs(argv, MAIN, {
      cwd: taskDir,
      env: { ...pg.env, PATH: Deno.env.get("PATH")! } as Record<string, string>,
      checks: [
        { name: "own log", read: join(taskDir, "worker.log") },
        { name: "own folder write", write: join(taskDir, "probe.txt") },
        { name: "task database", read: storeFiles(pg.home)[0] },
        { name: "another task", read: join(otherTask, "worker.log") },
        { name: "capability lock", read: join(pg.home, "capability_lock.jsonl") },
        { name: "home write", write: join(pg.home, "planted") },
        { name: "outside home", read: "/etc/hostname" },
        { name: "observal's code", read: join(SOURCE_READS[0], "core", "mod.ts") },
        { name: "rest of the checkout", read: join(MAIN, "..", "deno.json") },
        { name: "endpoint", fetch: `${pg.agent.url}/.well-known/agent-card.json` },
        { name: "other host", fetch: other.url },
        { name: "git", run: "git" },
      ],
    });
    assert.deepEqual(verdicts, {
      "own log": "ok",
      "own folder write": "ok",
      "task database": "ok",
      "another task": "denied",
      "capability lock": "denied",
      "home write": "denied",
      "outside home": "denied",
      "observal's code": "ok",
      "rest of the checkout": "denied",
      "endpoint": "ok",
      "other host": "denied",
      "git": "denied",
    });

    // Inside the fence the worker still does its job: it tells the agent of the cancel.
    const c = await pg.json(["delegate", "cancel", id]);
    assert.equal(c.code, 0, c.stderr);
    assert.equal((c.body as unknown as Task).status.state, "TASK_STATE_CANCELED");
    assert.equal(pg.agent.canceled.length, 1);
  } finally {
    // The agent never finishes on its own: a failed assertion must not leave the worker.
    if (id) await pg.observal(["delegate", "cancel", id]);
    other.server.close();
    await pg.close();
  }
});

/** A stand-in for `claude -p` that waits for $RELEASE, then edits the copy and answers. */
const WAITING_CLAUDE = `#!/bin/sh
while [ ! -e "$RELEASE" ]; do sleep 0.05; done
printf 'four\\n' >> edit.txt
printf '{"type":"result","result":"Edited.","is_error":false,"session_id":"s"}\\n'
`;

Deno.test("a local task's worker runs only git, the shell its harness runs under and observal, writes only its task and the workspaces, and still finishes", async () => {
  // Unsandboxed, so the list is exact; a sandboxed worker also runs bwrap (and reads it).
  const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: "off" } });
  const claude = pg.program("claude", WAITING_CLAUDE);
  const other = await otherServer();
  const release = join(pg.root, "release");
  try {
    const r = await pg.json(
      ["delegate", "run", pg.identifier, "--harness", "claude-code", "--wait", "0", "--", "Fix"],
      { env: { RELEASE: release } },
    );
    assert.equal(r.code, 10, r.stderr);
    const id = String(r.body.id);
    await waitFor(pg, id, (t) => t.metadata.observal.childStartTime !== undefined);
    const taskDir = join(pg.home, "delegations", id);
    const argv = workerArgv(taskDir);

    const writes = [
      taskDir,
      ...storeFiles(pg.home),
      ...database(registryPath(pg.home)),
      workspacesDir(pg.home),
    ];
    assert.deepEqual(flagValues(argv, "--allow-write")?.sort(), writes.sort());
    assert.deepEqual(
      flagValues(argv, "--allow-read")?.sort(),
      [...writes, join(pg.home, "config.json"), pg.repo, claude, ...SOURCE_READS].sort(),
    );
    // observal itself: the servers its child delegates through (agents_broker.ts).
    assert.deepEqual(
      flagValues(argv, "--allow-run"),
      ["git", "/bin/sh", "kill", "cat", "readlink", "find", Deno.execPath()],
    );
    // The network: the task's own socket, named exactly, and nothing else.
    assert.deepEqual(flagValues(argv, "--allow-net"), [`unix:${join(taskDir, "agents.sock")}`]);

    mkdirSync(join(pg.root, ".ssh"));
    writeFileSync(join(pg.root, ".ssh", "id_ed25519"), "secret\n");
    const verdicts = await probeAs(argv, MAIN, {
      cwd: taskDir,
      env: pg.env as Record<string, string>,
      checks: [
        { name: "repository read", read: join(pg.repo, "keep.txt") },
        { name: "repository write", write: join(pg.repo, "planted.txt") },
        { name: "workspaces write", write: join(workspacesDir(pg.home), "probe.txt") },
        { name: "user's keys", read: join(pg.root, ".ssh", "id_ed25519") },
        { name: "capability lock", read: join(pg.home, "capability_lock.jsonl") },
        { name: "git", run: "git" },
        { name: "a shell", run: "sh" },
        { name: "network", fetch: other.url },
      ],
    });
    assert.deepEqual(verdicts, {
      "repository read": "ok",
      "repository write": "denied",
      "workspaces write": "ok",
      "user's keys": "denied",
      "capability lock": "denied",
      "git": "ok",
      "a shell": "denied",
      "network": "denied",
    });

    writeFileSync(release, "");
    const done = await pg.json(["delegate", "status", id, "--wait", "60"]);
    assert.equal(done.code, 0, done.stderr);
    const task = done.body as unknown as Task;
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    assert.ok(task.artifacts?.some((a) => a.name === "changes.patch"));
  } finally {
    writeFileSync(release, "");
    other.server.close();
    await pg.close();
  }
});
