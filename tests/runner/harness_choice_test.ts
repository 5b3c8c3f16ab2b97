import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ObservalError } from "../../lib/core/mod.ts";
import {
  chooseHarness,
  type HarnessOption,
  harnessOptions,
  harnessProbe,
  runnableHere,
} from "../../lib/runner/runnable/mod.ts";

/** A PATH holding fake executables with the given names, and a HOME for Pi. */
function machine(programs: string[]) {
  const root = mkdtempSync(join(tmpdir(), "observal-choice-"));
  const bin = join(root, "bin");
  mkdirSync(bin);
  for (const p of programs) {
    writeFileSync(join(bin, p), "#!/bin/sh\n");
    chmodSync(join(bin, p), 0o755);
  }
  const repo = join(root, "repo");
  mkdirSync(repo);
  return {
    root,
    repo,
    env: { PATH: bin, HOME: root },
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}

function refusal(fn: () => unknown): ObservalError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ObservalError, String(err));
    return err;
  }
  assert.fail("no refusal");
}

Deno.test("harnessOptions() says which binaries are missing, and that Pi needs trust", () => {
  const m = machine(["claude", "pi"]);
  try {
    const options = harnessOptions(m.env, m.repo);
    const by = Object.fromEntries(options.map((o) => [o.key, o]));
    assert.equal(by["claude-code"].binary, join(m.root, "bin", "claude"));
    assert.match(by.codex.unavailable!, /codex is not on PATH/);
    assert.match(by.pi.unavailable!, /does not trust/);
    assert.equal(by.goose, undefined, "Goose has no headless mode");
    mkdirSync(join(m.root, ".pi", "agent"), { recursive: true });
    writeFileSync(join(m.root, ".pi", "agent", "trust.json"), JSON.stringify({ [m.repo]: true }));
    assert.ok(harnessOptions(m.env, m.repo).find((o) => o.key === "pi")!.binary);
  } finally {
    m.close();
  }
});

Deno.test("chooseHarness() prefers the caller's harness, then the first usable one", () => {
  const m = machine(["claude", "codex", "opencode"]);
  try {
    const probe = harnessProbe(m.env, m.repo);
    const base = { supported: [], probe, agentName: "reviewer" };
    assert.equal(chooseHarness({ ...base, preferred: "opencode" }).key, "opencode");
    assert.equal(chooseHarness(base).key, "claude-code");
    assert.equal(chooseHarness({ ...base, supported: ["pi", "codex"] }).key, "codex");
    // A preferred harness the agent does not support is passed over.
    assert.equal(
      chooseHarness({ ...base, supported: ["codex"], preferred: "claude-code" }).key,
      "codex",
    );
  } finally {
    m.close();
  }
});

Deno.test("chooseHarness() with --harness uses it or refuses, never substitutes", () => {
  const m = machine(["claude"]);
  try {
    const probe = harnessProbe(m.env, m.repo);
    const base = { supported: ["claude-code", "codex"], probe, agentName: "reviewer" };
    assert.equal(chooseHarness({ ...base, required: "claude_code" }).key, "claude-code");
    const missing = refusal(() => chooseHarness({ ...base, required: "codex" }));
    assert.match(missing.message, /Codex cannot run an agent headless on this machine/);
    assert.match(missing.remediation!, /Install Codex \(codex\).*claude-code/);
    const unsupported = refusal(() => chooseHarness({ ...base, required: "opencode" }));
    assert.match(unsupported.message, /reviewer supports claude-code, codex, not opencode/);
    const goose = refusal(() => chooseHarness({ ...base, required: "goose" }));
    assert.match(goose.message, /Goose cannot run an agent headless: .*recipe/);
    const unknown = refusal(() => chooseHarness({ ...base, required: "emacs" }));
    assert.equal(unknown.code, "INVALID_ARGUMENT");
  } finally {
    m.close();
  }
});

Deno.test("chooseHarness() names what to install when nothing here can run the agent", () => {
  const none = machine([]);
  const some = machine(["opencode"]);
  try {
    const a = refusal(() =>
      chooseHarness({
        supported: [],
        probe: harnessProbe(none.env, none.repo),
        agentName: "reviewer",
      })
    );
    assert.match(a.message, /No harness on this machine can run an agent headless/);
    assert.match(a.remediation!, /Claude Code \(claude\).*Codex \(codex\)/);
    const b = refusal(() =>
      chooseHarness({
        supported: ["claude-code", "pi"],
        probe: harnessProbe(some.env, some.repo),
        agentName: "reviewer",
      })
    );
    assert.match(b.message, /supports claude-code, pi, but only opencode can run headless here/);
    assert.equal(b.remediation, "Install one of: Claude Code (claude), Pi (pi)");
  } finally {
    none.close();
    some.close();
  }
});

Deno.test("chooseHarness() tells how to make Pi trust the repository, not to install Pi", () => {
  const m = machine(["pi", "claude"]);
  try {
    const probe = harnessProbe(m.env, m.repo);
    const options = harnessOptions(m.env, m.repo);
    const pi = options.find((o) => o.key === "pi")!;
    assert.equal(pi.binary, undefined);
    const trustFile = join(m.root, ".pi", "agent", "trust.json");
    const entry = `"${m.repo}": true`;
    const strict = refusal(() =>
      chooseHarness({ supported: [], required: "pi", probe, agentName: "reviewer" })
    );
    assert.match(strict.message, new RegExp(`Pi does not trust ${m.repo}`));
    assert.ok(strict.remediation!.includes(`add ${entry} to ${trustFile}`), strict.remediation);
    assert.match(strict.remediation!, /or use one that can run here: claude-code$/);
    assert.doesNotMatch(strict.remediation!, /Install/);
    const only = refusal(() =>
      chooseHarness({ supported: ["pi", "codex"], probe, agentName: "reviewer" })
    );
    assert.ok(only.remediation!.startsWith("Install one of: Codex (codex); or if you trust"));
    assert.ok(only.remediation!.includes(`add ${entry} to ${trustFile}`), only.remediation);
    assert.deepEqual(runnableHere(["pi"], options), { runnable: false, missing: pi.fix });
  } finally {
    m.close();
  }
});

Deno.test("runnableHere() marks agents by the harnesses installed here", () => {
  const options: HarnessOption[] = [
    { key: "claude-code", name: "Claude Code", program: "claude", binary: "/b/claude" },
    { key: "codex", name: "Codex", program: "codex", unavailable: "codex is not on PATH" },
  ];
  assert.deepEqual(runnableHere([], options), { runnable: true });
  assert.deepEqual(runnableHere(["codex"], options), {
    runnable: false,
    missing: "Install one of: Codex (codex)",
  });
  assert.deepEqual(runnableHere(["goose"], options), {
    runnable: false,
    missing: "none of its harnesses can run headless",
  });
});

Deno.test("chooseHarness() probes only the harnesses its choice needs", () => {
  const m = machine(["claude", "codex"]);
  try {
    const asked: string[] = [];
    const real = harnessProbe(m.env, m.repo);
    const probe = (key: Parameters<typeof real>[0]) => (asked.push(key), real(key));
    const base = { supported: [], probe, agentName: "reviewer" };
    assert.equal(chooseHarness({ ...base, required: "codex" }).key, "codex");
    assert.deepEqual(asked, ["codex"]);
    asked.length = 0;
    assert.equal(chooseHarness({ ...base, preferred: "codex" }).key, "codex");
    assert.deepEqual(asked, ["codex"]);
    asked.length = 0;
    // Claude Code is the first headless harness: the choice stops at it.
    assert.equal(
      chooseHarness({ ...base, supported: ["opencode", "claude-code"] }).key,
      "claude-code",
    );
    assert.deepEqual(asked, ["claude-code"]);
  } finally {
    m.close();
  }
});
