/** The npm package: built with esbuild, run by Node 24 through its bin shim. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Task } from "../../lib/a2a/mod.ts";
import { VERSION } from "../../lib/core/mod.ts";
import { readPid } from "../../lib/delegation/mod.ts";
import { playground } from "../support/delegation.ts";
import { assertAgentFindsThroughEntry } from "../support/local_delegation.ts";
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
    // The harness code imports yaml's ES module build by its path, for Deno; the package
    // imports it by name, from the dependency an install puts beside it.
    const code = readdirSync(join(out, "dist", "chunks"))
      .map((f) => readFileSync(join(out, "dist", "chunks", f), "utf8")).join("\n");
    assert.match(code, /from "yaml"/);
    assert.doesNotMatch(code, /node_modules\/yaml/);
    assert.ok(pkg.dependencies.yaml, "yaml is a dependency");
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

    // A delegation under Node, which on Linux `run` runs itself while it waits.
    const pg = await playground({ behaviour: "complete" });
    try {
      const child = new Deno.Command(node, {
        args: [bin, "delegate", "run", pg.identifier, "from node", "--wait", "60", "--json"],
        env: { ...env, ...pg.env } as Record<string, string>,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const run = await child.output();
      const task = JSON.parse(new TextDecoder().decode(run.stdout));
      assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
      assert.equal(task.status.state, "TASK_STATE_COMPLETED");
      assert.equal(task.artifacts[0].parts[0].text, "echo:from node");
      assert.equal(readPid(join(pg.home, "delegations", task.id)), child.pid, "no worker");
    } finally {
      await pg.close();
    }

    // A registry Agent under Node whose harness starts the entry written for it (this
    // package), which relays to the run's broker (this package too).
    await assertAgentFindsThroughEntry(async (args, runEnv, cwd) => {
      const r = await new Deno.Command(node, {
        args: [bin, ...args],
        env: { ...env, ...runEnv },
        cwd,
      }).output();
      const text = (b: Uint8Array) => new TextDecoder().decode(b);
      return { code: r.code, stdout: text(r.stdout), stderr: text(r.stderr) };
    });

    // Under Node the runner proves itself alive by its start time. The wait runs out: the
    // worker, which re-executes the same Node script, detached, takes the task over.
    const slow = await playground({ behaviour: "slow" });
    try {
      const nodeEnv = { ...env, ...slow.env } as Record<string, string>;
      const observal = (args: string[]) =>
        new Deno.Command(node, { args: [bin, ...args, "--json"], env: nodeEnv }).output();
      const caller = new Deno.Command(node, {
        args: [bin, "delegate", "run", slow.identifier, "wait for me", "--wait", "600", "--json"],
        env: nodeEnv,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      let seen: Task | undefined;
      for (let i = 0; i < 200 && !seen?.metadata.observal.remoteTaskId; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const list = await slow.json(["delegate", "list"]);
        seen = (list.body as unknown as { items: Task[] }).items[0];
      }
      assert.ok(seen?.metadata.observal.remoteTaskId, "the run reached the agent");
      const dir = join(slow.home, "delegations", seen.id);
      assert.equal(readPid(dir), caller.pid);
      assert.match(readFileSync(join(dir, "runner.lock"), "utf8"), /^linux:/);
      // Seen alive from Deno: not settled as a dead runner's task. The agent may not have
      // said "working" yet when the remote task's id is saved, so submitted counts too.
      const { state } = (await slow.json(["delegate", "status", seen.id])).body
        .status as Task["status"];
      assert.ok(
        state === "TASK_STATE_SUBMITTED" || state === "TASK_STATE_WORKING",
        `seen alive from Deno: ${state}`,
      );
      caller.kill("SIGINT");
      const stopped = await caller.output();
      assert.equal(stopped.code, 10, new TextDecoder().decode(stopped.stderr));
      const worker = readPid(dir);
      assert.ok(worker !== undefined && worker !== caller.pid, "a worker took over");
      const canceled = await observal(["delegate", "cancel", seen.id]);
      assert.equal(canceled.code, 0, new TextDecoder().decode(canceled.stderr));
      assert.deepEqual(slow.agent.canceled, [seen.metadata.observal.remoteTaskId]);
      assert.equal(
        slow.agent.requests.filter((r) => r.rpcMethod === "SendMessage").length,
        1,
        "the worker sent nothing again",
      );
    } finally {
      await slow.close();
    }

    // The long-running servers replace their process once with a small young generation:
    // the same pid, answering over stdio; a user's own setting is kept.
    for (const nodeOptions of ["", "--max-semi-space-size=4"]) {
      const mcp = new Deno.Command(node, {
        args: [bin, "delegate", "mcp"],
        env: { ...env, NODE_OPTIONS: nodeOptions },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = mcp.stdin.getWriter();
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "npm-test", version: "1" },
        },
      };
      await writer.write(new TextEncoder().encode(JSON.stringify(initialize) + "\n"));
      const reader = mcp.stdout.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.equal(JSON.parse(first.split("\n")[0]).id, 1, first);
      // Answered: the process the test started is the server, as it runs now.
      const cmdline = readFileSync(`/proc/${mcp.pid}/cmdline`, "utf8").split("\0");
      const environ = readFileSync(`/proc/${mcp.pid}/environ`, "utf8").split("\0");
      if (nodeOptions) {
        assert.ok(!cmdline.includes("--max-semi-space-size=1"), cmdline.join(" "));
      } else {
        assert.equal(cmdline[1], "--max-semi-space-size=1", cmdline.join(" "));
        assert.ok(cmdline.includes(bin) && cmdline.includes("mcp"), cmdline.join(" "));
        assert.ok(environ.some((v) => v.startsWith("OBSERVAL_HOME=")), "environment kept");
      }
      reader.releaseLock();
      await writer.close();
      const ended = await mcp.output();
      assert.equal(ended.code, 0, new TextDecoder().decode(ended.stderr));
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
