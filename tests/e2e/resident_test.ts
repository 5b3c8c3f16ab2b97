/**
 * The resident runner, as a person meets it: `OBSERVAL_RESIDENT=on` (what `auto` means at a
 * terminal), a first `delegate run` that runs itself and starts a runner, and the next ones
 * from the same caller run there: the same task, patch and output, with Ctrl-C, a killed
 * command and idleness handled as they are without one. A caller unlike the one that
 * started it (another environment, another umask) runs its command itself. The CLI runs
 * as its own process from a shell inside the caller's repository (PWD, OLDPWD, GIT_DIR, ...
 * set), its home reached through a link, with a stand-in harness that waits for a gate file
 * where a test needs it running.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { readPid } from "../../lib/delegation/mod.ts";
import { pidExists } from "../../lib/process/mod.ts";
import { handlesSigint, until } from "../support/gated_agent.ts";
import { interruptTwice, slowCopy } from "../support/interrupt_twice.ts";
import { buildNpm } from "../packaging/_pack.ts";
import { PROJECT_NODE } from "../packaging/_node_versions.ts";
import {
  countingClaude,
  type LocalPlayground,
  localPlayground,
} from "../support/local_delegation.ts";
import {
  callerShell,
  MAIN,
  residentListening,
  residentRunners,
  spawnCli,
  stopResidentRunners,
} from "../support/process.ts";

interface Setup extends LocalPlayground {
  gate: string;
  starts: string;
  runEnv: Record<string, string | undefined>;
  /** `delegate run AGENT --json -- BRIEF` from the repository, with `env` added. */
  run(env?: Record<string, string>): ReturnType<typeof spawnCli>;
  /** The pid of this home's runner, once one listens. */
  runner(): Promise<number>;
  /** The pids of this home's runners now. */
  runners(): number[];
  started(): number[];
}

const REPO = join(import.meta.dirname!, "..", "..");

async function setup(gated = false): Promise<Setup> {
  const pg = await localPlayground({
    env: { OBSERVAL_SANDBOX: "off", OBSERVAL_RESIDENT: "on", OBSERVAL_RESIDENT_IDLE: "120" },
  });
  pg.program("claude", countingClaude({ gated: true }));
  const gate = join(pg.root, "gate");
  if (!gated) writeFileSync(gate, "");
  mkdirSync(join(pg.root, ".claude"), { recursive: true });
  const starts = join(pg.root, ".claude", "starts");
  // As a person runs it: from a shell inside the repository, the home reached through a link.
  const linkedHome = join(pg.root, "home-link");
  symlinkSync(pg.home, linkedHome);
  const runEnv = {
    ...pg.env,
    ...callerShell(pg.repo),
    OBSERVAL_HOME: linkedHome,
    GATE: gate,
    STARTS: starts,
  };
  const args = ["delegate", "run", pg.identifier, "--harness", "claude-code", "--json"];
  const runners = () => residentRunners(linkedHome);
  return Object.assign(pg, {
    gate,
    starts,
    runEnv,
    run: (env: Record<string, string> = {}) =>
      spawnCli({ ...runEnv, ...env }, pg.repo, [...args, "--", "Edit it"]),
    runners,
    runner: () =>
      until("the runner to listen", () => {
        const [pid] = runners();
        return Promise.resolve(pid && residentListening(pid) ? pid : undefined);
      }),
    started: () =>
      existsSync(starts)
        ? readFileSync(starts, "utf8").trim().split("\n").filter(Boolean).map(Number)
        : [],
  });
}

async function close(s: Setup): Promise<void> {
  try {
    await stopResidentRunners(s.runEnv.OBSERVAL_HOME!);
  } finally {
    await s.close();
  }
}

function taskOf(stdout: string): Task {
  return JSON.parse(stdout) as Task;
}

function patchOf(s: Setup, id: string): string {
  return readFileSync(join(s.home, "delegations", id, "changes.patch"), "utf8");
}

Deno.test("a second delegate run goes to the runner the first started: the same task, patch and output", async () => {
  const s = await setup();
  try {
    const first = s.run();
    const one = await first.done;
    assert.equal(one.code, 0, one.stderr);
    const a = taskOf(one.stdout);
    assert.equal(readPid(join(s.home, "delegations", a.id)), first.pid, "the first ran itself");
    const runner = await s.runner();

    const second = s.run();
    const two = await second.done;
    assert.equal(two.code, 0, two.stderr);
    const b = taskOf(two.stdout);
    assert.equal(b.status.state, "TASK_STATE_COMPLETED", JSON.stringify(b.status));
    assert.equal(readPid(join(s.home, "delegations", b.id)), runner, "the runner ran the second");
    assert.deepEqual(s.runners(), [runner], "no second runner");
    // What each printed and kept is the same, but for ids and times.
    assert.equal(patchOf(s, b.id), patchOf(s, a.id));
    assert.equal(b.artifacts?.[0]?.parts[0]?.text, a.artifacts?.[0]?.parts[0]?.text);
    assert.equal(two.stderr, one.stderr);
    assert.equal(
      b.metadata.observal.workspace === undefined,
      a.metadata.observal.workspace === undefined,
    );
    assert.equal(s.git("status", "--porcelain"), "", "the caller's repository is untouched");
    assert.equal(s.started().length, 2);
  } finally {
    await close(s);
  }
});

Deno.test("a caller unlike the one that started the runner runs its command itself", async () => {
  const s = await setup();
  try {
    assert.equal((await s.run().done).code, 0);
    const runner = await s.runner();

    // One more variable: another runner's place, so it runs itself and starts that one.
    const other = s.run({ EXTRA: "1" });
    const ran = await other.done;
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(readPid(join(s.home, "delegations", taskOf(ran.stdout).id)), other.pid);
    await until("a second runner", () => Promise.resolve(s.runners().length === 2 || undefined));

    // Another umask: same environment, but the runner sees the caller's process differ.
    const umask = new Deno.Command("/bin/sh", {
      args: ["-c", 'umask 077; exec "$@"', "sh", Deno.execPath(), "run", "-A", MAIN, ...[
        "delegate",
        "run",
        s.identifier,
        "--harness",
        "claude-code",
        "--json",
        "--",
        "Edit it",
      ]],
      env: s.runEnv as Record<string, string>,
      cwd: s.repo,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const out = await umask.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const task = taskOf(new TextDecoder().decode(out.stdout));
    assert.equal(readPid(join(s.home, "delegations", task.id)), umask.pid, "it ran itself");
    assert.ok(s.runners().includes(runner), "the runner goes on");
  } finally {
    await close(s);
  }
});

/** The first run, which starts the runner, then the gate shut: the next child waits. */
async function runnerWithGateShut(s: Setup): Promise<number> {
  assert.equal((await s.run().done).code, 0);
  const runner = await s.runner();
  Deno.removeSync(s.gate);
  return runner;
}

/** The newest task, once the runner has started its child. */
function childStarted(s: Setup): Promise<Task> {
  return until("the child to start", async () => {
    if (s.started().length < 2) return undefined;
    const list = await s.json(["delegate", "list"]);
    const [t] = (list.body as unknown as { items: Task[] }).items;
    return t?.metadata.observal.childStartTime ? t : undefined;
  });
}

async function assertCompleted(s: Setup, id: string): Promise<void> {
  const done = (await s.json(["delegate", "status", id, "--wait", "60"])).body as unknown as Task;
  assert.equal(done.status.state, "TASK_STATE_COMPLETED", JSON.stringify(done.status));
  assert.match(patchOf(s, id), /^\+four$/m);
  assert.equal(s.git("status", "--porcelain"), "", "the caller's repository is untouched");
}

Deno.test("Ctrl-C through the runner hands the task to a worker, as without one", async () => {
  const s = await setup();
  try {
    const runner = await runnerWithGateShut(s);
    const caller = s.run();
    const task = await childStarted(s);
    assert.equal(readPid(join(s.home, "delegations", task.id)), runner);
    await handlesSigint(caller.pid);
    caller.kill("SIGINT");
    const ran = await caller.done;
    assert.equal(ran.code, 10, ran.stderr);
    assert.match(ran.stderr, new RegExp(`Task ${task.id} keeps running`));
    const worker = readPid(join(s.home, "delegations", task.id));
    assert.ok(worker !== undefined && worker !== runner && pidExists(worker), `${worker}`);
    writeFileSync(s.gate, "");
    await assertCompleted(s, task.id);
    assert.ok(pidExists(runner), "the runner goes on");
  } finally {
    await close(s);
  }
});

Deno.test("a second Ctrl-C through the runner stops the task and ends the runner, as it would the command", async () => {
  const s = await setup();
  const copied = join(s.root, "copy-gate");
  try {
    assert.equal((await s.run().done).code, 0);
    const runner = await s.runner();
    // The copy waits for a gate, so the first Ctrl-C cannot hand the task over yet.
    slowCopy(s, copied);

    const caller = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "delegate", "run", s.identifier, "--harness", "claude-code"]
        .concat(["--json", "--", "Edit it"]),
      env: s.runEnv as Record<string, string>,
      cwd: s.repo,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const task = await until("the copy to be under way", async () => {
      const list = await s.json(["delegate", "list"]);
      const [t] = (list.body as unknown as { items: Task[] }).items;
      return t?.status.state === "TASK_STATE_WORKING" ? t : undefined;
    });
    assert.equal(readPid(join(s.home, "delegations", task.id)), runner);
    await handlesSigint(caller.pid);
    await interruptTwice(s, caller, () => caller.kill("SIGINT"), task.id, copied);
    await until("the runner to end", () => Promise.resolve(pidExists(runner) ? undefined : true));
  } finally {
    writeFileSync(copied, "");
    await close(s);
  }
});

Deno.test("a command killed while the runner runs it: its task goes on in a worker and completes", async () => {
  const s = await setup();
  try {
    const runner = await runnerWithGateShut(s);
    const caller = s.run();
    const task = await childStarted(s);
    caller.kill("SIGKILL");
    await caller.done;
    const dir = join(s.home, "delegations", task.id);
    await until("a worker to take the task", () => {
      const pid = readPid(dir);
      return Promise.resolve(pid !== undefined && pid !== runner ? pid : undefined);
    });
    writeFileSync(s.gate, "");
    await assertCompleted(s, task.id);
    assert.equal(s.started().length, 2, "the child ran once");
  } finally {
    await close(s);
  }
});

Deno.test("the runner ends after its idle time, and leaves no socket or lock", async () => {
  const s = await setup();
  try {
    assert.equal((await s.run({ OBSERVAL_RESIDENT_IDLE: "1" }).done).code, 0);
    const runner = await until("the runner", () => Promise.resolve(s.runners()[0]));
    const cmd = readFileSync(`/proc/${runner}/cmdline`, "utf8").split("\0");
    const name = cmd.at(-2)!;
    await until("the runner to end", () => Promise.resolve(pidExists(runner) ? undefined : true));
    const dir = `/tmp/observal-resident-${Deno.uid()}`;
    assert.ok(!existsSync(join(dir, `${name}.sock`)), "its socket is gone");
    assert.ok(!existsSync(join(dir, `${name}.lock`)), "its lock is gone");
    assert.ok(!existsSync(join(dir, `${name}.log`)), "its log is gone");
  } finally {
    await close(s);
  }
});

Deno.test("an agent in its sandbox cannot see the runners' folder, also when the runner started it", async () => {
  const s = await setup();
  try {
    s.program(
      "claude",
      `#!/bin/sh
cat > /dev/null
# The runners' folder is named by the uid outside; inside, the sandbox maps it to another.
dir=/tmp/observal-resident-${Deno.uid()}
if [ -e "$dir" ]; then seen=visible; elif [ -d /tmp ] && [ -w /tmp ]; then seen=hidden; fi
printf '{"type":"result","result":"%s","is_error":false,"session_id":"s"}\\n' "$seen"
`,
    );
    const answers: string[] = [];
    for (let i = 0; i < 2; i++) {
      const caller = s.run({ OBSERVAL_SANDBOX: "on" });
      const ran = await caller.done;
      assert.equal(ran.code, 0, ran.stderr);
      const task = taskOf(ran.stdout);
      assert.equal(task.metadata.observal.sandbox, "bwrap");
      const pid = readPid(join(s.home, "delegations", task.id));
      assert.equal(pid === caller.pid, i === 0, "the first ran itself, the second in the runner");
      answers.push(task.artifacts?.[0]?.parts[0]?.text ?? "");
      if (i === 0) await s.runner();
    }
    assert.ok(existsSync(`/tmp/observal-resident-${Deno.uid()}`), "it is there outside");
    assert.deepEqual(answers, ["hidden", "hidden"]);
  } finally {
    await close(s);
  }
});

Deno.test("under Node (the npm package) too: the second run goes to the runner the first started", async () => {
  const s = await setup();
  // Built inside the repository, so Node finds its dependencies as after an install.
  mkdirSync(join(REPO, "tmp"), { recursive: true });
  const pkg = Deno.makeTempDirSync({ dir: join(REPO, "tmp"), prefix: "resident-npm-" });
  try {
    buildNpm(pkg);
    const run = () =>
      new Deno.Command(PROJECT_NODE, {
        args: [join(pkg, "bin", "observal.mjs"), "delegate", "run", s.identifier, "--json"]
          .concat(["--harness", "claude-code", "--", "Edit it"]),
        env: s.runEnv as Record<string, string>,
        cwd: s.repo,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    const first = run();
    const one = await first.output();
    assert.equal(one.code, 0, new TextDecoder().decode(one.stderr));
    const a = taskOf(new TextDecoder().decode(one.stdout));
    assert.equal(readPid(join(s.home, "delegations", a.id)), first.pid, "the first ran itself");
    const runner = await s.runner();
    assert.match(readFileSync(`/proc/${runner}/cmdline`, "utf8"), /observal\.mjs\0delegate/);

    const two = await run().output();
    assert.equal(two.code, 0, new TextDecoder().decode(two.stderr));
    const b = taskOf(new TextDecoder().decode(two.stdout));
    assert.equal(b.status.state, "TASK_STATE_COMPLETED", JSON.stringify(b.status));
    assert.equal(readPid(join(s.home, "delegations", b.id)), runner, "the runner ran the second");
    assert.equal(patchOf(s, b.id), patchOf(s, a.id));
    assert.equal(s.git("status", "--porcelain"), "", "the caller's repository is untouched");
  } finally {
    Deno.removeSync(pkg, { recursive: true });
    await close(s);
  }
});

Deno.test("a home has at most four runners: a fifth caller environment runs cold and starts none", async () => {
  const s = await setup();
  try {
    for (let i = 1; i <= 5; i++) {
      const ran = await s.run({ CALLER: String(i) }).done;
      assert.equal(ran.code, 0, ran.stderr);
      if (i <= 4) {
        await until(`runner ${i}`, () => {
          const listening = s.runners().filter(residentListening);
          return Promise.resolve(listening.length === i ? true : undefined);
        });
      }
    }
    // The fifth would have started by now, as each of the four did before the next run.
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(s.runners().length, 4);
  } finally {
    await close(s);
  }
});

/** A raw connection to `pid`'s socket: sends `lines`, returns what came back until it closed. */
async function rawExchange(pid: number, ...lines: string[]): Promise<string> {
  const name = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").at(-2);
  const conn = await Deno.connect({
    transport: "unix",
    path: `/tmp/observal-resident-${Deno.uid()}/${name}.sock`,
  });
  for (const line of lines) await conn.write(new TextEncoder().encode(line));
  return await new Response(conn.readable).text();
}

Deno.test("the runner refuses what no caller of its own would send, and drops a silent connection", async () => {
  const s = await setup();
  try {
    assert.equal((await s.run().done).code, 0);
    const runner = await s.runner();
    const request = (argv: string[]) =>
      JSON.stringify({
        argv,
        cwd: s.repo,
        env: s.runEnv,
        isTTY: false,
        startedAt: performance.timeOrigin,
        pid: Deno.pid,
      }) + "\n";
    assert.equal(
      await rawExchange(runner, "{not json\n"),
      '{"busy":"a request it could not read"}\n',
    );
    assert.equal(
      await rawExchange(runner, request(["registry", "serve"])),
      '{"busy":"not a command it runs"}\n',
    );
    // A command it runs, from a process unlike its caller (this test's).
    assert.equal(
      await rawExchange(runner, request(["delegate", "run", s.identifier, "x"])),
      '{"busy":"a caller unlike the one that started it"}\n',
    );
    // Connected, then silent: the runner is busy until it gives up on it.
    const silent = rawExchange(runner);
    const meanwhile = s.run();
    const ran = await meanwhile.done;
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(
      readPid(join(s.home, "delegations", taskOf(ran.stdout).id)),
      meanwhile.pid,
      "a caller that came meanwhile ran its command itself",
    );
    assert.equal(await silent, "", "the silent connection was closed");
    const after = await s.run().done;
    assert.equal(readPid(join(s.home, "delegations", taskOf(after.stdout).id)), runner);
  } finally {
    await close(s);
  }
});
