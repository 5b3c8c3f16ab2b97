import assert from "node:assert/strict";
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  createWorkspace,
  listWorkspaceRoots,
  removeWorkspace,
  WORKSPACE_PREFIX,
  workspaceRootOf,
  workspacesDir,
} from "../../lib/workspace/mod.ts";
import { sandbox } from "./_helpers.ts";

Deno.test("workspacesDir() is <home>/delegations/ws", () => {
  assert.equal(workspacesDir("/h"), join("/h", "delegations", "ws"));
  assert.equal(WORKSPACE_PREFIX, "observal-delegate-");
});

Deno.test("listWorkspaceRoots() lists only prefixed folders, resolved and sorted", async () => {
  using sb = sandbox();
  assert.deepEqual(listWorkspaceRoots(sb.home), []);
  const a = await createWorkspace({ home: sb.home, cwd: sb.dir, env: sb.env });
  const b = await createWorkspace({ home: sb.home, cwd: sb.dir, env: sb.env });
  const dir = workspacesDir(sb.home);
  mkdirSync(join(dir, "other-folder"));
  mkdirSync(join(dir, WORKSPACE_PREFIX.slice(0, -1) + "x"));
  symlinkSync(a.root, join(dir, `${WORKSPACE_PREFIX}link`));
  assert.deepEqual(listWorkspaceRoots(sb.home), [a.root, b.root].sort());
});

Deno.test("workspaceRootOf() finds the root of any path inside a workspace", async () => {
  using sb = sandbox();
  const ws = await createWorkspace({ home: sb.home, cwd: sb.dir, env: sb.env });
  assert.equal(workspaceRootOf(ws.root, sb.home), ws.root);
  assert.equal(workspaceRootOf(ws.path, sb.home), ws.root);
  assert.equal(workspaceRootOf(join(ws.path, "."), sb.home), ws.root);
  // Reached through a symlinked home, it still resolves to the real root.
  const alias = join(sb.dir, "alias");
  symlinkSync(sb.home, alias);
  assert.equal(
    workspaceRootOf(join(workspacesDir(alias), ws.root.split("/").pop()!), alias),
    ws.root,
  );
});

Deno.test("workspaceRootOf() refuses look-alikes, escapes, symlinks out and relative paths", async () => {
  using sb = sandbox();
  const ws = await createWorkspace({ home: sb.home, cwd: sb.dir, env: sb.env });
  const dir = workspacesDir(sb.home);
  const outside = join(sb.dir, "outside");
  mkdirSync(outside);
  symlinkSync(outside, join(dir, `${WORKSPACE_PREFIX}out`));
  symlinkSync(outside, join(ws.path, "escape"));
  mkdirSync(join(dir, "not-a-workspace"));
  for (
    const p of [
      join(dir, `${WORKSPACE_PREFIX}x`, "..", ".."),
      `${ws.root}/../..`,
      join(dir, `${WORKSPACE_PREFIX}out`),
      join(dir, `${WORKSPACE_PREFIX}out`, "inner"),
      join(ws.path, "escape"),
      join(dir, "not-a-workspace"),
      dir,
      join(dir, WORKSPACE_PREFIX),
      join(dir, `${WORKSPACE_PREFIX}missing`),
      "delegations/ws/" + ws.root.split("/").pop(),
      sb.dir,
    ]
  ) {
    assert.equal(workspaceRootOf(p, sb.home), undefined, p);
  }
});

Deno.test("removeWorkspace() deletes a workspace root and says it is gone", async () => {
  using sb = sandbox();
  const ws = await createWorkspace({ home: sb.home, cwd: sb.dir, env: sb.env });
  // The agent left a read-only folder and a link to something outside.
  const outside = join(sb.dir, "keep");
  mkdirSync(outside);
  symlinkSync(outside, join(ws.path, "link"));
  mkdirSync(join(ws.path, "ro", "deep"), { recursive: true });
  Deno.chmodSync(join(ws.path, "ro"), 0o500);
  assert.equal(removeWorkspace(ws.root, sb.home), true);
  assert.deepEqual(listWorkspaceRoots(sb.home), []);
  assert.equal(realpathSync(outside), outside);
  // Already gone counts as gone.
  assert.equal(removeWorkspace(ws.root, sb.home), true);
});

Deno.test("removeWorkspace() refuses anything that is not itself a workspace root", async () => {
  using sb = sandbox();
  const ws = await createWorkspace({ home: sb.home, cwd: sb.dir, env: sb.env });
  const dir = workspacesDir(sb.home);
  const victim = join(sb.dir, "victim");
  mkdirSync(victim);
  symlinkSync(victim, join(dir, `${WORKSPACE_PREFIX}evil`));
  symlinkSync(ws.root, join(dir, `${WORKSPACE_PREFIX}alias`));
  mkdirSync(join(dir, "plain"));
  for (
    const p of [
      victim,
      ws.path,
      join(dir, `${WORKSPACE_PREFIX}evil`),
      join(dir, `${WORKSPACE_PREFIX}alias`),
      join(dir, "plain"),
      dir,
      join(ws.root, "..", "..", ".."),
      join(sb.dir, `${WORKSPACE_PREFIX}gone`),
      "relative/" + WORKSPACE_PREFIX + "x",
    ]
  ) {
    assert.throws(() => removeWorkspace(p, sb.home), { code: "INVALID_ARGUMENT" }, p);
  }
  assert.deepEqual(listWorkspaceRoots(sb.home), [ws.root]);
  assert.equal(realpathSync(victim), victim);
  // A workspace made under another home is not this home's to delete.
  assert.throws(() => removeWorkspace(ws.root, join(sb.dir, "other-home")), {
    code: "INVALID_ARGUMENT",
  });
});
