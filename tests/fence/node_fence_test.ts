/**
 * What Node's permission model can fence of a worker, measured with the project's Node 24
 * and the flags observal gives a remote task's worker there: files through node:fs are
 * fenced; database files (node:sqlite) and the network are not; and a process that runs
 * programs cannot be fenced, because Node passes its fence on to child Node programs
 * (most harness CLIs), so a local task's worker runs unfenced under Node.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createContext, nodePermissionFlags, nodeProgramRoots } from "../../lib/core/mod.ts";
import { localPermissions, remotePermissions } from "../../lib/delegation/mod.ts";
import { PROJECT_NODE } from "../packaging/_node_versions.ts";
import { PROBE } from "./_worker_argv.ts";

async function node(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  const r = await new Deno.Command(PROJECT_NODE, { args, cwd, env: { PATH: "/usr/bin:/bin" } })
    .output();
  const d = new TextDecoder();
  return { code: r.code, out: d.decode(r.stdout) + d.decode(r.stderr) };
}

Deno.test("nodePermissionFlags() fences a remote worker's files under Node, not its databases or network", async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-nodefence-")));
  const server = createServer((_req, res) => res.end("other"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const home = join(root, "home");
    const taskDir = join(home, "delegations", crypto.randomUUID());
    const otherTask = join(home, "delegations", crypto.randomUUID());
    for (const d of [taskDir, otherTask]) mkdirSync(d, { recursive: true });
    writeFileSync(join(taskDir, "worker.log"), "mine\n");
    writeFileSync(join(otherTask, "worker.log"), "theirs\n");
    const ctx = createContext({ env: { OBSERVAL_HOME: home }, home, cwd: root });
    const perms = remotePermissions(ctx, ["127.0.0.1:1"], {
      taskDir,
      storePath: join(home, "delegations", "tasks.db"),
    });
    const flags = nodePermissionFlags(perms, {
      programRoots: nodeProgramRoots(PROBE),
      nodeMajor: 24,
    });
    assert.ok(flags?.includes("--permission"));
    const checks = [
      { name: "own log", read: join(taskDir, "worker.log") },
      { name: "own folder write", write: join(taskDir, "probe.txt") },
      { name: "another task", read: join(otherTask, "worker.log") },
      { name: "home write", write: join(home, "planted") },
      { name: "outside", read: "/etc/hostname" },
      // Measured limits: these pass although they lie outside the fence.
      { name: "another database", sqlite: join(otherTask, "other.db") },
      { name: "other host", fetch: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` },
    ];
    const r = await node([...flags!, PROBE, JSON.stringify(checks)], taskDir);
    assert.equal(r.code, 0, r.out);
    assert.deepEqual(JSON.parse(r.out), {
      "own log": "ok",
      "own folder write": "ok",
      "another task": "denied",
      "home write": "denied",
      "outside": "denied",
      "another database": "ok",
      "other host": "ok",
    });

    // Node 25+ fences the network, all or nothing: a worker that needs it is allowed it.
    assert.ok(
      nodePermissionFlags(perms, { programRoots: [], nodeMajor: 25 })!.includes("--allow-net"),
    );
    // A local task's worker runs git and the harness: Node cannot fence it (below).
    const local = localPermissions(ctx, { key: "claude-code", binary: "/usr/bin/true" }, [], {
      taskDir,
      storePath: join(home, "delegations", "tasks.db"),
    });
    assert.equal(nodePermissionFlags(local, { programRoots: [], nodeMajor: 24 }), undefined);
  } finally {
    server.close();
    rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("Node passes its permission model on to a child Node program, so a worker that runs harness CLIs is left unfenced", async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-nodefence-")));
  try {
    const parent = join(root, "parent.mjs");
    const secret = join(root, "readable-by-the-child.txt");
    writeFileSync(secret, "x\n");
    writeFileSync(
      parent,
      `import { spawnSync } from "node:child_process";
const r = spawnSync(process.execPath, ["-e", "require('fs').readFileSync(process.argv[1])", ${
        JSON.stringify(secret)
      }], { encoding: "utf8" });
process.stdout.write(/ERR_ACCESS_DENIED/.test(r.stderr) ? "child fenced" : "child free");
`,
    );
    const r = await node(
      ["--permission", `--allow-fs-read=${parent}`, "--allow-child-process", parent],
      root,
    );
    assert.match(r.out, /child fenced/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
