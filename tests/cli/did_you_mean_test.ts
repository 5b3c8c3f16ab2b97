/**
 * Unknown commands and flags are usage errors (exit 2) that name the closest known one,
 * when one is close; parseArgs' own message for unknown options never shows.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closest } from "../../lib/cli/command.ts";
import { cli } from "../support/cli.ts";

function tempHome() {
  const home = mkdtempSync(join(tmpdir(), "observal-dym-"));
  return {
    env: { OBSERVAL_HOME: home, HOME: home },
    done: () => rmSync(home, { recursive: true, force: true }),
  };
}

Deno.test("closest() picks the nearest name within two edits, a swap counting as one", () => {
  const table: Array<[string, string[], string | undefined]> = [
    ["delgate", ["delegate", "registry", "doctor"], "delegate"],
    ["serch", ["search", "inspect", "serve"], "search"],
    ["jsno", ["json", "help"], "json"],
    ["limt", ["limit", "json"], "limit"],
    ["JSON", ["json"], "json"],
    ["regsitry", ["registry", "reconcile"], "registry"],
    ["exit-code", ["exit-codes"], "exit-codes"],
    ["recon", ["registry", "reconcile"], "reconcile"],
    ["zzz", ["json", "help"], undefined],
    ["ls", ["list"], undefined],
    ["x", ["json"], undefined],
    ["lst", ["list", "last"], "list"],
  ];
  for (const [word, candidates, expected] of table) {
    assert.equal(closest(word, candidates), expected, `${word} among ${candidates}`);
  }
});

Deno.test("an unknown command or flag exits 2 and says which one was meant", async () => {
  const t = tempHome();
  try {
    const table: Array<{ argv: string[]; message: RegExp; hint: RegExp }> = [
      {
        argv: ["delgate", "list"],
        message: /Unknown command "observal delgate"/,
        hint: /Did you mean `observal delegate`\?/,
      },
      {
        argv: ["registry", "serch", "x"],
        message: /Unknown command "observal registry serch"/,
        hint: /Did you mean `observal registry search`\?/,
      },
      {
        argv: ["registry", "agent", "lsit"],
        message: /Unknown command "observal registry agent lsit"/,
        hint: /Did you mean `observal registry agent list`\?/,
      },
      {
        argv: ["registry", "search", "x", "--jsno"],
        message: /Unknown flag "--jsno"/,
        hint: /Did you mean --json\? Run `observal registry search --help` for its flags/,
      },
      {
        argv: ["delegate", "list", "--limt", "3"],
        message: /Unknown flag "--limt"/,
        hint: /Did you mean --limit\?/,
      },
      {
        argv: ["registry", "search", "x", "--limt=3"],
        message: /Unknown flag "--limt"/,
        hint: /Did you mean --limit\?/,
      },
      {
        argv: ["--verison"],
        message: /Unknown flag "--verison"/,
        hint: /Did you mean --version\?/,
      },
      {
        argv: ["registry", "frobnicate"],
        message: /Unknown command "observal registry frobnicate"/,
        hint: /Choose one of: search, inspect, agent, a2a/,
      },
      { argv: ["registry", "search", "x", "-q"], message: /Unknown flag "-q"/, hint: /--help/ },
    ];
    for (const { argv, message, hint } of table) {
      const r = await cli(argv, { env: t.env });
      const label = argv.join(" ");
      assert.equal(r.code, 2, `${label}: ${r.stderr}`);
      assert.match(r.stderr, message, label);
      assert.match(r.stderr, hint, label);
      assert.doesNotMatch(r.stderr, /Unknown option|To specify a positional argument/, label);
      assert.equal(r.stdout, "", label);
    }
    const far = await cli(["registry", "search", "x", "--zzzzzz"], { env: t.env });
    assert.equal(far.code, 2);
    assert.doesNotMatch(far.stderr, /Did you mean/);
  } finally {
    t.done();
  }
});

Deno.test("under --json the did-you-mean travels in the error object's remediation", async () => {
  const t = tempHome();
  try {
    const r = await cli(["registry", "serch", "x", "--json"], { env: t.env });
    assert.equal(r.code, 2);
    const { error } = JSON.parse(r.stderr);
    assert.equal(error.errorCode, "USAGE");
    assert.match(error.remediation, /Did you mean `observal registry search`\?/);
  } finally {
    t.done();
  }
});

Deno.test("hidden commands are never suggested, and a flag after -- is a positional", async () => {
  const t = tempHome();
  try {
    const r = await cli(["delegate", "worke"], { env: t.env });
    assert.equal(r.code, 2);
    assert.doesNotMatch(r.stderr, /worker/);
    // `--` ends the flags: what follows is text, even when it looks like a flag.
    const text = await cli(["registry", "search", "--type", "agnet", "--", "--jsno"], {
      env: t.env,
    });
    assert.equal(text.code, 2);
    assert.match(text.stderr, /--type cannot be "agnet"/);
    assert.match(text.stderr, /Did you mean agent\? Use one of: agent, a2a/);
  } finally {
    t.done();
  }
});
