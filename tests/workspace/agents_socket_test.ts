/**
 * Where a sandboxed agent's broker socket goes: in its task folder while the path fits a
 * socket address, else in a folder of its own under /tmp that only this user may enter,
 * and that the sandbox shows the child writable.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  agentsSocketFolder,
  agentsSocketPath,
  madeAgentsSocketFolder,
  makeAgentsSocketFolder,
  removeAgentsSocketFolder,
} from "../../lib/workspace/roots/mod.ts";
import { sandboxPolicy } from "../../lib/runner/sandbox_policy.ts";

const posix = Deno.build.os !== "windows";
const id = () => crypto.randomUUID();

Deno.test({
  name: "agentsSocketPath() keeps the socket in a task folder short enough to hold it",
  ignore: !posix,
  fn() {
    const taskDir = `/home/me/.observal/delegations/${id()}`;
    assert.equal(agentsSocketPath(taskDir), `${taskDir}/agents.sock`);
    assert.equal(agentsSocketFolder(taskDir), undefined);
  },
});

Deno.test({
  name: "agentsSocketPath() gives a task folder too deep for a socket a short folder of its own",
  ignore: !posix,
  fn() {
    const task = id();
    const taskDir = `/home/me/${"deep/".repeat(20)}.observal/delegations/${task}`;
    const folder = `/tmp/observal-agents-${Deno.uid()}-${task}`;
    assert.equal(agentsSocketPath(taskDir), `${folder}/agents.sock`);
    assert.equal(agentsSocketFolder(taskDir), folder);
    assert.ok(new TextEncoder().encode(agentsSocketPath(taskDir)!).length < 104);
  },
});

Deno.test({
  name: "the socket's own folder is made private, shown to the sandbox writable, and removed",
  ignore: !posix,
  fn() {
    const taskDir = `/home/me/${"deep/".repeat(20)}delegations/${id()}`;
    const folder = agentsSocketFolder(taskDir)!;
    try {
      assert.equal(madeAgentsSocketFolder(taskDir), undefined, "not made yet");
      makeAgentsSocketFolder(folder);
      assert.equal(Deno.lstatSync(folder).mode! & 0o777, 0o700);
      assert.equal(madeAgentsSocketFolder(taskDir), folder);
      const policy = sandboxPolicy({
        env: {},
        workspaceRoot: "/nowhere/ws",
        taskDir,
        mounts: { observalHome: "/nowhere/home", state: [], hidden: [] },
      });
      assert.ok(policy.writable.includes(Deno.realPathSync(folder)), policy.writable.join(" "));
      removeAgentsSocketFolder(taskDir);
      assert.throws(() => Deno.lstatSync(folder), Deno.errors.NotFound);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
});

Deno.test({
  name:
    "a socket folder someone else could enter, or a link, is refused and not shown to the sandbox",
  ignore: !posix,
  fn() {
    const scratch = mkdtempSync(join(tmpdir(), "observal-socket-"));
    const openTaskDir = `/x/${"deep/".repeat(20)}${id()}`;
    const open = agentsSocketFolder(openTaskDir)!;
    const linkTaskDir = `/x/${"deep/".repeat(20)}${id()}`;
    const link = agentsSocketFolder(linkTaskDir)!;
    try {
      mkdirSync(open);
      chmodSync(open, 0o755);
      assert.throws(() => makeAgentsSocketFolder(open), /not a folder of this user's alone/);
      removeAgentsSocketFolder(openTaskDir);
      assert.ok(Deno.lstatSync(open).isDirectory, "a folder that is not ours alone is left");
      // A link to a private folder of ours is refused all the same: it could be repointed.
      const target = join(scratch, "private");
      mkdirSync(target, { mode: 0o700 });
      symlinkSync(target, link);
      assert.throws(() => makeAgentsSocketFolder(link), /not a folder of this user's alone/);
      assert.equal(madeAgentsSocketFolder(linkTaskDir), undefined);
    } finally {
      rmSync(open, { recursive: true, force: true });
      rmSync(link, { force: true });
      rmSync(scratch, { recursive: true, force: true });
    }
  },
});
