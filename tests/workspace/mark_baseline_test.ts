import assert from "node:assert/strict";
import { join } from "node:path";
import { createWorkspace, type GitWorkspace, markBaseline } from "../../lib/workspace/mod.ts";
import { commitAll, initRepo, sandbox, write } from "./_helpers.ts";

Deno.test("markBaseline() makes every path the install created or changed a setup path", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "opencode.json"), "{}\n");
  write(join(repo, "sub", "keep.txt"), "keep\n");
  write(join(repo, ".gitignore"), ".claude/\n");
  commitAll(repo, sb.env);
  const ws = await createWorkspace({
    home: sb.home,
    cwd: join(repo, "sub"),
    env: sb.env,
  }) as GitWorkspace;
  // The install rewrites a tracked file, adds one, and writes into an ignored folder.
  write(join(ws.worktree, "opencode.json"), '{ "agent": {} }\n');
  write(join(ws.path, "AGENTS.md"), "instructions\n");
  write(join(ws.path, ".claude", "agents", "a.md"), "agent\n");
  const baseline = await markBaseline(ws, [".claude/agents/a.md", "AGENTS.md"]);
  assert.deepEqual(baseline.setupPaths, [
    "opencode.json",
    "sub/.claude/agents/a.md",
    "sub/AGENTS.md",
  ]);
  assert.notEqual(baseline.baseTree, ws.startTree);
});

Deno.test("markBaseline() with nothing installed keeps the start tree and no setup paths", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(join(repo, "a.txt"), "a\n");
  commitAll(repo, sb.env);
  write(join(repo, "a.txt"), "uncommitted\n");
  const ws = await createWorkspace({ home: sb.home, cwd: repo, env: sb.env }) as GitWorkspace;
  const baseline = await markBaseline(ws);
  assert.deepEqual(baseline, { baseTree: ws.startTree, setupPaths: [] });
});

Deno.test("markBaseline() refuses a written path outside the copy", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  commitAll(repo, sb.env);
  const ws = await createWorkspace({ home: sb.home, cwd: repo, env: sb.env });
  for (const p of ["../escape.md", "/etc/passwd", ".", join(ws.root, "scratch", "x")]) {
    await assert.rejects(markBaseline(ws, [p]), { code: "INVALID_ARGUMENT" }, p);
  }
  // Absolute paths inside the copy are fine.
  const baseline = await markBaseline(ws, [join(ws.path, "dir", "x.md")]);
  assert.deepEqual(baseline.setupPaths, ["dir/x.md"]);
});
