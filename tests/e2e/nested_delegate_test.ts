/**
 * Agents delegate from inside a real harness: a registry Agent runs in Claude Code, whose
 * observal-agents server (the entry the workspace install wrote) lets its scripted model
 * find agents, delegate to a remote A2A agent and to another registry Agent, which in turn
 * is refused by the depth guard one level further down.
 */
import assert from "node:assert/strict";
import type { Task } from "../../lib/a2a/mod.ts";
import { createContext, systemClock } from "../../lib/core/mod.ts";
import { openRegistryClient } from "../../lib/cli/open_registry_client.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { startV1Agent } from "../support/a2a_agents.ts";
import { importCard } from "../support/delegation.ts";
import { ensureHarnessCli, harnessTestEnv } from "../support/harness_clis.ts";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  agentYaml,
  localPlayground,
  MCP_CALLING_CLAUDE,
  publishApproved,
} from "../support/local_delegation.ts";
import { type ScriptStep, scriptText, startModelServer } from "../support/model_server.ts";
import { callerShell, MAIN } from "../support/process.ts";

/** Pids of processes whose command line holds `text`. */
function processesWith(text: string): number[] {
  const out = new Deno.Command("pgrep", { args: ["-f", "--", text] }).outputSync();
  return new TextDecoder().decode(out.stdout).trim().split("\n").filter(Boolean).map(Number);
}

/**
 * A `delegate run` of the playground's Agent through the stand-in Claude Code, which makes
 * the tool calls `env` plans: the completed task, its answer and its status message.
 */
async function runStandIn(
  pg: Awaited<ReturnType<typeof localPlayground>>,
  env: Record<string, string>,
): Promise<{ outer: Task; result: string; message: string }> {
  const run = await pg.json(
    ["delegate", "run", pg.identifier, "--harness", "claude-code", "--wait", "120", "--", "Go"],
    { env },
  );
  const outer = run.body as unknown as Task;
  assert.equal(
    outer.status?.state,
    "TASK_STATE_COMPLETED",
    `${JSON.stringify(outer.status)}\n${run.stderr}`,
  );
  return {
    outer,
    result: outer.artifacts?.find((a) => a.name === "result")?.parts[0].text ?? "",
    message: outer.status.message?.parts[0].text ?? "",
  };
}

/** The one task started with parent `parentId`, as the store in `home` holds it now. */
function onlyChild(home: string, parentId: string): Task {
  const store = openTaskStore({ home, clock: systemClock });
  try {
    const children = store.list({ limit: 10 }).items.filter((t) =>
      t.metadata.observal.parentTaskId === parentId
    );
    assert.equal(children.length, 1, JSON.stringify(children.map((t) => t.id)));
    return children[0];
  } finally {
    store.close();
  }
}

function scripted(name: string, steps: ScriptStep[]): string {
  return agentYaml(name).replace(
    "  You fix small things.\n",
    `  You follow a scripted plan. ${scriptText(steps)}\n`,
  ).replace(
    "supported_harnesses: [claude-code, codex, pi, opencode, copilot-cli]",
    "supported_harnesses: [claude-code]",
  );
}

Deno.test("a registry Agent in Claude Code finds and delegates through observal-agents; depth holds below", async () => {
  const cli = await ensureHarnessCli("claude-code");
  const model = await startModelServer();
  const remote = await startV1Agent({ name: "Echo Agent", behaviour: "complete" });
  // The inner agent tries to delegate one level further; the refusal must reach its model.
  const pg = await localPlayground({
    yaml: scripted("inner", [
      { call: { tool: "delegate", args: { agent: "PLACEHOLDER", message: "go deeper" } } },
      { echo: "Inner saw: " },
    ]),
  });
  try {
    const ctx = createContext({ env: pg.env, cwd: pg.repo });
    const admin = openRegistryClient(ctx);
    let outerId = "";
    const { identifier: remoteId } = await importCard(pg.env, pg.repo, remote.cardUrl);
    try {
      // The inner agent's plan names the remote agent: publish it again with that filled in.
      const inner = scripted("inner", [
        { call: { tool: "delegate", args: { agent: remoteId, message: "go deeper" } } },
        { echo: "Inner saw: " },
      ]).replace("version: 1.0.0", "version: 1.0.1");
      const innerDoc = await admin.publishAgent({ yaml: inner, visibility: "public" });
      await admin.reviewAgent(pg.identifier, {
        action: "approve",
        digest: String(innerDoc["obs:artifactDigest"]),
      });
      const outer = scripted("outer", [
        { call: { tool: "find_agents", args: { task: "echo things back" } } },
        {
          call: {
            tool: "delegate",
            args: { agent: remoteId, message: "hello remote", wait_seconds: 30 },
          },
        },
        {
          call: {
            tool: "delegate",
            args: { agent: pg.identifier, message: "do the inner part", wait_seconds: 50 },
          },
        },
        { echo: "Outer got: " },
      ]);
      const outerDoc = await admin.publishAgent({ yaml: outer, visibility: "public" });
      outerId = String(outerDoc.identifier);
      await admin.reviewAgent(outerId, {
        action: "approve",
        digest: String(outerDoc["obs:artifactDigest"]),
      });
    } finally {
      admin.close();
    }

    const env: Record<string, string> = {
      ...(pg.env as Record<string, string>),
      ...harnessTestEnv("claude-code", { home: pg.root, modelUrl: model.url }),
      CLAUDE_CODE_MAX_RETRIES: "1",
    };
    env.PATH = `${cli.binDir}:${env.PATH}`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "delegate",
        "run",
        outerId,
        "--harness",
        "claude-code",
        "--json",
        "--wait",
        "300",
        "--",
        "Run your plan.",
      ],
      cwd: pg.repo,
      env,
      clearEnv: true,
      stdin: "null",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const task = JSON.parse(stdout || "{}") as Task;
    const detail =
      `${stdout.slice(-3000)}\n${new TextDecoder().decode(out.stderr).slice(-2000)}\n` +
      model.requests().map((q) => `${q.path} -> ${q.reply}`).join("\n");
    assert.equal(task.status?.state, "TASK_STATE_COMPLETED", detail);
    const result = task.artifacts?.find((a) => a.name === "result")?.parts[0].text ?? "";
    // The outer model saw the inner task's summary, and the inner model saw the refusal.
    assert.match(result, /^Outer got: /, detail);
    assert.match(result, /state: TASK_STATE_COMPLETED/);
    assert.match(result, /Inner saw: .*Delegation depth limit reached/s);

    // What the store recorded: both delegations hang under the outer task, one level down.
    const store = openTaskStore({ home: pg.home, clock: systemClock });
    try {
      const all = store.list({ limit: 10 }).items;
      const children = all.filter((t) => t.metadata.observal.parentTaskId === task.id);
      assert.deepEqual(
        children.map((t) => [t.metadata.observal.kind, t.metadata.observal.depth, t.status.state])
          .sort(),
        [["a2a", 1, "TASK_STATE_COMPLETED"], ["agent", 1, "TASK_STATE_COMPLETED"]],
      );
      // The refused delegation never became a task.
      assert.equal(all.length, 3);
    } finally {
      store.close();
    }
    // find_agents answered the outer model with both kinds of agent.
    assert.ok(
      model.requests().some((q) =>
        JSON.stringify(q.body).includes(remoteId) &&
        JSON.stringify(q.body).includes("Echo Agent")
      ),
    );
  } finally {
    await pg.close();
    await remote.close();
    await model.close();
  }
});

Deno.test("what a sandboxed agent delegated and left running is canceled when its run ends", async () => {
  const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: "on" } });
  try {
    pg.program("claude", MCP_CALLING_CLAUDE);
    // The stand-ins note their starts in Claude Code's state folder, writable in a sandbox.
    mkdirSync(join(pg.root, ".claude"), { recursive: true });
    const starts = join(pg.root, ".claude", "starts");
    const helper = await publishApproved(pg.env, pg.repo, agentYaml("helper"));
    // The agent hands a task to the helper, which never finishes, and stops waiting for it.
    const calls = {
      fixer: {
        name: "delegate",
        arguments: { agent: helper.identifier, message: "Take your time.", wait_seconds: 1 },
        // Its run ends once the helper's harness runs.
        awaitStarts: 2,
      },
      helper: "block",
    };
    const env = { STANDIN_CALLS: JSON.stringify(calls), STARTS: starts };
    const { outer, result, message } = await runStandIn(pg, env);
    assert.match(result, /state: TASK_STATE_(WORKING|SUBMITTED)/, result);
    assert.match(
      message,
      /1 task\(s\) the agent delegated were still running or waiting for input and were canceled/,
    );

    const inner = onlyChild(pg.home, outer.id);
    // Its start names the agent's session, so telemetry links the two.
    const started = readFileSync(join(pg.home, "capability_lock.jsonl"), "utf8").trim().split("\n")
      .map((l) => JSON.parse(l)).find((e) => e.extra?.task_id === inner.id);
    assert.equal(started?.session_hint, outer.metadata.observal.childSessionId);
    const ended = await pg.json(["delegate", "status", inner.id, "--wait", "60"], { env });
    const settled = ended.body as unknown as Task;
    assert.equal(settled.status.state, "TASK_STATE_CANCELED", JSON.stringify(settled.status));
    // Both stand-ins ran, and the helper's was ended with its task (its pid is the
    // sandbox's own: look for its command line).
    assert.equal(readFileSync(starts, "utf8").trim().split("\n").length, 2);
    assert.deepEqual(
      processesWith(`${pg.root}/bin/claude -p --agent helper`),
      [],
      "the helper's harness is gone",
    );
  } finally {
    await pg.close();
  }
});

Deno.test("a remote task the agent left waiting for input is canceled when its run ends, and the remote agent told", async () => {
  const remote = await startV1Agent({ name: "Asking Agent", behaviour: "input" });
  const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: "on" } });
  try {
    pg.program("claude", MCP_CALLING_CLAUDE);
    mkdirSync(join(pg.root, ".claude"), { recursive: true });
    const { identifier: remoteId } = await importCard(pg.env, pg.repo, remote.cardUrl);
    // The agent delegates to the remote agent, which asks a question; the agent never
    // answers it, and its run ends.
    const calls = {
      fixer: {
        name: "delegate",
        arguments: { agent: remoteId, message: "Write the intro.", wait_seconds: 30 },
      },
    };
    const env = {
      STANDIN_CALLS: JSON.stringify(calls),
      STARTS: join(pg.root, ".claude", "starts"),
    };
    const { outer, result, message } = await runStandIn(pg, env);
    assert.match(result, /state: TASK_STATE_INPUT_REQUIRED/, result);
    assert.match(message, /1 task\(s\) the agent delegated were still running or waiting/);

    const inner = onlyChild(pg.home, outer.id);
    // Settled as soon as the run ends: nobody is left to answer it.
    assert.equal(inner.status.state, "TASK_STATE_CANCELED", JSON.stringify(inner.status));
    assert.deepEqual(remote.canceled, [inner.metadata.observal.remoteTaskId]);
  } finally {
    await pg.close();
    await remote.close();
  }
});

for (const sandbox of ["on", "off"]) {
  Deno.test(`an agent (sandbox ${sandbox}) in a home too deep for a socket delegates through a socket of its own under /tmp`, async () => {
    // Its task folders' paths are longer than a socket address may be.
    const homeName = `home-${"deep".repeat(16)}`;
    const pg = await localPlayground({ env: { OBSERVAL_SANDBOX: sandbox }, homeName });
    try {
      const { outer, result } = await delegateToHelper(pg);
      const socketInTaskFolder = join(pg.home, "delegations", outer.id, "agents.sock");
      assert.ok(new TextEncoder().encode(socketInTaskFolder).length > 104, socketInTaskFolder);
      assertNestedCompleted(pg.home, outer, result);
    } finally {
      await pg.close();
    }
  });
}

/**
 * Runs the playground's agent from a shell inside the caller's repository, its stand-in
 * handing a task to a helper agent (which finds agents and answers), with `env` on top of
 * the playground's.
 */
async function delegateToHelper(
  pg: Awaited<ReturnType<typeof localPlayground>>,
  env: Record<string, string> = {},
): Promise<{ outer: Task; result: string }> {
  pg.program("claude", MCP_CALLING_CLAUDE);
  mkdirSync(join(pg.root, ".claude"), { recursive: true });
  const helper = await publishApproved(pg.env, pg.repo, agentYaml("helper"));
  const calls = {
    fixer: {
      name: "delegate",
      arguments: { agent: helper.identifier, message: "Find help.", wait_seconds: 60 },
    },
  };
  return await runStandIn(pg, {
    ...callerShell(pg.repo),
    ...env,
    STANDIN_CALLS: JSON.stringify(calls),
    STARTS: join(pg.root, ".claude", "starts"),
  });
}

/** The outer run's agent delegated once and its helper answered; no socket folder is left. */
function assertNestedCompleted(home: string, outer: Task, result: string): void {
  assert.match(result, /state: TASK_STATE_COMPLETED/, result);
  const inner = onlyChild(home, outer.id);
  assert.equal(inner.status.state, "TASK_STATE_COMPLETED", JSON.stringify(inner.status));
  assert.equal(inner.metadata.observal.parentTaskId, outer.id);
  // Each run's socket folder went with its run.
  for (const task of [outer, inner]) {
    const folder = `/tmp/observal-agents-${Deno.uid()}-${task.id}`;
    assert.ok(!existsSync(folder), `${folder} is left behind`);
  }
}

// A home behind a link: the socket's address is the path the link gives (short or too long),
// while the sandbox binds the real folders.
for (const deep of ["the real path", "the link"]) {
  Deno.test(`an agent in the sandbox delegates from a home reached through a link, ${deep} too deep for a socket`, async () => {
    const long = `home-${"deep".repeat(16)}`;
    const pg = await localPlayground({
      env: { OBSERVAL_SANDBOX: "on" },
      homeName: deep === "the real path" ? long : "home",
    });
    try {
      const link = join(pg.root, deep === "the link" ? long.replace("home", "link") : "l");
      symlinkSync(pg.home, link);
      const { outer, result } = await delegateToHelper(pg, { OBSERVAL_HOME: link });
      const sockets = [link, pg.home].map((h) =>
        new TextEncoder().encode(join(h, "delegations", outer.id, "agents.sock")).length
      );
      // Through the link fits and the real path does not, or the other way round.
      assert.equal(sockets[0] > 104, deep === "the link", String(sockets));
      assert.equal(sockets[1] > 104, deep === "the real path", String(sockets));
      assertNestedCompleted(pg.home, outer, result);
    } finally {
      await pg.close();
    }
  });
}
