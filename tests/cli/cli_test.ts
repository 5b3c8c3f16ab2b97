/** The command line: help everywhere, --version, --json errors, exit codes. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Command, type Group } from "../../lib/cli/command.ts";
import { rootGroup } from "../../lib/cli/mod.ts";
import { VERSION } from "../../lib/core/mod.ts";
import { cli } from "../support/cli.ts";

function paths(node: Command | Group, prefix: string[] = []): string[][] {
  const here = [...prefix, node.name];
  if (!("commands" in node)) return [here];
  return [here, ...node.commands.flatMap((c) => paths(c, here))];
}

function tempHome() {
  const home = mkdtempSync(join(tmpdir(), "observal-cli-"));
  return {
    home,
    env: { OBSERVAL_HOME: home, HOME: home },
    done: () => rmSync(home, { recursive: true, force: true }),
  };
}

Deno.test("every command answers --help with usage and exit 0", async () => {
  const t = tempHome();
  try {
    const all = paths(rootGroup).map((p) => p.slice(1));
    assert.ok(all.length > 20, `found ${all.length} commands`);
    for (const p of all) {
      const r = await cli([...p, "--help"], { env: t.env });
      assert.equal(r.code, 0, `${p.join(" ")}: ${r.stderr}`);
      assert.match(r.stdout, /Usage:/, p.join(" "));
    }
  } finally {
    t.done();
  }
});

Deno.test("--version prints the version, as text and as JSON", async () => {
  const t = tempHome();
  try {
    const text = await cli(["--version"], { env: t.env });
    assert.equal(text.code, 0);
    assert.match(text.stdout, new RegExp(`^observal ${VERSION.replace(/\./g, "\\.")} `));
    const json = await cli(["--version", "--json"], { env: t.env });
    assert.equal(JSON.parse(json.stdout).version, VERSION);
  } finally {
    t.done();
  }
});

Deno.test("usage errors exit 2 and say what to do; --json errors are one JSON object", async () => {
  const t = tempHome();
  try {
    const unknown = await cli(["registry", "frobnicate"], { env: t.env });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown command/);
    assert.match(unknown.stderr, /Choose one of/);
    const missing = await cli(["registry", "a2a", "review", "urn:air:x:a2a:y", "--approve"], {
      env: t.env,
    });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--digest/);
    const flag = await cli(["registry", "search", "x", "--bogus"], { env: t.env });
    assert.equal(flag.code, 2);
    const json = await cli(["registry", "inspect", "urn:air:nowhere:a2a:x", "--json"], {
      env: t.env,
    });
    assert.equal(json.code, 5);
    const err = JSON.parse(json.stderr);
    assert.equal(err.error.errorCode, "NOT_FOUND");
    assert.ok(err.error.remediation);
    assert.equal(json.stdout, "");
  } finally {
    t.done();
  }
});

Deno.test("a broken config.json or server URL is reported with the fix", async () => {
  const t = tempHome();
  try {
    Deno.writeTextFileSync(join(t.home, "config.json"), "{not json");
    const r = await cli(["registry", "search", "x"], { env: t.env });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /config\.json is not valid JSON/);
    rmSync(join(t.home, "config.json"));
    const bad = await cli(["registry", "search", "x"], {
      env: { ...t.env, OBSERVAL_SERVER_URL: "ftp://x" },
    });
    assert.equal(bad.code, 2);
    const down = await cli(["registry", "search", "x"], {
      env: { ...t.env, OBSERVAL_SERVER_URL: "http://127.0.0.1:9" },
    });
    assert.equal(down.code, 8);
    assert.match(down.stderr, /Cannot reach the registry/);
  } finally {
    t.done();
  }
});

Deno.test("help exit-codes lists every exit code", async () => {
  const t = tempHome();
  try {
    const r = await cli(["help", "exit-codes"], { env: t.env });
    assert.equal(r.code, 0);
    for (const code of ["0", "1", "2", "4", "5", "6", "7", "8", "9"]) {
      assert.match(r.stdout, new RegExp(`^${code}  `, "m"));
    }
  } finally {
    t.done();
  }
});
