import assert from "node:assert/strict";
import {
  mergeEvent,
  normalizeMessage,
  normalizePart,
  normalizeResult,
  normalizeState,
  partsText,
  type RemoteSnapshot,
} from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";
import { RemoteRefusalError } from "../../lib/a2a/mod.ts";

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
    ["", "TASK_STATE_SUBMITTED"],
    ["  ", "TASK_STATE_SUBMITTED"],
    [undefined, "TASK_STATE_SUBMITTED"],
  ];
  for (const [input, want] of table) assert.equal(normalizeState(input), want, String(input));
});

Deno.test("normalizeState() refuses a state A2A does not define, naming it", () => {
  for (
    const [input, shown] of [
      ["unknown", '"unknown"'],
      ["TASK_STATE_UNSPECIFIED", '"TASK_STATE_UNSPECIFIED"'],
      ["paused", '"paused"'],
      [3, "3"],
      [{ s: 1 }, '{"s":1}'],
    ] as const
  ) {
    assert.throws(() => normalizeState(input), (err: unknown) => {
      assert.ok(err instanceof RemoteRefusalError, String(err));
      assert.equal(err.reason, "state");
      assert.ok(err.message.includes(`task state ${shown}`), err.message);
      return true;
    });
  }
});

Deno.test("normalizeResult() and mergeEvent() refuse a task they do not describe", () => {
  const held = mergeEvent(undefined, { task: { id: "t1", status: { state: "working" } } });
  const others = [
    { statusUpdate: { taskId: "t2", status: { state: "TASK_STATE_COMPLETED" } } },
    { artifactUpdate: { taskId: "t2", artifact: { artifactId: "a", parts: [] } } },
    { task: { id: "t2", status: { state: "TASK_STATE_COMPLETED" } } },
    { message: { messageId: "m", taskId: "t2", role: "ROLE_AGENT", parts: [] } },
  ];
  for (const event of others) {
    assert.throws(() => mergeEvent(held, event), (err: unknown) => {
      assert.ok(err instanceof RemoteRefusalError);
      assert.equal(err.reason, "identity");
      assert.match(err.message, /task "t2" while following task "t1"/);
      return true;
    });
  }
  assert.throws(
    () => normalizeResult({ kind: "task", id: "t9", status: { state: "completed" } }, "t1"),
    /task "t9" while following task "t1"/,
  );
  // The same id, or none at all, is the held task.
  assert.equal(
    mergeEvent(held, { statusUpdate: { status: { state: "completed" } } }).state,
    "TASK_STATE_COMPLETED",
  );
  assert.equal(normalizeResult({ id: "t1", status: { state: "working" } }, "t1").taskId, "t1");
});

Deno.test("normalizePart() keeps unknown part kinds and SDK oneofs as data, never {}", () => {
  const odd = { kind: "toolCall", toolCall: { name: "edit", args: { path: "a.ts" } } };
  assert.deepEqual(normalizePart(odd), { data: odd });
  assert.deepEqual(normalizePart({}), { data: {} });
  assert.deepEqual(normalizePart({ content: { $case: "text", value: "hi" }, mediaType: "" }), {
    text: "hi",
  });
  assert.deepEqual(normalizePart({ content: { $case: "data", value: { a: 1 } } }), {
    data: { a: 1 },
  });
  // A question with a data part (tool approval) keeps it as data.
  const question = normalizeMessage({
    kind: "message",
    messageId: "q",
    role: "agent",
    parts: [
      { kind: "text", text: "Approve?" },
      { kind: "data", data: { callId: "c1", outcome: ["proceed_once", "cancel"] } },
    ],
  });
  assert.deepEqual(question?.parts, [
    { text: "Approve?" },
    { data: { callId: "c1", outcome: ["proceed_once", "cancel"] } },
  ]);
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
    messages: [{ messageId: "m", role: "ROLE_AGENT", parts: [{ text: "Which?" }] }],
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
    messages: [],
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
    messages: [],
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
    messages: [{ messageId: "q", role: "ROLE_AGENT", parts: [{ text: "Who?" }] }],
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

Deno.test("mergeEvent() keeps every agent message of status updates, in order, once each", () => {
  const say = (id: string, text: string, state = "working") => ({
    kind: "status-update",
    taskId: "t1",
    status: {
      state,
      message: { kind: "message", messageId: id, role: "agent", parts: [{ kind: "text", text }] },
    },
  });
  let snap = mergeEvent(undefined, { kind: "task", id: "t1", status: { state: "submitted" } });
  for (const event of [say("m1", "Reading"), say("m2", "Editing"), say("m2", "Editing")]) {
    snap = mergeEvent(snap, event);
  }
  snap = mergeEvent(snap, {
    kind: "status-update",
    taskId: "t1",
    status: { state: "input-required" },
    final: true,
  });
  assert.equal(snap.state, "TASK_STATE_INPUT_REQUIRED");
  assert.equal(snap.message, undefined, "the question itself carried no message");
  assert.deepEqual(snap.messages.map((m) => partsText(m.parts)), ["Reading", "Editing"]);
  // A task event adds its history's agent messages it does not hold yet.
  snap = mergeEvent(snap, {
    kind: "task",
    id: "t1",
    status: { state: "working" },
    history: [
      { kind: "message", messageId: "u", role: "user", parts: [{ kind: "text", text: "go" }] },
      { kind: "message", messageId: "m1", role: "agent", parts: [{ kind: "text", text: "x" }] },
      { kind: "message", messageId: "m3", role: "agent", parts: [{ kind: "text", text: "Done" }] },
    ],
  });
  assert.deepEqual(snap.messages.map((m) => m.messageId), ["m1", "m2", "m3"]);
});
