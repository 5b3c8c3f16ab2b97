/**
 * The child of a local run on a disk its own output filled before the run could record it:
 * the run still ends with the child's lost output named, and the child does not outlive it.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pidExists, spawnChild } from "../../lib/process/mod.ts";
import { childOutcome } from "../../lib/runner/local_child.ts";
import { localPlayground } from "../support/local_delegation.ts";
import { canMountDisks, mountSmallDisk } from "../support/small_disk.ts";

Deno.test({
  name:
    "childOutcome() on a disk the child's output filled before its pid was kept: the lost output is named and the child ended",
  ignore: !canMountDisks,
  async fn() {
    const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: "off" } });
    const dir = join(pg.home, "delegations");
    const unmount = mountSmallDisk(dir, "size=4m");
    pg.program("claude", "#!/bin/sh\nexit 0\n");
    // The task store lives on the small disk, as it does in the home.
    const parts = pg.service();
    const { ctx, store, registry, service } = parts;
    let pid: number | undefined;
    try {
      const task = await service.start(pg.identifier, "Flood", {
        caller: service.caller(),
        harness: "claude-code",
        waitSeconds: 0,
      });
      const taskDir = store.taskDir(task.id);
      const root = join(dir, "ws", "observal-delegate-flood");
      mkdirSync(join(root, "scratch"), { recursive: true });
      const logs = { stdout: join(taskDir, "stdout.log"), stderr: join(taskDir, "stderr.log") };
      // Twice the disk, then it stays: only the run can end it.
      const child = await spawnChild(["sh", "-c", "head -c 8388608 /dev/zero; exec sleep 60"], {
        cwd: root,
        env: { PATH: pg.env.PATH },
        stdoutPath: logs.stdout,
        stderrPath: logs.stderr,
      });
      pid = child.pid;
      // The record comes only once the disk is full: the order a busy machine can take.
      const status = `${logs.stderr}.status.out`;
      for (let i = 0; i < 500 && !readFileSync(status, "utf8").includes("fault"); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.match(readFileSync(status, "utf8"), /fault/, "the flood filled the disk");

      const outcome = await childOutcome({ ctx, store, registry }, task.id, {
        harness: "claude-code",
        plan: { argv: ["claude"], files: [] },
        logs,
        ws: { kind: "empty", root, path: root, scratch: join(root, "scratch"), notes: [] },
        baseline: { setupPaths: [] },
        taskDir,
        timeoutSeconds: 600,
        startedAt: Date.now(),
      }, child);
      assert.notEqual(outcome, "handed over");
      if (outcome === "handed over") return;
      assert.equal(outcome.state, "TASK_STATE_FAILED");
      assert.match(outcome.text, /output could not be kept, so its answer was lost/);
      assert.match(outcome.text, new RegExp(`observal home ${pg.home}: its disk is full`));
      assert.ok(!pidExists(child.pid), "the child does not outlive the run");
      assert.equal(store.require(task.id).metadata.observal.childPid, undefined);
    } finally {
      if (pid !== undefined && pidExists(pid)) Deno.kill(-pid, "SIGKILL");
      parts.close();
      unmount();
      await pg.close();
    }
  },
});
