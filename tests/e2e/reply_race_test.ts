/**
 * Replies and cancels race as real `observal` processes against a real A2A agent
 * (@a2a-js/sdk 1.3.0 on 127.0.0.1) that asks for input: of two replies exactly one is
 * taken and reaches the agent, the other is refused with exit code 11 and sends nothing;
 * a reply racing a cancel gets one outcome, and both callers report it as it is.
 */
import assert from "node:assert/strict";
import type { Task } from "../../lib/a2a/mod.ts";
import type { RecordedRequest } from "../support/a2a_agents.ts";
import { cli } from "../support/cli.ts";
import { type Playground, playground } from "../support/delegation.ts";
import { MAIN } from "../support/process.ts";

const ROUNDS = 20;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `observal ...` as its own process, as a user's shell would. */
async function observal(pg: Playground, args: string[]): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    env: { ...pg.env } as Record<string, string>,
    cwd: pg.home,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A task waiting for input: the agent asked its question. */
async function ask(pg: Playground, brief: string): Promise<Task> {
  const r = await pg.json(["delegate", "run", pg.identifier, brief, "--wait", "60"]);
  const task = r.body as unknown as Task;
  assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED", r.stderr);
  assert.ok(task.metadata.observal.remoteTaskId);
  return task;
}

/** Messages the agent received that carry `text`. */
function received(requests: RecordedRequest[], text: string): RecordedRequest[] {
  return requests.filter((r) => r.rpcMethod && JSON.stringify(r.body ?? "").includes(text));
}

function resultText(task: Task): string {
  return (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? "")).join("\n");
}

Deno.test(`${ROUNDS} rounds of two concurrent \`delegate reply\` processes: one taken, one refused with 11`, async () => {
  const pg = await playground({ behaviour: "input" });
  const wins = { first: 0, second: 0 };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const task = await ask(pg, `Round ${round}`);
      const answers = [`answer ${round}-a`, `answer ${round}-b`];
      // The taken answer is held at the agent until both commands have ended: a command
      // whose process is slow to start (a loaded machine) then still finds the task working
      // on the other answer, as it would if it had started with it. Without the hold it
      // could find the task already completed: a reply begun after that is told the task
      // takes no reply (exit 6, tested below), which is right, but not this race.
      const release = pg.agent.holdAnswers();
      const runs = await Promise.all(
        answers.map((a) => observal(pg, ["delegate", "reply", task.id, a, "--wait", "0"])),
      ).finally(release);
      const taken = runs.flatMap((r, i) => r.code === 0 || r.code === 10 ? [i] : []);
      assert.equal(taken.length, 1, `round ${round}: ${JSON.stringify(runs)}`);
      const winner = taken[0];
      const loser = runs[1 - winner];
      assert.equal(loser.code, 11, `round ${round}: ${loser.stderr}`);
      assert.match(
        loser.stderr,
        /Another reply to task \S+ was accepted first; yours was not sent/,
      );
      assert.doesNotMatch(loser.stderr, /\n\s+at /, "no stack trace");
      winner === 0 ? wins.first++ : wins.second++;

      const done = await pg.json(["delegate", "status", task.id, "--wait", "60"]);
      const settled = done.body as unknown as Task;
      assert.equal(settled.status.state, "TASK_STATE_COMPLETED", JSON.stringify(settled.status));
      assert.match(resultText(settled), new RegExp(`Round ${round} \\+ ${answers[winner]}`));
      // The agent got exactly one answer for this question: the winner's.
      assert.equal(received(pg.agent.requests, answers[winner]).length, 1, `round ${round}`);
      assert.equal(received(pg.agent.requests, answers[1 - winner]).length, 0, `round ${round}`);
    }
    console.log(`reply race: first process won ${wins.first}, second won ${wins.second}`);
  } finally {
    await pg.close();
  }
});

Deno.test("a reply is judged by when its command began: beaten (11) if it began before the other was taken, else not waiting (6)", async () => {
  const pg = await playground({ behaviour: "input" });
  try {
    const task = await ask(pg, "Late");
    const began = new Date();
    // The other reply is taken, and the task completes, before this command gets that far
    // (as when its process is slow to start).
    const first = await pg.json(["delegate", "reply", task.id, "first answer", "--wait", "60"]);
    assert.equal((first.body as unknown as Task).status.state, "TASK_STATE_COMPLETED");
    const late = await cli(["delegate", "reply", task.id, "late answer"], {
      env: pg.env,
      cwd: pg.home,
      startedAt: began,
    });
    assert.equal(late.code, 11, late.stderr);
    assert.match(late.stderr, /Another reply to task \S+ was accepted first; yours was not sent/);
    // A command begun after the task completed is told the task takes no reply.
    const after = await pg.observal(["delegate", "reply", task.id, "after answer"]);
    assert.equal(after.code, 6, after.stderr);
    assert.match(after.stderr, /is completed, not waiting for input/);
    assert.equal(received(pg.agent.requests, "late answer").length, 0);
    assert.equal(received(pg.agent.requests, "after answer").length, 0);
  } finally {
    await pg.close();
  }
});

Deno.test("a reply racing a cancel: one outcome, and both callers report it truthfully", async () => {
  const pg = await playground({ behaviour: "input" });
  const outcomes: Record<string, number> = {};
  try {
    for (let round = 0; round < 8; round++) {
      const task = await ask(pg, `Cancel round ${round}`);
      const answer = `late answer ${round}`;
      const [reply, cancel] = await Promise.all([
        observal(pg, ["delegate", "reply", task.id, answer, "--wait", "60", "--json"]),
        observal(pg, ["delegate", "cancel", task.id, "--json"]),
      ]);
      const final = (await pg.json(["delegate", "status", task.id])).body as unknown as Task;
      const state = final.status.state;
      assert.ok(state === "TASK_STATE_CANCELED" || state === "TASK_STATE_COMPLETED", state);
      // The cancel caller is told the state the task really ended in: a reply that got the
      // agent to finish before the cancel reached it leaves nothing to cancel (exit 12).
      assert.equal(cancel.code, state === "TASK_STATE_COMPLETED" ? 12 : 0, cancel.stderr);
      assert.equal((JSON.parse(cancel.stdout) as Task).status.state, state);
      const delivered = received(pg.agent.requests, answer).length;
      const remoteId = task.metadata.observal.remoteTaskId!;
      if (reply.code === 11 || reply.code === 6) {
        // Refused: the cancel won, and the answer never left this machine.
        assert.equal(state, "TASK_STATE_CANCELED");
        assert.match(JSON.parse(reply.stderr).error.message, /canceled/);
        assert.equal(delivered, 0);
        assert.ok(pg.agent.canceled.includes(remoteId), "the agent was told");
        outcomes["cancel first"] = (outcomes["cancel first"] ?? 0) + 1;
      } else {
        // Taken: the reply caller waited and reports the same end as the cancel caller.
        assert.equal((JSON.parse(reply.stdout) as Task).status.state, state, reply.stderr);
        assert.ok(delivered <= 1);
        if (state === "TASK_STATE_COMPLETED") {
          assert.equal(delivered, 1);
          assert.match(resultText(final), new RegExp(answer));
        } else {
          assert.ok(pg.agent.canceled.includes(remoteId), "the agent was told");
        }
        const key = `reply first, ${state === "TASK_STATE_COMPLETED" ? "completed" : "canceled"}`;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
      }
    }
    console.log(`reply vs cancel: ${JSON.stringify(outcomes)}`);
  } finally {
    await pg.close();
  }
});
