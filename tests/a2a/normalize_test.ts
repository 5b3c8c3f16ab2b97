import assert from "node:assert/strict";
import {
  mergeEvent,
  normalizeMessage,
  normalizePart,
  normalizeResult,
  normalizeState,
  type RemoteSnapshot,
} from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";

Deno.test("normalizeState() maps v1.0 and v0.3 names to v1.0 states", () => {
  const table: [unknown, string][] = [
    ["TASK_STATE_WORKING", "TASK_STATE_WORKING"],
    ["task_state_completed", "TASK_STATE_COMPLETED"],
    ["submitted", "TASK_STATE_SUBMITTED"],
    ["working", "TASK_STATE_WORKING"],
    ["input-required", "TASK_STATE_INPUT_REQUIRED"],
    ["Auth-Required", "TASK_STATE_AUTH_REQUIRED"],
    ["COMPLETED", "TASK_STATE_COMPLETED"],
    ["failed", "TASK_STATE_FAILED"],
    ["canceled", "TASK_STATE_CANCELED"],
    ["cancelled", "TASK_STATE_CANCELED"],
    ["rejected", "TASK_STATE_REJECTED"],
    ["unknown", "TASK_STATE_FAILED"],
    ["TASK_STATE_UNSPECIFIED", "TASK_STATE_FAILED"],
    ["paused", "TASK_STATE_FAILED"],
    [3, "TASK_STATE_FAILED"],
    ["", "TASK_STATE_SUBMITTED"],
    ["  ", "TASK_STATE_SUBMITTED"],
    [undefined, "TASK_STATE_SUBMITTED"],
  ];
  for (const [input, want] of table) assert.equal(normalizeState(input), want, String(input));
});

Deno.test("normalizePart() drops kind and flattens v0.3 file parts", () => {
  assert.deepEqual(normalizePart({ kind: "text", text: "hi" }), { text: "hi" });
  assert.deepEqual(normalizePart({ kind: "data", data: { a: 1 } }), { data: { a: 1 } });
  assert.deepEqual(
    normalizePart({
      kind: "file",
      file: { uri: "https://x.test/a.pdf", mimeType: "application/pdf", name: "a.pdf" },
    }),
    { url: "https://x.test/a.pdf", mediaType: "application/pdf", filename: "a.pdf" },
  );
  assert.deepEqual(
    normalizePart({ kind: "file", file: { bytes: "aGk=", mimeType: "text/plain" } }),
    { raw: "aGk=", mediaType: "text/plain" },
  );
  assert.deepEqual(normalizePart({ text: "v1", mediaType: "text/plain" }), {
    text: "v1",
    mediaType: "text/plain",
  });
  assert.equal(normalizePart("text"), undefined);
});

Deno.test("normalizeMessage() maps roles and normalises parts", () => {
  assert.deepEqual(
    normalizeMessage({
      kind: "message",
      messageId: "m1",
      role: "agent",
      parts: [{ kind: "text", text: "Which audience?" }, 7],
      taskId: "t1",
      contextId: "c1",
    }),
    {
      messageId: "m1",
      role: "ROLE_AGENT",
      parts: [{ text: "Which audience?" }],
      taskId: "t1",
      contextId: "c1",
    },
  );
  assert.equal(normalizeMessage({ messageId: "m", role: "user", parts: [] })?.role, "ROLE_USER");
  assert.equal(
    normalizeMessage({ messageId: "m", role: "ROLE_USER", parts: [] })?.role,
    "ROLE_USER",
  );
  assert.equal(normalizeMessage(null), undefined);
});

Deno.test("normalizeResult() unwraps a v1.0 {task}", () => {
  const snap = normalizeResult({
    task: {
      id: "t1",
      contextId: "c1",
      status: {
        state: "TASK_STATE_INPUT_REQUIRED",
        message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "Which?" }] },
      },
      artifacts: [{ artifactId: "a1", name: "echo", parts: [{ text: "x" }] }],
    },
  });
  assert.deepEqual(snap, {
    taskId: "t1",
    contextId: "c1",
    state: "TASK_STATE_INPUT_REQUIRED",
    message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "Which?" }] },
    artifacts: [{ artifactId: "a1", name: "echo", parts: [{ text: "x" }] }],
    direct: false,
  });
});

Deno.test("normalizeResult() reads a bare v0.3 task", () => {
  const snap = normalizeResult({
    kind: "task",
    id: "t1",
    contextId: "c1",
    status: { state: "completed" },
    artifacts: [{ artifactId: "a1", parts: [{ kind: "text", text: "done" }] }],
  });
  assert.equal(snap.state, "TASK_STATE_COMPLETED");
  assert.deepEqual(snap.artifacts, [{ artifactId: "a1", parts: [{ text: "done" }] }]);
  assert.equal(snap.direct, false);
});

Deno.test("normalizeResult() turns a direct Message answer into a completed result", () => {
  const want: RemoteSnapshot = {
    contextId: "c1",
    state: "TASK_STATE_COMPLETED",
    artifacts: [{ artifactId: "result", name: "result", parts: [{ text: "echo:hi" }] }],
    direct: true,
  };
  const v1 = { messageId: "m", role: "ROLE_AGENT", contextId: "c1", parts: [{ text: "echo:hi" }] };
  assert.deepEqual(normalizeResult({ message: v1 }), want);
  const v03 = { ...v1, kind: "message", role: "agent", parts: [{ kind: "text", text: "echo:hi" }] };
  assert.deepEqual(normalizeResult(v03), want);
  // No kind and no status, but parts: still a message.
  assert.deepEqual(normalizeResult({ contextId: "c1", parts: [{ text: "echo:hi" }] }), want);
});

Deno.test("normalizeResult() refuses a result that is not an object", () => {
  for (const result of [null, undefined, "ok", 3, []]) {
    assert.throws(() => normalizeResult(result), (err: unknown) => {
      assert.ok(err instanceof ObservalError);
      assert.equal(err.code, "NETWORK");
      return true;
    });
  }
});

Deno.test("mergeEvent() folds a v1.0 stream into the final snapshot", () => {
  const events = [
    { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_SUBMITTED" } } },
    { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } },
    {
      artifactUpdate: {
        taskId: "t1",
        artifact: { artifactId: "a1", name: "out", parts: [{ text: "one" }] },
      },
    },
    {
      artifactUpdate: {
        taskId: "t1",
        artifact: { artifactId: "a1", parts: [{ text: "two" }] },
        append: true,
        lastChunk: true,
      },
    },
    { artifactUpdate: { taskId: "t1", artifact: { artifactId: "a2", parts: [{ text: "x" }] } } },
    { artifactUpdate: { taskId: "t1", artifact: { artifactId: "a2", parts: [{ text: "y" }] } } },
    { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } },
  ];
  let snap: RemoteSnapshot | undefined;
  for (const event of events) snap = mergeEvent(snap, event);
  assert.deepEqual(snap, {
    taskId: "t1",
    contextId: "c1",
    state: "TASK_STATE_COMPLETED",
    artifacts: [
      { artifactId: "a1", name: "out", parts: [{ text: "one" }, { text: "two" }] },
      { artifactId: "a2", parts: [{ text: "y" }] },
    ],
    direct: false,
  });
});

Deno.test("mergeEvent() folds v0.3 kind-tagged events and keeps the status message", () => {
  let snap = mergeEvent(undefined, {
    kind: "task",
    id: "t1",
    contextId: "c1",
    status: { state: "submitted" },
  });
  snap = mergeEvent(snap, {
    kind: "artifact-update",
    taskId: "t1",
    contextId: "c1",
    artifact: { artifactId: "a1", parts: [{ kind: "text", text: "partial" }] },
  });
  const before = structuredClone(snap);
  snap = mergeEvent(snap, {
    kind: "status-update",
    taskId: "t1",
    contextId: "c1",
    status: {
      state: "input-required",
      message: {
        kind: "message",
        messageId: "q",
        role: "agent",
        parts: [{ kind: "text", text: "Who?" }],
      },
    },
    final: true,
  });
  assert.deepEqual(snap, {
    taskId: "t1",
    contextId: "c1",
    state: "TASK_STATE_INPUT_REQUIRED",
    message: { messageId: "q", role: "ROLE_AGENT", parts: [{ text: "Who?" }] },
    artifacts: [{ artifactId: "a1", parts: [{ text: "partial" }] }],
    direct: false,
  });
  assert.equal(before.state, "TASK_STATE_SUBMITTED", "the input snapshot is not modified");
});

Deno.test("mergeEvent() keeps artifacts when a later task event carries none", () => {
  let snap = mergeEvent(undefined, {
    artifactUpdate: { taskId: "t1", artifact: { artifactId: "a", parts: [{ text: "x" }] } },
  });
  snap = mergeEvent(snap, { task: { id: "t1", status: { state: "TASK_STATE_WORKING" } } });
  assert.deepEqual(snap.artifacts, [{ artifactId: "a", parts: [{ text: "x" }] }]);
  assert.equal(snap.state, "TASK_STATE_WORKING");
});
