import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findExecutable } from "../../lib/process/mod.ts";

Deno.test("findExecutable() takes the first executable on PATH and skips the rest", () => {
  const root = mkdtempSync(join(tmpdir(), "observal-path-"));
  try {
    const [a, b, c] = ["a", "b", "c"].map((d) => join(root, d));
    for (const d of [a, b, c]) mkdirSync(d);
    writeFileSync(join(a, "tool"), "not executable");
    writeFileSync(join(b, "tool"), "#!/bin/sh\n");
    chmodSync(join(b, "tool"), 0o755);
    writeFileSync(join(c, "tool"), "#!/bin/sh\n");
    chmodSync(join(c, "tool"), 0o755);
    mkdirSync(join(a, "dir-tool"));
    assert.equal(findExecutable("tool", { path: [a, b, c].join(":") }), join(b, "tool"));
    assert.equal(findExecutable("dir-tool", { path: a }), undefined);
    assert.equal(findExecutable("missing", { path: [a, b].join(":") }), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("findExecutable() never searches relative or empty PATH entries", () => {
  const root = mkdtempSync(join(tmpdir(), "observal-path-"));
  const before = Deno.cwd();
  try {
    writeFileSync(join(root, "here"), "#!/bin/sh\n");
    chmodSync(join(root, "here"), 0o755);
    Deno.chdir(root);
    assert.equal(findExecutable("here", { path: ":.:./" }), undefined);
    assert.equal(findExecutable("here", { path: "" }), undefined);
    assert.equal(findExecutable(join(root, "here")), join(root, "here"));
    assert.equal(findExecutable("./here", { path: root }), undefined);
  } finally {
    Deno.chdir(before);
    rmSync(root, { recursive: true, force: true });
  }
});
