import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  appendCapabilityLock,
  capabilityLockPath,
  pruneCapabilityLock,
} from "../../lib/telemetry/mod.ts";

Deno.test("pruneCapabilityLock() keeps 30 days of lines and drops older or unreadable ones", () => {
  const home = mkdtempSync(join(tmpdir(), "observal-lock-"));
  try {
    const line = (ts: string) => ({
      ts,
      kind: "agent" as const,
      mode: "delegated",
      source: "delegate",
    });
    appendCapabilityLock(home, line("2026-01-01T00:00:00Z"));
    appendCapabilityLock(home, line("2026-02-20T00:00:00Z"));
    appendFileSync(capabilityLockPath(home), "not json\n");
    appendCapabilityLock(home, line("2026-03-01T00:00:00Z"));
    const now = new Date("2026-03-10T00:00:00Z");
    assert.deepEqual(pruneCapabilityLock(home, { now }), { kept: 2, removed: 2 });
    const left = readFileSync(capabilityLockPath(home), "utf8").trim().split("\n");
    assert.deepEqual(left.map((l) => JSON.parse(l).ts), [
      "2026-02-20T00:00:00Z",
      "2026-03-01T00:00:00Z",
    ]);
    assert.deepEqual(pruneCapabilityLock(home, { now }), { kept: 2, removed: 0 });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

Deno.test("pruneCapabilityLock() with no file does nothing", () => {
  const home = mkdtempSync(join(tmpdir(), "observal-lock-"));
  try {
    assert.deepEqual(pruneCapabilityLock(home, { now: new Date() }), { kept: 0, removed: 0 });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
