/**
 * The reaper and a runner that died between starting its child and recording it: the
 * copy's folder and the runner's start time were recorded first, so what runs in the copy
 * and started after the runner is ended; what started before it is not proven ours and
 * is left alone.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pidExists, processIdentity } from "../../lib/process/mod.ts";
import { reapTask } from "../../lib/runner/mod.ts";
import { localPlayground } from "../support/local_delegation.ts";

function sleeper(cwd: string): Deno.ChildProcess {
  return new Deno.Command("sleep", { args: ["30"], cwd, stdout: "null", stderr: "null" }).spawn();
}

/** Lets the clock move past the current tick (start times count in 10 ms ticks). */
const nextTick = () => new Promise((r) => setTimeout(r, 50));

Deno.test(
  "reapTask() ends what runs in the copy since the runner started, when no child was recorded",
  {
    ignore: Deno.build.os !== "linux", // start times of other processes are read from /proc
  },
  async () => {
    const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: "off" } });
    pg.program("claude", "#!/bin/sh\nexit 0\n");
    const parts = pg.service();
    const { store, service } = parts;
    const started: Deno.ChildProcess[] = [];
    try {
      const task = await service.start(pg.identifier, "Edit it", {
        caller: service.caller(),
        harness: "claude-code",
        waitSeconds: 0,
      });
      const root = join(pg.home, "delegations", "ws", "observal-delegate-unrecorded");
      mkdirSync(join(root, "worktree"), { recursive: true });
      const before = sleeper(join(root, "worktree"));
      started.push(before);
      await nextTick();
      // The runner: a process that started after `before`.
      const runner = sleeper(pg.root);
      started.push(runner);
      const runnerStartTime = processIdentity(runner.pid)?.startTime;
      assert.ok(runnerStartTime);
      await nextTick();
      const child = sleeper(join(root, "worktree"));
      started.push(child);
      store.update(task.id, (t) => ({
        ...t,
        metadata: {
          ...t.metadata,
          observal: { ...t.metadata.observal, workspaceRoot: root, runnerStartTime },
        },
      }));

      assert.equal(reapTask(store, store.require(task.id), pg.home), "killed");
      assert.equal((await child.status).signal, "SIGKILL", "the unrecorded child is ended");
      assert.ok(pidExists(before.pid), "what started before the runner is left alone");
    } finally {
      for (const p of started) {
        try {
          p.kill("SIGKILL");
        } catch { /* ended already */ }
        await p.status;
      }
      parts.close();
      await pg.close();
    }
  },
);
