import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { releaseNotes, startExampleAgent } from "../../examples/remote_agent.ts";
import { callableInterface, parseAgentCard } from "../../lib/a2a/mod.ts";

Deno.test("releaseNotes() makes one bullet per line or per sentence", () => {
  assert.equal(
    releaseNotes("fixed login. added dark mode"),
    "## Release notes\n\n- Fixed login\n- Added dark mode",
  );
  assert.equal(
    releaseNotes("- faster start\n\n2. smaller binary;\n"),
    "## Release notes\n\n- Faster start\n- Smaller binary",
  );
  assert.equal(releaseNotes("   "), "## Release notes\n\n- No changes were described");
});

Deno.test("startExampleAgent() answers a v1.0 client with a release-notes artifact", async () => {
  const agent = await startExampleAgent();
  try {
    const card = parseAgentCard(await (await fetch(agent.cardUrl)).json());
    assert.equal(callableInterface(card)?.url, agent.url);
    const client = await new ClientFactory().createFromUrl(new URL(agent.cardUrl).origin);
    const result = await client.sendMessage(SendMessageRequest.fromJSON({
      message: {
        messageId: "m1",
        role: "ROLE_USER",
        parts: [{ text: "fixed login\nadded dark mode" }],
      },
    }));
    const task = result as Task;
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
    const part = task.artifacts[0].parts[0].content;
    assert.deepEqual(part, {
      $case: "text",
      value: "## Release notes\n\n- Fixed login\n- Added dark mode",
    });
  } finally {
    await agent.close();
  }
});

Deno.test("startExampleAgent() refuses a request without A2A-Version as v0.3", async () => {
  const agent = await startExampleAgent();
  try {
    const res = await fetch(agent.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "x" } }),
    });
    const body = await res.json();
    assert.equal(body.id, 7);
    assert.equal(body.error.code, -32009);
  } finally {
    await agent.close();
  }
});

Deno.test("examples/remote_agent.ts prints its card URL first when run", async () => {
  const script = fileURLToPath(new URL("../../examples/remote_agent.ts", import.meta.url));
  const child = spawn(Deno.execPath(), ["run", "-A", script, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...Deno.env.toObject(), NO_COLOR: "1" },
  });
  try {
    let out = "";
    child.stdout.setEncoding("utf8");
    for await (const chunk of child.stdout) {
      out += chunk;
      if (out.includes("\n")) break;
    }
    const match = /^listening (http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json)\n/.exec(
      out,
    );
    assert.ok(match, out);
    const card = await (await fetch(match[1])).json();
    assert.equal(card.name, "Release Notes Writer");
  } finally {
    child.kill("SIGTERM");
    if (child.exitCode === null) await once(child, "exit");
  }
});
