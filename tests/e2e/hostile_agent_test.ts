/**
 * `observal delegate` against a hostile A2A agent (tests/support/hostile_agent.ts), through
 * the real CLI and real detached workers. For every misbehaviour the task settles with a
 * clear message within its bound, the process that ran it (`run` itself, or a worker)
 * exits, and its peak resident memory (logged at the end when OBSERVAL_TEST_PEAK_RSS is
 * set) stays under 200 MB.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { partsText, type Task } from "../../lib/a2a/mod.ts";
import type { Env } from "../../lib/core/mod.ts";
import { readPid, workerAlive } from "../../lib/delegation/mod.ts";
import { cli } from "../support/cli.ts";
import { spawnCli } from "../support/process.ts";
import {
  CHATTY_TEXTS,
  CHATTY_TOOL_CALL,
  CONTROL_TEXT,
  type HostileMode,
  type HostileOptions,
  QUIET_QUESTION,
  startHostileAgent,
} from "../support/hostile_agent.ts";
import { type HostileHome, hostileHome } from "../support/hostile_home.ts";

/** The most resident memory a worker may reach, in KiB. */
const PEAK_RSS_LIMIT_KB = 200 * 1024;

interface Setup extends HostileHome {
  mode: HostileMode;
}

async function observal(setup: { home: string; env: Env }, args: string[], extra: Env = {}) {
  return await cli(args, { env: { ...setup.env, ...extra }, cwd: setup.home });
}

/** A home whose embedded registry trusts 127.0.0.1, with the hostile agent's card approved. */
async function setUp(mode: HostileMode, options: HostileOptions = {}): Promise<Setup> {
  return { mode, ...await hostileHome(mode, options, { OBSERVAL_TEST_PEAK_RSS: "1" }) };
}

interface Outcome {
  task: Task;
  elapsedMs: number;
  peakRssKb: number;
}

/**
 * Runs `delegate run --json` (or `command`), then waits for the process that ran the task
 * (the command itself, or its worker) to exit and reads its peak memory.
 */
async function delegate(
  setup: Setup,
  args: string[] = [],
  extra: Env = {},
  command = ["delegate", "run", setup.identifier, "Do the job"],
): Promise<Outcome> {
  const started = Date.now();
  // Its own process: `run` may run the task itself, and its memory is what is measured.
  const r = await spawnCli(
    { ...setup.env, ...extra },
    setup.home,
    [...command, "--wait", "120", "--json", ...args],
  ).done;
  const elapsedMs = Date.now() - started;
  const task = JSON.parse(r.stdout) as Task;
  assert.ok(task.id, r.stderr);
  const dir = join(setup.home, "delegations", task.id);
  const pid = readPid(dir);
  assert.ok(pid, "the worker recorded its pid");
  const deadline = Date.now() + 15_000;
  while (workerAlive(pid, task.id, dir)) {
    assert.ok(Date.now() < deadline, `worker ${pid} did not exit`);
    await new Promise((res) => setTimeout(res, 20));
  }
  const log = readFileSync(join(dir, "worker.log"), "utf8");
  // The log is appended to by every worker of the task: the last line is this one's.
  const peak = [...log.matchAll(/peak_rss_kb (\d+)/g)].at(-1);
  assert.ok(peak, `no peak memory in worker.log:\n${log}`);
  const peakRssKb = Number(peak[1]);
  console.log(`${setup.mode}: ${task.status.state} in ${elapsedMs} ms, peak RSS ${peakRssKb} KiB`);
  assert.ok(peakRssKb < PEAK_RSS_LIMIT_KB, `peak RSS ${peakRssKb} KiB`);
  return { task, elapsedMs, peakRssKb };
}

function statusText(task: Task): string {
  return partsText(task.status.message?.parts ?? []);
}

interface FailureCase {
  name: string;
  mode: HostileMode;
  options?: HostileOptions;
  args?: string[];
  message: RegExp;
  /** The agent is asked to cancel the task (observal stopped following it). */
  canceled: boolean;
  boundMs: number;
}

const FAILURES: FailureCase[] = [
  {
    name: "an endless JSON body",
    mode: "endless-json",
    message: /JSON-RPC response larger than 8 MiB, past the OBSERVAL_A2A_MAX_RESPONSE_BYTES/,
    canceled: false,
    boundMs: 30_000,
  },
  {
    name: "a huge Content-Length",
    mode: "huge-content-length",
    message: /JSON-RPC response larger than 8 MiB, past the OBSERVAL_A2A_MAX_RESPONSE_BYTES/,
    canceled: false,
    boundMs: 30_000,
  },
  {
    name: "an SSE line that never ends",
    mode: "endless-sse-line",
    message: /stream event or line larger than 8 MiB, past the OBSERVAL_A2A_MAX_EVENT_BYTES/,
    canceled: false,
    boundMs: 30_000,
  },
  {
    name: "a stream that talks past the deadline",
    mode: "stream-past-deadline",
    args: ["--timeout", "2"],
    message: /Timed out after 2 seconds.*--timeout/,
    canceled: true,
    boundMs: 15_000,
  },
  {
    name: "10 000 artifacts",
    mode: "many-artifacts",
    message:
      /more than 1000 artifacts, past the OBSERVAL_A2A_MAX_ARTIFACTS limit.*set OBSERVAL_A2A_MAX_ARTIFACTS/,
    canceled: true,
    boundMs: 30_000,
  },
  {
    name: "one huge artifact",
    mode: "huge-artifact",
    message: /artifacts larger than 4 MiB in all, past the OBSERVAL_A2A_MAX_ARTIFACT_BYTES/,
    canceled: true,
    boundMs: 30_000,
  },
  {
    name: "a changing task id",
    mode: "changing-task-id",
    message: /answered about task "other-[^"]+" while following task "task-[^"]+"/,
    canceled: true,
    boundMs: 30_000,
  },
  {
    name: "an unknown state",
    mode: "unknown-state",
    message: /reported the task state "TASK_STATE_PAUSED", which A2A does not define/,
    canceled: true,
    boundMs: 30_000,
  },
];

for (const c of FAILURES) {
  Deno.test(`delegate run against a hostile agent: ${c.name} fails the task, bounded`, async () => {
    const setup = await setUp(c.mode, c.options);
    try {
      const { task, elapsedMs } = await delegate(setup, c.args);
      assert.equal(task.status.state, "TASK_STATE_FAILED", JSON.stringify(task.status));
      assert.match(statusText(task), c.message);
      assert.ok(elapsedMs < c.boundMs, `settled after ${elapsedMs} ms`);
      const remoteId = task.metadata.observal.remoteTaskId;
      if (c.canceled) {
        assert.ok(remoteId, "the remote task was known");
        assert.deepEqual(setup.agent.canceled, [remoteId], "the agent was told to stop");
      } else {
        assert.deepEqual(setup.agent.canceled, []);
      }
    } finally {
      await setup.close();
    }
  });
}

Deno.test("delegate run against a hostile agent: terminal control sequences are delivered as sent", async () => {
  const setup = await setUp("control-sequences");
  try {
    const { task } = await delegate(setup);
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    // The data is kept whole; --json escapes it, and human output is escaped when printed.
    assert.equal(statusText(task), CONTROL_TEXT);
    assert.equal(partsText(task.artifacts?.[0]?.parts ?? []), CONTROL_TEXT);
  } finally {
    await setup.close();
  }
});

Deno.test("delegate run against a hostile agent: a 5xx burst while polling is retried until it recovers", async () => {
  const setup = await setUp("flaky-polling", { failures: 4 });
  try {
    const { task } = await delegate(setup);
    assert.equal(task.status.state, "TASK_STATE_COMPLETED", JSON.stringify(task.status));
    assert.equal(partsText(task.artifacts?.[0]?.parts ?? []), "recovered");
    assert.deepEqual(setup.agent.rpcMethods(), [
      "SendMessage",
      ...Array(5).fill("GetTask"),
    ]);
  } finally {
    await setup.close();
  }
});

for (const address of ["127.0.0.1", "169.254.169.254"]) {
  Deno.test(`delegate run: an endpoint name that resolves to ${address} at call time is refused, nothing sent`, async () => {
    // Imported while its name was harmless; by call time it points inside.
    const setup = await setUp("complete", { endpoint: "https://agent.hostile.test:8443/rpc" });
    try {
      const { task } = await delegate(setup, [], {
        OBSERVAL_A2A_RESOLVE: `agent.hostile.test=${address}`,
      });
      assert.equal(task.status.state, "TASK_STATE_FAILED", JSON.stringify(task.status));
      assert.match(
        statusText(task),
        new RegExp(
          `Refused agent\\.hostile\\.test: it resolves to the private or reserved address ${
            address.replaceAll(".", "\\.")
          }`,
        ),
      );
      assert.match(statusText(task), /discovery\.a2a_private_hosts/);
      assert.deepEqual(setup.agent.rpcMethods(), [], "no request reached any agent");
    } finally {
      await setup.close();
    }
  });
}

Deno.test("registry a2a submit refuses cards whose endpoint is loopback, private, link-local or metadata", async () => {
  const endpoints = [
    ["loopback", "http://127.0.0.2:8080/rpc", /127\.0\.0\.2/],
    ["private", "https://10.1.2.3/rpc", /10\.1\.2\.3 is a private, loopback or reserved address/],
    ["link-local", "https://[fe80::1]/rpc", /fe80::1 is a private, loopback or reserved address/],
    ["metadata", "http://169.254.169.254/latest/meta-data", /cloud metadata service/],
    ["metadata name", "https://metadata.google.internal/rpc", /cloud metadata service/],
  ] as const;
  for (const [kind, endpoint, why] of endpoints) {
    const agent = await startHostileAgent("complete", { endpoint });
    const home = mkdtempSync(join(tmpdir(), "observal-hostile-"));
    const setup = { home, env: { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" } };
    try {
      await observal(setup, [
        "registry",
        "settings",
        "set",
        "discovery.a2a_private_hosts",
        "127.0.0.1",
      ]);
      const r = await observal(setup, ["registry", "a2a", "submit", agent.cardUrl, "--json"]);
      assert.equal(r.code, 7, `${kind}: ${r.stdout}${r.stderr}`);
      const printed = JSON.parse(r.stderr);
      const error = printed.error ?? printed;
      assert.equal(error.errorCode, "INVALID_AGENT_CARD", kind);
      assert.match(error.message, /Refused the card's JSONRPC interface/, kind);
      assert.match(error.message, why, kind);
      assert.deepEqual(agent.rpcMethods(), [], kind);
      const list = await observal(setup, ["registry", "a2a", "list", "--json"]);
      assert.equal(JSON.parse(list.stdout).total, 0, `${kind}: nothing was registered`);
    } finally {
      await agent.close();
      rmSync(home, { recursive: true, force: true });
    }
  }
});

Deno.test("delegate run and reply: a chatty agent's streamed messages are kept in order, its last is the answer", async () => {
  // As Gemini CLI's A2A server does: the answer only ever travels in working status
  // updates, and the turn ends with input-required and no message.
  const setup = await setUp("chatty-input", { protocol: "0.3" });
  try {
    const { task } = await delegate(setup);
    assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED", JSON.stringify(task.status));
    assert.equal(statusText(task), CHATTY_TEXTS[1], "the status shows what the agent said last");
    const said = (t: Task) =>
      (t.history ?? []).map((m) => [m.role, m.parts.map((p) => p.text ?? p.data)]);
    assert.deepEqual(said(task), [
      ["ROLE_USER", ["Do the job"]],
      ["ROLE_AGENT", [CHATTY_TEXTS[0]]],
      ["ROLE_AGENT", [CHATTY_TOOL_CALL]],
      ["ROLE_AGENT", [CHATTY_TEXTS[1]]],
    ]);
    const human = await observal(setup, ["delegate", "status", task.id]);
    assert.match(human.stdout, /The answer is 42\./);
    // The reply resumes the task; the next turn is kept the same way, nothing twice.
    const { task: after } = await delegate(setup, [], {}, ["delegate", "reply", task.id, "Thanks"]);
    assert.equal(after.status.state, "TASK_STATE_INPUT_REQUIRED", JSON.stringify(after.status));
    assert.equal(statusText(after), CHATTY_TEXTS[1]);
    assert.deepEqual(said(after), [
      ...said(task),
      ["ROLE_USER", ["Thanks"]],
      ["ROLE_AGENT", [CHATTY_TEXTS[0]]],
      ["ROLE_AGENT", [CHATTY_TOOL_CALL]],
      ["ROLE_AGENT", [CHATTY_TEXTS[1]]],
    ]);
    const ids = (after.history ?? []).map((m) => m.messageId);
    assert.equal(new Set(ids).size, ids.length, "no message is kept twice");
  } finally {
    await setup.close();
  }
});

Deno.test("delegate run: a task that completes without a message or artifact answers with its last message", async () => {
  for (const protocol of ["1.0", "0.3"] as const) {
    const setup = await setUp("chatty-complete", { protocol });
    try {
      const { task } = await delegate(setup);
      assert.equal(task.status.state, "TASK_STATE_COMPLETED", JSON.stringify(task.status));
      assert.equal(statusText(task), CHATTY_TEXTS[1]);
      assert.deepEqual(task.artifacts, [{
        artifactId: "result",
        name: "result",
        parts: [{ text: CHATTY_TEXTS[1] }],
      }]);
      const mcpView = await observal(setup, ["delegate", "status", task.id]);
      assert.match(mcpView.stdout, /The answer is 42\./);
    } finally {
      await setup.close();
    }
  }
});

Deno.test("delegate run: a loopback endpoint is called only while its host is allowlisted", async () => {
  const setup = await setUp("complete");
  try {
    const allowed = await delegate(setup);
    assert.equal(allowed.task.status.state, "TASK_STATE_COMPLETED");
    assert.deepEqual(setup.agent.rpcMethods(), ["SendMessage"]);
    // An administrator withdraws the exemption after approval: the next call is refused.
    const set = await observal(setup, [
      "registry",
      "settings",
      "set",
      "discovery.a2a_private_hosts",
      "agents.corp.example",
    ]);
    assert.equal(set.code, 0, set.stderr);
    const { task } = await delegate(setup);
    assert.equal(task.status.state, "TASK_STATE_FAILED", JSON.stringify(task.status));
    assert.match(statusText(task), /Refused 127\.0\.0\.1: it is a private, loopback or reserved/);
    assert.deepEqual(setup.agent.rpcMethods(), ["SendMessage"], "nothing more was sent");
  } finally {
    await setup.close();
  }
});

Deno.test("delegate reply: an answer that ends the task quietly is not mistaken for the old question", async () => {
  const setup = await setUp("quiet-after-reply");
  try {
    const { task } = await delegate(setup);
    assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED", JSON.stringify(task.status));
    assert.equal(statusText(task), QUIET_QUESTION);
    const { task: after } = await delegate(setup, [], {}, ["delegate", "reply", task.id, "main"]);
    assert.equal(after.status.state, "TASK_STATE_COMPLETED", JSON.stringify(after.status));
    assert.equal(after.status.message, undefined, "the agent said nothing new");
    assert.deepEqual(after.artifacts, [], "no result is made up from the earlier question");
    assert.deepEqual(
      (after.history ?? []).map((m) => partsText(m.parts)),
      ["Do the job", QUIET_QUESTION, "main"],
    );
  } finally {
    await setup.close();
  }
});
