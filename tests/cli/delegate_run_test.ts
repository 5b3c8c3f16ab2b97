/** `observal delegate run`: its flags are checked before anything is looked up or started. */
import assert from "node:assert/strict";
import { headlessHarnesses } from "../../lib/harness/facts/mod.ts";
import { taskHome } from "./_delegate_home.ts";

Deno.test("delegate run --harness takes only a harness that runs agents headless", async () => {
  using h = taskHome();
  const allowed = headlessHarnesses();
  assert.ok(allowed.includes("claude-code") && !allowed.includes("goose"));
  for (const harness of ["nope", "goose", "Claude Code", ""]) {
    const r = await h.observal([
      "delegate",
      "run",
      "no/such-agent",
      "the brief",
      "--harness",
      harness,
      "--json",
    ]);
    assert.equal(r.code, 2, `${harness}: ${r.stderr}`);
    const { error } = JSON.parse(r.stderr);
    assert.equal(error.message, `--harness cannot be "${harness}"`);
    assert.ok(error.remediation.endsWith(`Use one of: ${allowed.join(", ")}`), error.remediation);
  }
  // Spelled as harness names are elsewhere: any case, `_` for `-`.
  const spelled = await h.observal(["delegate", "run", "no/such-agent", "x", "-i", "Claude_Code"]);
  assert.equal(spelled.code, 5, spelled.stderr);
  // A harness it knows gets as far as looking the agent up.
  const known = await h.observal(["delegate", "run", "no/such-agent", "x", "--harness", "codex"]);
  assert.equal(known.code, 5, known.stderr);
  assert.match(known.stderr, /No agent "no\/such-agent" in the registry/);
});

Deno.test("delegate run --sandbox takes auto, on or off, checked before the agent is looked up", async () => {
  using h = taskHome();
  const r = await h.observal([
    "delegate",
    "run",
    "no/such-agent",
    "x",
    "--sandbox",
    "onn",
    "--json",
  ]);
  assert.equal(r.code, 2, r.stderr);
  const { error } = JSON.parse(r.stderr);
  assert.equal(error.message, '--sandbox cannot be "onn"');
  assert.equal(error.remediation, "Did you mean on? Use one of: auto, on, off");
  const known = await h.observal(["delegate", "run", "no/such-agent", "x", "--sandbox", "off"]);
  assert.equal(known.code, 5, known.stderr);
});
