import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../lib/core/mod.ts";
import { isTaskId, openTaskStore } from "../../lib/store/mod.ts";
import { listTree } from "./_helpers.ts";

const UUID = "0b5e6a52-8f0c-4d7a-9b1e-2f3c4d5e6f70";

const UNSAFE = [
  "../../etc/passwd",
  "abc",
  "",
  ".",
  "..",
  `${UUID}/..`,
  `${UUID}/../x`,
  `../${UUID}`,
  `/${UUID}`,
  `${UUID}\0`,
  ` ${UUID}`,
  `${UUID}\n`,
  // Upper-case spellings are refused rather than folded: one task, one name, one folder.
  UUID.toUpperCase(),
  "0B5e6a52-8f0c-4d7a-9b1e-2f3c4d5e6f70",
  `{${UUID}}`,
  UUID.replaceAll("-", ""),
  "0b5e6a52-8f0c-4d7a-9b1e-2f3c4d5e6f7g",
];

Deno.test("isTaskId() accepts lower-case UUIDs only", () => {
  assert.equal(isTaskId(UUID), true);
  assert.equal(isTaskId(crypto.randomUUID()), true);
  for (const id of UNSAFE) assert.equal(isTaskId(id), false, JSON.stringify(id));
  assert.equal(isTaskId(42), false);
  assert.equal(isTaskId(undefined), false);
});

Deno.test("TaskStore refuses ids that are not lower-case UUIDs and creates nothing", () => {
  // Nest the home so `..` from the root still lands inside the temp folder we inspect.
  const base = mkdtempSync(join(tmpdir(), "observal-store-ids-"));
  const home = join(base, "a", "b", "home");
  mkdirSync(home, { recursive: true });
  try {
    using store = openTaskStore({ home, clock: systemClock });
    const before = listTree(base);
    for (const id of UNSAFE) {
      const label = JSON.stringify(id);
      assert.equal(store.get(id), undefined, label);
      assert.throws(() => store.taskDir(id), /is not a UUID/, label);
      assert.throws(() => store.taskDir(id, { create: true }), /is not a UUID/, label);
      assert.throws(() => store.require(id), /No delegated task/, label);
      assert.equal(store.cancelRequested(id), false, label);
      assert.equal(store.takeReply(id), undefined, label);
      assert.equal(store.countChildren(id), 0, label);
      store.clearCancel(id);
    }
    assert.deepEqual(listTree(base), before);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
