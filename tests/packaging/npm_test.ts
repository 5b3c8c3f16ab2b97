/** The npm package: built with esbuild, run by Node 24 through its bin shim. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "../../lib/core/mod.ts";
import { playground } from "../support/delegation.ts";
import { buildNpm } from "./_pack.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

Deno.test("npm package builds and runs under Node: --version, search, errors, a delegation", async () => {
  // Inside the repo so Node finds the dependencies in node_modules, as an install would.
  const out = join(root, "tmp", `npm-test-${crypto.randomUUID().slice(0, 8)}`);
  const home = mkdtempSync(join(tmpdir(), "observal-npm-"));
  try {
    buildNpm(out);
    const pkg = JSON.parse(readFileSync(join(out, "package.json"), "utf8"));
    assert.equal(pkg.version, VERSION);
    assert.equal(pkg.bin.observal, "bin/observal.mjs");
    const node = join(root, "node_modules", ".bin", "node");
    const env = { ...Deno.env.toObject(), OBSERVAL_HOME: home, NO_COLOR: "1" };
    const bin = join(out, "bin", "observal.mjs");
    const version = execFileSync(node, [bin, "--version"], { env, encoding: "utf8" });
    assert.match(version, new RegExp(`^observal ${VERSION.replaceAll(".", "\\.")} \\(node 24\\.`));
    const search = execFileSync(node, [bin, "registry", "search", "anything", "--json"], {
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    assert.deepEqual(JSON.parse(search), { items: [], total: 0 });
    let failed: { status: number; stderr: string } | undefined;
    try {
      execFileSync(node, [bin, "registry", "inspect", "urn:air:x:a2a:y", "--json"], {
        env,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (e) {
      failed = e as { status: number; stderr: string };
    }
    assert.equal(failed?.status, 5);
    assert.equal(JSON.parse(failed!.stderr).error.errorCode, "NOT_FOUND");
    assert.doesNotMatch(failed!.stderr, /ExperimentalWarning/);

    // A delegation under Node: the worker re-executes the same Node script, detached.
    const pg = await playground({ behaviour: "complete" });
    try {
      const run = await new Deno.Command(node, {
        args: [bin, "delegate", "run", pg.identifier, "from node", "--wait", "60", "--json"],
        env: { ...env, ...pg.env } as Record<string, string>,
      }).output();
      const task = JSON.parse(new TextDecoder().decode(run.stdout));
      assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
      assert.equal(task.status.state, "TASK_STATE_COMPLETED");
      assert.equal(task.artifacts[0].parts[0].text, "echo:from node");
    } finally {
      await pg.close();
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
});

Deno.test("npm package with --bundle-deps: CommonJS dependencies built in still get Node's built-ins", async () => {
  const out = join(root, "tmp", `npm-test-${crypto.randomUUID().slice(0, 8)}`);
  const home = mkdtempSync(join(tmpdir(), "observal-npm-"));
  try {
    buildNpm(out, "--bundle-deps");
    const code = readdirSync(join(out, "dist", "chunks"))
      .map((f) => readFileSync(join(out, "dist", "chunks", f), "utf8")).join("\n");
    // yaml ships as CommonJS; built in, its `require("process")` must be answered.
    assert.doesNotMatch(code, /from "yaml"/, "yaml is built in");
    assert.match(code, /__require\("process"\)/);
    const project = join(home, "project");
    mkdirSync(project);
    execFileSync("git", ["init", "-q"], { cwd: project });
    const r = await new Deno.Command(join(root, "node_modules", ".bin", "node"), {
      args: [join(out, "bin", "observal.mjs"), "mcp", "install", "--harness", "codex", "--dry-run"],
      env: { ...Deno.env.toObject(), OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" },
      cwd: project,
    }).output();
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    assert.equal(r.code, 0, text(r.stderr));
    assert.match(text(r.stdout), /config\.toml/);
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
});
