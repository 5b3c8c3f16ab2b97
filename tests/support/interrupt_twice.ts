/**
 * Ctrl-C twice at a `delegate run` whose copy is held at a gate: the first cannot hand the
 * task over while git still works, so the second quits the command at once.
 * @module
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { until } from "./gated_agent.ts";
import type { LocalPlayground } from "./local_delegation.ts";

/**
 * Makes the copy slow: keep.txt is checked out through a smudge filter that sleeps, long
 * enough for a busy machine's test to signal the command while git still works.
 */
export function slowCopy(pg: LocalPlayground, gate?: string): void {
  const smudge = join(pg.root, "slow-smudge");
  // With a gate the copy lasts until the test opens it, however slowly the test runs.
  const wait = gate ? `while [ ! -e '${gate}' ]; do sleep 0.05; done` : "sleep 3";
  writeFileSync(smudge, `#!/bin/sh\n${wait}\ncat\n`, { mode: 0o755 });
  pg.git("config", "filter.slow.smudge", smudge);
  pg.git("config", "filter.slow.clean", "cat");
  writeFileSync(join(pg.repo, ".gitattributes"), "keep.txt filter=slow\n");
  pg.git("add", ".gitattributes");
  pg.git("commit", "-q", "-m", "slow filter");
}

/**
 * Sends `caller` (its stdout and stderr piped) a Ctrl-C with `sigint`, and a second once
 * the first is seen handled (a busy machine may deliver two quick ones as one); then opens
 * the copy's `gate`. The command must quit at once, saying it stopped `taskId`, which must
 * be canceled.
 *
 * @returns the task as it ended, and what the command wrote to stderr
 */
export async function interruptTwice(
  pg: LocalPlayground,
  caller: Deno.ChildProcess,
  sigint: () => void,
  taskId: string,
  gate: string,
): Promise<{ task: Task; stderr: string }> {
  let stderr = "";
  const read = caller.stderr.pipeThrough(new TextDecoderStream())
    .pipeTo(new WritableStream({ write: (t) => void (stderr += t) }));
  const out = new Response(caller.stdout).text();
  sigint();
  await until(
    "the first Ctrl-C to be handled",
    () => Promise.resolve(stderr.includes("Handing the task to a worker") ? true : undefined),
  );
  sigint();
  const [ran] = await Promise.all([caller.status, read, out]);
  writeFileSync(gate, "");
  assert.equal(ran.code, 130, stderr);
  assert.match(stderr, new RegExp(`Interrupted again: quitting now. Stopped task ${taskId}\\.`));
  const task = (await pg.json(["delegate", "status", taskId])).body as unknown as Task;
  assert.equal(task.status.state, "TASK_STATE_CANCELED", JSON.stringify(task.status));
  return { task, stderr };
}
