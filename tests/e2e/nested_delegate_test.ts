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
import { ensureHarnessCli, harnessTestEnv } from "../support/harness_clis.ts";
import { agentYaml, localPlayground } from "../support/local_delegation.ts";
import { type ScriptStep, scriptText, startModelServer } from "../support/model_server.ts";
import { MAIN } from "../support/process.ts";

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
    let remoteId = "";
    let outerId = "";
    try {
      await admin.admin("PUT", "/settings/discovery.a2a_private_hosts", { value: "127.0.0.1" });
      const card = await admin.submitCard({ cardUrl: remote.cardUrl, visibility: "public" });
      remoteId = String(card.identifier);
      await admin.reviewImport(remoteId, {
        action: "approve",
        digest: String(card["obs:artifactDigest"]),
      });
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
