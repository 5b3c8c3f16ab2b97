/**
 * The packed npm package where it lands: installed from its tarball into an empty folder
 * and run, through its bin and the first `node` on PATH as a user would, under the
 * project's Node 24 and the oldest supported Node (22.13 from npm), with nothing on stderr;
 * under an older Node (the system's) it says in one line which Node it needs.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "../../lib/core/mod.ts";
import { ensureNode, PROJECT_NODE } from "./_node_versions.ts";
import { type Installed, packAndInstall } from "./_pack.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const BARE_PATH = "/usr/local/bin:/usr/bin:/bin";
const SYSTEM_NODE = "/usr/bin/node";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the installed bin with `node` first on PATH. With `request`, that line is written to
 * stdin and stdin is closed once a line of output came back (a client that leaves).
 */
function run(
  pkg: Installed,
  node: string,
  env: Record<string, string>,
  args: string[],
  request?: string,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(pkg.bin, args, {
      cwd: pkg.app,
      env: { ...env, PATH: `${dirname(node)}:${BARE_PATH}` },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      if (request && stdout.includes("\n")) child.stdin.end();
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    if (request) child.stdin.write(`${request}\n`);
    else child.stdin.end();
  });
}

/** The MCP server's answer to one JSON-RPC `initialize` over stdio. */
function mcpInitialize(pkg: Installed, node: string, env: Record<string, string>): Promise<Run> {
  const request = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "packaging-test", version: "0" },
    },
  };
  return run(pkg, node, env, ["delegate", "mcp"], JSON.stringify(request));
}

Deno.test("the npm bin runs under Node 24 and 22.13 without noise, and refuses Node 20 in one line", async () => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), "observal-npmv-")));
  try {
    const pkg = packAndInstall(work);

    // Only what the package needs, and the project's identity fields as they are.
    const root = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    const licence = readdirSync(REPO).filter((f) => /^(LICENSE|LICENSE\.md|NOTICE)$/.test(f));
    // The code: the entry and the chunks it loads on demand, all ES modules.
    const chunks = pkg.files.filter((f) => f.startsWith("dist/chunks/"));
    assert.ok(chunks.length > 0, "commands are split into chunks");
    assert.deepEqual(chunks.filter((f) => !/^dist\/chunks\/[\w-]+\.mjs$/.test(f)), []);
    assert.deepEqual(
      pkg.files.filter((f) => !chunks.includes(f)),
      [
        ...licence,
        "README.md",
        "bin/observal.mjs",
        "dist/main.mjs",
        // The licence of zod, which is built into the chunks that use it.
        "licenses/zod.txt",
        "package.json",
      ].sort(),
    );
    const manifest = JSON.parse(
      readFileSync(join(pkg.app, "node_modules", "observal", "package.json"), "utf8"),
    );
    assert.equal(manifest.license, root.license);
    assert.deepEqual(manifest.repository, root.repository);
    assert.equal(manifest.engines.node, ">=22.13.0");

    // An older Node: one line naming the version needed, exit 1, nothing loaded before.
    const old = execFileSync(SYSTEM_NODE, ["--version"], { encoding: "utf8" }).trim();
    assert.ok(Number(old.slice(1).split(".")[0]) < 22, `${SYSTEM_NODE} is ${old}, not older`);
    const refused = await run(pkg, SYSTEM_NODE, { HOME: work }, ["--help"]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, "");
    const lines = refused.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, refused.stderr);
    assert.match(lines[0], /needs Node\.js 22\.13\.0 or newer/);
    assert.ok(lines[0].includes(old));

    const node22 = await ensureNode("22.13.0");
    const nodes = [["24", PROJECT_NODE, /^24\./], ["22.13", node22, /^22\.13\.0$/]] as const;
    for (const [label, node, version] of nodes) {
      const tmp = join(work, `tmp-${label}`);
      mkdirSync(tmp);
      const home = join(work, `home-${label}`);
      const env = { HOME: home, OBSERVAL_HOME: join(home, ".observal"), TMPDIR: tmp };

      const v = await run(pkg, node, env, ["--version"]);
      assert.equal(v.code, 0, v.stderr);
      const [, runtime] = /^observal \S+ \(node (\S+)\)$/.exec(v.stdout.trim()) ?? [];
      assert.match(runtime ?? v.stdout, version);
      assert.ok(v.stdout.includes(VERSION));
      assert.equal(v.stderr, "");
      // The bin turned on Node's compile cache (default folder: under TMPDIR).
      assert.ok(readdirSync(tmp).includes("node-compile-cache"), readdirSync(tmp).join(","));

      const list = await run(pkg, node, env, ["delegate", "list", "--json"]);
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(JSON.parse(list.stdout), { items: [], total: 0 });
      assert.equal(list.stderr, "");

      const mcp = await mcpInitialize(pkg, node, env);
      const answer = JSON.parse(mcp.stdout.split("\n")[0]);
      assert.equal(answer.id, 1);
      assert.equal(answer.result.serverInfo.name, "observal-agents");
      assert.doesNotMatch(mcp.stderr, /warning|\(node:\d+\)|^\s+at /im);

      const search = await run(pkg, node, env, ["registry", "search", "release notes", "--json"]);
      assert.equal(search.code, 0, `node ${label}: ${search.stderr}`);
      assert.ok(Array.isArray(JSON.parse(search.stdout).items), search.stdout);
      assert.equal(search.stderr, "");
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
