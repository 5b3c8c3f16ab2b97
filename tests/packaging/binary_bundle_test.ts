/**
 * The bundle a compiled binary embeds (`compile.sh --bundle DIR`), run the way the binary
 * runs it: `deno run --no-config` with the permissions compile.sh bakes in. The binary
 * itself cannot be built here (deno compile downloads its runtime), so this is the closest
 * check that its modules load and a delegation completes through them.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "../../lib/core/version.ts";
import { playground } from "../support/delegation.ts";
import { assertAgentFindsThroughEntry } from "../support/local_delegation.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The permissions compile.sh compiles in, read from the script itself. */
function compiledPermissions(): string[] {
  const line = readFileSync(join(root, "compile.sh"), "utf8").match(/^PERMS=\((.*)\)$/m);
  assert.ok(line, "compile.sh has no PERMS=(...) line");
  return line[1].split(/\s+/).filter(Boolean);
}

Deno.test("compile.sh --bundle: a small entry and a chunk per command; a delegation, an MCP install and doctor run through it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-bundle-"));
  const pg = await playground({ behaviour: "complete" });
  try {
    // Under a project whose deno.json loads dynamic imports lazily (as this repository's
    // does): a worker that read that config could not load its own chunks.
    writeFileSync(join(dir, "deno.json"), JSON.stringify({ unstable: ["lazy-dynamic-imports"] }));
    const out = join(dir, "bundle");
    execFileSync("bash", ["compile.sh", "--bundle", out], { cwd: root, stdio: "pipe" });
    // Split at every dynamic import: a start loads the entry, not every command's code.
    assert.ok(statSync(join(out, "observal.mjs")).size < 64 * 1024);
    assert.ok(readdirSync(join(out, "chunks")).length >= 20);

    const observal = async (args: string[], cwd = dir) => {
      const r = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-config", ...compiledPermissions(), join(out, "observal.mjs"), ...args],
        env: pg.env as Record<string, string>,
        cwd,
      }).output();
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      return { code: r.code, stdout: text(r.stdout), stderr: text(r.stderr) };
    };
    const version = await observal(["--version"]);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, new RegExp(`^observal ${VERSION.replaceAll(".", "\\.")}\\b`));

    // The worker is the bundle run again: it must load its own chunks and finish the task.
    const run = await observal(["delegate", "run", pg.identifier, "from the bundle", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    const task = JSON.parse(run.stdout);
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(task.artifacts[0].parts[0].text, "echo:from the bundle");

    // A registry Agent whose harness starts the entry written for it (the bundle), which
    // relays to the run's broker (the bundle too).
    await assertAgentFindsThroughEntry(async (args, env, cwd) => {
      const r = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-config", ...compiledPermissions(), join(out, "observal.mjs"), ...args],
        env,
        cwd,
      }).output();
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      return { code: r.code, stdout: text(r.stdout), stderr: text(r.stderr) };
    });

    const search = await observal(["registry", "search", "echo", "--json"]);
    assert.equal(search.code, 0, search.stderr);
    assert.ok(
      JSON.parse(search.stdout).items.some((i: { identifier: string }) =>
        i.identifier === pg.identifier
      ),
    );

    // Dependencies bundled from CommonJS (cross-spawn in the MCP client that doctor probes
    // with) ask for Node's built-ins with `require`.
    const project = join(dir, "project");
    mkdirSync(project);
    execFileSync("git", ["init", "-q"], { cwd: project });
    // yaml goes in as its ES module build: Goose's config is edited through it, keeping the
    // user's own keys and comments.
    const goose = join(pg.home, ".config", "goose", "config.yaml");
    mkdirSync(join(pg.home, ".config", "goose"), { recursive: true });
    writeFileSync(goose, "# mine\nGOOSE_MODEL: some-model\n");
    const gooseInstall = await observal(["mcp", "install", "--harness", "goose"], project);
    assert.equal(gooseInstall.code, 0, gooseInstall.stderr);
    const edited = readFileSync(goose, "utf8");
    assert.ok(
      edited.startsWith("# mine\nGOOSE_MODEL: some-model\nextensions:\n  observal-agents:\n"),
      edited,
    );
    assert.match(edited, /\n {6}- delegate\n {6}- mcp\n/);
    const install = await observal(["mcp", "install", "--harness", "claude-code"], project);
    assert.equal(install.code, 0, install.stderr);
    const doctor = await observal(["doctor", "--json"], project);
    const entry = JSON.parse(doctor.stdout).checks.find((c: { check: string }) =>
      c.check.startsWith("observal-agents in ")
    );
    assert.equal(entry?.status, "ok", doctor.stdout + doctor.stderr);
    assert.match(entry.detail, /launches, 4 tools/);
  } finally {
    await pg.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("compile.sh --bundle refuses a folder that holds anything but a bundle, and leaves it as it was", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-bundle-"));
  try {
    const mine = join(dir, "mine");
    mkdirSync(mine);
    writeFileSync(join(mine, "notes.txt"), "keep me");
    const out = await new Deno.Command("bash", {
      args: ["compile.sh", "--bundle", mine],
      cwd: root,
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2);
    assert.match(new TextDecoder().decode(out.stderr), /is not a bundle/);
    assert.equal(readFileSync(join(mine, "notes.txt"), "utf8"), "keep me");
    assert.equal(existsSync(join(mine, "observal.mjs")), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
