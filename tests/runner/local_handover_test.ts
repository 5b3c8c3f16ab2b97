/**
 * A local run that must let its task go before the child starts (a run here whose wait
 * ended while the copy was made): nothing is left running or on disk, the task is left
 * unsettled, and a later run (the worker's) does the whole task. The stand-in harness
 * notes each start, so a second child would show.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isFinal } from "../../lib/a2a/mod.ts";
import { createContext } from "../../lib/core/mod.ts";
import { DelegationService } from "../../lib/delegation/mod.ts";
import type { RegistryClient } from "../../lib/registry/mod.ts";
import { runLocal } from "../../lib/runner/local/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { openRegistryClient } from "../../lib/cli/open_registry_client.ts";
import { localPlayground } from "../support/local_delegation.ts";

const COUNTED_CLAUDE = `#!/bin/sh
echo $$ >> "$STARTS"
cat > /dev/null
printf 'four\\n' >> edit.txt
printf '{"type":"result","result":"Edited.","is_error":false,"session_id":"s"}\\n'
`;

Deno.test("runLocal() told to let go before its child starts leaves nothing behind, and the next run does the task once", async () => {
  const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: "off" } });
  pg.program("claude", COUNTED_CLAUDE);
  const starts = join(pg.root, "starts");
  const ctx = createContext({ env: { ...pg.env, STARTS: starts }, cwd: pg.repo });
  const store = openTaskStore({ home: pg.home, clock: ctx.clock });
  let client: RegistryClient | undefined;
  const registry = () => (client ??= openRegistryClient(ctx));
  const launched: string[] = [];
  const service = new DelegationService({
    ctx,
    store,
    registry,
    // No worker: the test runs the task itself.
    launch: (id) => (launched.push(id), 0),
  });
  const workspaces = () => {
    const ws = join(pg.home, "delegations", "ws");
    return existsSync(ws) ? readdirSync(ws) : [];
  };
  try {
    const task = await service.start(pg.identifier, "Edit it", {
      caller: service.caller(),
      harness: "claude-code",
      waitSeconds: 0,
    });
    assert.deepEqual(launched, [task.id]);
    const deps = { ctx, store, registry };
    const handover = new AbortController();
    handover.abort();
    const left = await runLocal(deps, store.require(task.id), { handover: handover.signal });
    assert.ok(!isFinal(left.status.state), left.status.state);
    assert.ok(!existsSync(starts), "no child was started");
    assert.deepEqual(workspaces(), [], "no copy is left");

    const done = await runLocal(deps, store.require(task.id));
    assert.equal(done.status.state, "TASK_STATE_COMPLETED", JSON.stringify(done.status));
    assert.equal(readFileSync(starts, "utf8").trim().split("\n").length, 1, "one child");
    assert.match(readFileSync(join(store.taskDir(task.id), "changes.patch"), "utf8"), /^\+four$/m);
    assert.deepEqual(workspaces(), []);
  } finally {
    client?.close();
    store.close();
    await pg.close();
  }
});
