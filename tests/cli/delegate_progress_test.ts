/**
 * Progress while a delegate command waits: a line redrawn in place on a terminal; in a
 * pipe, a plain line on stderr every 5 s; nothing with --quiet.
 */
import assert from "node:assert/strict";
import type { Task, TaskState } from "../../lib/a2a/mod.ts";
import { progress, PROGRESS_EVERY_MS, type ProgressMode } from "../../lib/cli/delegate/print.ts";
import { quitNote } from "../../lib/cli/delegate/_follow.ts";
import { type Context, createContext } from "../../lib/core/mod.ts";
import { playground } from "../support/delegation.ts";
import { MAIN } from "../support/process.ts";

function task(state: TaskState): Task {
  return {
    id: crypto.randomUUID(),
    contextId: crypto.randomUUID(),
    status: { state },
    metadata: {
      observal: {
        target: "urn:air:test:a2a:x",
        targetName: "Slow\x1b[2J Agent",
        kind: "a2a",
        depth: 0,
        chain: [],
        cwd: "/",
        createdAt: "2026-09-27T10:00:00Z",
      },
    },
  };
}

/** A context whose stderr is kept, at the time `now()` gives. */
function captured(tty: boolean, now = () => 0): { ctx: Context; stderr: () => string } {
  let stderr = "";
  const ctx = createContext({
    env: {},
    cwd: "/",
    home: "/nonexistent",
    clock: { now: () => new Date(now()), sleep: () => Promise.resolve() },
    io: {
      stdout: { write: () => {} },
      stderr: { write: (t) => void (stderr += t) },
      isTTY: tty,
      color: false,
    },
  });
  return { ctx, stderr: () => stderr };
}

/** Ticks a progress at these seconds after its start; returns what reached stderr. */
function ticks(mode: ProgressMode, tty: boolean, seconds: number[], state: TaskState): string {
  let now = 0;
  const { ctx, stderr } = captured(tty, () => now);
  const p = progress(ctx, 0, mode);
  for (const s of seconds) {
    now = s * 1000;
    p.tick(task(state));
  }
  p.done();
  return stderr();
}

Deno.test("progress() in a pipe says it is still waiting every 5 s, in words", () => {
  assert.equal(PROGRESS_EVERY_MS, 5000);
  const seconds = [0, 0.25, 4.9, 5, 5.25, 9.75, 10.5, 11, 27];
  assert.equal(
    ticks("lines", false, seconds, "TASK_STATE_INPUT_REQUIRED"),
    [
      "still waiting for Slow\\x1b[2J Agent (input required, 5 s)",
      "still waiting for Slow\\x1b[2J Agent (input required, 10 s)",
      "still waiting for Slow\\x1b[2J Agent (input required, 27 s)",
      "",
    ].join("\n"),
  );
  assert.equal(ticks("off", false, seconds, "TASK_STATE_WORKING"), "");
  assert.equal(ticks("lines", false, [0, 1, 4.99], "TASK_STATE_WORKING"), "");
});

Deno.test("progress() on a terminal redraws one line and clears it", () => {
  const live = ticks("live", true, [0, 6], "TASK_STATE_WORKING");
  // deno-lint-ignore no-control-regex
  assert.match(live, /^\r\x1b\[2K⠋ Slow\\x1b\[2J Agent: working · 0s\r\x1b\[2K⠙ .*· 6s\r\x1b\[2K$/);
  assert.doesNotMatch(live, /still waiting|TASK_STATE/);
});

interface Piped {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs observal with stdout and stderr piped (no terminal anywhere). */
async function piped(args: string[], env: Record<string, string>): Promise<Piped> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("waits in a pipe print a progress line to stderr every 5 s; --quiet prints none", async () => {
  const pg = await playground({ behaviour: "slow", name: "Slow Agent" });
  const env = pg.env as Record<string, string>;
  const ids: string[] = [];
  try {
    const started = await pg.json(["delegate", "run", pg.identifier, "first", "-w", "0"]);
    ids.push(String(started.body.id));
    const [run, quiet, status] = await Promise.all([
      piped(["delegate", "run", pg.identifier, "second", "--wait", "7", "--json"], env),
      piped(["delegate", "run", pg.identifier, "third", "--wait", "7", "-q"], env),
      piped(["delegate", "status", ids[0].slice(0, 8), "--wait", "6"], env),
    ]);
    for (const r of [run, quiet, status]) assert.equal(r.code, 10, r.stderr);
    ids.push((JSON.parse(run.stdout) as Task).id);
    ids.push(/[0-9a-f-]{36}/.exec(quiet.stdout)![0]);
    // The --json result stays alone on stdout; progress goes to stderr.
    // One line each: the waits end at 6 and 7 s. (Usually "working, 5 s"; a busy machine
    // may see the first tick of a wait later.)
    assert.match(run.stderr, /^still waiting for Slow Agent \((submitted|working), [5-7] s\)\n$/);
    assert.match(status.stderr, /^still waiting for Slow Agent \(working, [5-6] s\)\n$/);
    assert.equal(quiet.stderr, "");
    const progressed = run.stderr + status.stderr;
    assert.ok(!progressed.includes("\r") && !progressed.includes("\x1b"), "no redrawn line");
  } finally {
    for (const id of ids) await pg.observal(["delegate", "cancel", id]);
    await pg.close();
  }
});

Deno.test("a second Ctrl-C says what it stopped, or which task goes on in its worker", () => {
  const said = (stopped: string[], seen?: Task) => {
    const { ctx, stderr } = captured(false);
    quitNote(ctx, stopped, seen);
    return stderr();
  };
  const working = task("TASK_STATE_WORKING");
  // Run here: stopped, and named.
  assert.equal(
    said([working.id], working),
    `Interrupted again: quitting now. Stopped task ${working.id}.\n`,
  );
  // Handed over to its worker before the second Ctrl-C: it goes on, and is not called stopped.
  const goesOn = said([], working);
  assert.match(goesOn, new RegExp(`Task ${working.id} keeps running in its worker`));
  assert.match(goesOn, new RegExp(`observal delegate status ${working.id} --wait 600`));
  assert.doesNotMatch(goesOn, /[Ss]topped task/);
  // Nothing started yet, or the task already ended: nothing to name.
  assert.equal(said([]), "Interrupted again: quitting now.\n");
  assert.equal(said([], task("TASK_STATE_COMPLETED")), "Interrupted again: quitting now.\n");
});
