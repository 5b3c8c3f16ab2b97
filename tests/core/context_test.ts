import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { jsonDigest, observalHome } from "../../lib/core/mod.ts";

Deno.test("observalHome(): OBSERVAL_HOME against the cwd, else HOME, else the user's home", () => {
  assert.equal(observalHome({ OBSERVAL_HOME: "data" }, "/work"), resolve("/work", "data"));
  assert.equal(observalHome({ OBSERVAL_HOME: " /abs " }, "/work"), resolve("/abs"));
  assert.equal(observalHome({ HOME: "/home/ada" }, "/work"), join("/home/ada", ".observal"));
  // Without HOME (as on Windows) the operating system's answer is used.
  assert.equal(observalHome({}, "/work"), join(homedir(), ".observal"));
});

Deno.test("jsonDigest() hashes equal values alike, whatever their key order", () => {
  const a = jsonDigest({ b: 1, a: [true, "é"] });
  assert.match(a, /^sha256:[0-9a-f]{64}$/);
  assert.equal(jsonDigest({ a: [true, "é"], b: 1 }), a);
  assert.notEqual(jsonDigest({ a: [true, "e"], b: 1 }), a);
});
