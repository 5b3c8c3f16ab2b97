/** summarize() gives a model the task's state, its results and the one next step. */
import assert from "node:assert/strict";
import type { Artifact, Task, TaskState } from "../../lib/a2a/mod.ts";
import { summarize } from "../../lib/mcp/summarize.ts";

function task(
  state: TaskState,
  extra: { artifacts?: Artifact[]; meta?: Partial<Task["metadata"]["observal"]>; status?: string } =
    {},
): Task {
  return {
    id: "0b8f5a52-3c7e-4f1e-9d51-2a7b6c1d9e00",
    contextId: "c1",
    status: {
      state,
      timestamp: "2026-01-01T00:00:00Z",
      ...(extra.status
        ? { message: { messageId: "m1", role: "ROLE_AGENT", parts: [{ text: extra.status }] } }
        : {}),
    },
    artifacts: extra.artifacts ?? [],
    metadata: {
      observal: {
        target: "urn:air:acme:a2a:docs",
        targetName: "Docs Writer",
        kind: "a2a",
        depth: 0,
        chain: [],
        cwd: "/repo",
        createdAt: "2026-01-01T00:00:00Z",
        ...extra.meta,
      },
    },
  };
}

const FOLLOW = /Call get_task with this task_id/;
const ANSWER = /Call delegate again with this task_id and your answer/;
const NOT_APPLIED = /have NOT been applied/;

Deno.test("summarize() opens with task_id, agent and state lines", () => {
  const lines = summarize(task("TASK_STATE_COMPLETED")).split("\n");
  assert.deepEqual(lines.slice(0, 3), [
    "task_id: 0b8f5a52-3c7e-4f1e-9d51-2a7b6c1d9e00",
    "agent: Docs Writer (a2a)",
    "state: TASK_STATE_COMPLETED",
  ]);
});

Deno.test("summarize() names the harness a registry agent ran in, or the target without a name", () => {
  const ran = summarize(task("TASK_STATE_WORKING", {
    meta: { kind: "agent", harness: "claude-code", targetName: "Fixer" },
  }));
  assert.match(ran, /^agent: Fixer \(agent via claude-code\)$/m);
  const unnamed = summarize(task("TASK_STATE_WORKING", { meta: { targetName: undefined } }));
  assert.match(unnamed, /^agent: urn:air:acme:a2a:docs \(a2a\)$/m);
});

Deno.test("summarize() ends with the next step for each state", () => {
  const cases: Array<[TaskState, RegExp | undefined]> = [
    ["TASK_STATE_SUBMITTED", FOLLOW],
    ["TASK_STATE_WORKING", FOLLOW],
    ["TASK_STATE_INPUT_REQUIRED", ANSWER],
    ["TASK_STATE_AUTH_REQUIRED", ANSWER],
    ["TASK_STATE_COMPLETED", undefined],
    ["TASK_STATE_FAILED", undefined],
    ["TASK_STATE_CANCELED", undefined],
    ["TASK_STATE_REJECTED", undefined],
  ];
  for (const [state, trailer] of cases) {
    const text = summarize(task(state));
    for (const other of [FOLLOW, ANSWER, NOT_APPLIED]) {
      if (other === trailer) assert.match(text, other, state);
      else assert.doesNotMatch(text, other, state);
    }
    if (trailer) assert.match(text.split("\n").at(-1)!, trailer, `${state}: the trailer is last`);
  }
});

Deno.test("summarize() adds a status line only when the agent said something", () => {
  const asked = summarize(task("TASK_STATE_INPUT_REQUIRED", { status: "Which audience?" }));
  assert.match(asked, /^state: TASK_STATE_INPUT_REQUIRED\nstatus: Which audience\?$/m);
  assert.doesNotMatch(summarize(task("TASK_STATE_WORKING")), /^status:/m);
});

Deno.test("summarize() prints each artifact under its name, and notes after them", () => {
  const text = summarize(task("TASK_STATE_COMPLETED", {
    artifacts: [
      { artifactId: "a1", name: "result", parts: [{ text: "echo:hello" }] },
      { artifactId: "a2", parts: [{ data: { ok: true } }] },
    ],
    meta: { notes: ["The agent used 3 tools.", "Stopped early."] },
  }));
  assert.match(text, /\n\n## result\necho:hello\n/);
  assert.match(text, /\n\n## a2\n\{\n {2}"ok": true\n\}\n/);
  assert.match(text, /\n\nnote: The agent used 3 tools\.\nnote: Stopped early\.$/);
  assert.ok(text.indexOf("## a2") < text.indexOf("note:"));
});

Deno.test("summarize() shows a patch as a diff block and says it is not applied", () => {
  const patch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b";
  const text = summarize(task("TASK_STATE_COMPLETED", {
    artifacts: [{ artifactId: "p", name: "changes.patch", parts: [{ text: patch }] }],
    meta: { kind: "agent", patchPath: "/home/u/.observal/tasks/t/changes.patch" },
  }));
  assert.ok(
    text.includes(
      `## Proposed changes (/home/u/.observal/tasks/t/changes.patch)\n\`\`\`diff\n${patch}\n\`\`\``,
    ),
    text,
  );
  assert.doesNotMatch(text, /## changes\.patch/);
  assert.match(
    text.split("\n").at(-1)!,
    /NOT been applied\. Review them with `observal delegate diff 0b8f5a52-[^`]*`; to apply them, run `observal delegate apply 0b8f5a52-[^`]*`\.$/,
  );
});

Deno.test("summarize() says when and where a patch was applied, and its conflicts", () => {
  const text = summarize(task("TASK_STATE_COMPLETED", {
    meta: {
      patchPath: "/t/changes.patch",
      repository: "/src/app",
      applied: { at: "2026-09-01T10:00:00.000Z", threeWay: true, index: true, conflicts: ["a.ts"] },
    },
  }));
  assert.equal(
    text.split("\n").at(-1),
    "The changes were applied to /src/app at 2026-09-01T10:00:00.000Z, with conflicts left " +
      "marked in a.ts.",
  );
  assert.doesNotMatch(text, NOT_APPLIED);
});

Deno.test("summarize() fences a patch that itself contains backtick fences", () => {
  const patch = "+```ts\n+code\n+```";
  const text = summarize(task("TASK_STATE_COMPLETED", {
    artifacts: [{ artifactId: "p", name: "changes.patch", parts: [{ text: patch }] }],
    meta: { patchPath: "/t/changes.patch" },
  }));
  assert.ok(text.includes(`\`\`\`\`diff\n${patch}\n\`\`\`\``), text);
});

Deno.test("summarize() points at the patch file when the patch text was shortened", () => {
  const text = summarize(task("TASK_STATE_COMPLETED", {
    artifacts: [{
      artifactId: "p",
      name: "changes.patch",
      parts: [{ text: "+a" }],
      metadata: { truncated: true, length: 300_000 },
    }],
    meta: { patchPath: "/t/changes.patch" },
  }));
  assert.match(text, /shortened here; the full patch is in \/t\/changes\.patch/);
});

Deno.test("summarize() keeps a still-running task's next step even when it has a patch path", () => {
  const text = summarize(task("TASK_STATE_WORKING", { meta: { patchPath: "/t/changes.patch" } }));
  assert.match(text, FOLLOW);
  assert.doesNotMatch(text, NOT_APPLIED);
});

Deno.test("summarize() shows a question's data parts as JSON blocks and says data can answer", () => {
  const asked = task("TASK_STATE_INPUT_REQUIRED");
  asked.status.message = {
    messageId: "q1",
    role: "ROLE_AGENT",
    parts: [
      { text: "May I run this?" },
      { data: { tool: "run_shell_command", args: { command: "rm -rf build ```" } } },
    ],
  };
  const text = summarize(asked);
  assert.match(text, /^status: May I run this\?$/m);
  assert.ok(
    text.includes(
      '\ndata:\n````json\n{\n  "tool": "run_shell_command",\n  "args": {\n    "command": "rm -rf build ```"\n  }\n}\n````\n',
    ),
    text,
  );
  assert.match(text, /as `data` \(a JSON object\) when it asks for structured input/);
  assert.doesNotMatch(text, /\{\}/, "the data is never shown empty");
});

Deno.test("summarize() cuts a huge data part and says how large it was", () => {
  const asked = task("TASK_STATE_INPUT_REQUIRED");
  const data = { blob: "x".repeat(50_000) };
  asked.status.message = { messageId: "q1", role: "ROLE_AGENT", parts: [{ data }] };
  const text = summarize(asked);
  assert.ok(text.length < 25_000, `${text.length} characters`);
  assert.match(
    text,
    new RegExp(`\\(shortened: the data is ${JSON.stringify(data, null, 2).length} characters\\)`),
  );
});
