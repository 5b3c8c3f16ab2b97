/**
 * Property: for random caller repositories and random agent work, the caller's repository
 * is byte-for-byte unchanged (working tree and every file under .git), no hook runs, and
 * the patch applied with `git apply` at the caller's top reproduces the agent's tree.
 *
 * Reproduce a failure with FC_SEED=<seed> (fast-check prints the seed and the shrunk case).
 */
import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import {
  createWorkspace,
  type GitWorkspace,
  markBaseline,
  removeWorkspace,
  workspaceChanges,
} from "../../lib/workspace/mod.ts";
import {
  assertRoundTrip,
  assertSameSnapshot,
  git,
  gitMaybe,
  initRepo,
  link,
  sandbox,
  snapshot,
  write,
} from "./_helpers.ts";

// No name is a folder of another, so every write below has a place to go.
const NAMES = [
  "a.txt",
  "with space.txt",
  "ünïcødé.txt",
  "new\nline.txt",
  "*.glob",
  "-dash.txt",
  'q"uote.txt',
  "bin.dat",
  "sub/b.txt",
  "sub/run.sh",
  "sub/deeper/c.txt",
  "日本/語.txt",
];
const NEW_NAMES = ["fresh.txt", "sub/fresh file.txt", "new dir/x.bin", "sub/deeper/ñ.txt"];
const IGNORED = ["x.log", "build/out.txt"];
const TARGETS = ["a.txt", "../a.txt", "missing", "sub", "/etc/hostname"];
const CWDS = ["", "sub", "build", "emptydir/inner"];
const DIFF_CONFIG: [string, string][] = [
  ["diff.noprefix", "true"],
  ["diff.mnemonicPrefix", "true"],
  ["diff.relative", "true"],
  ["color.ui", "always"],
  ["diff.external", "/bin/false"],
  ["diff.renames", "copies"],
  ["diff.context", "0"],
  ["core.quotePath", "false"],
];
const HOOKS = [
  "post-checkout",
  "pre-commit",
  "post-commit",
  "post-index-change",
  "reference-transaction",
];

const content = fc.oneof(
  fc.array(fc.constantFrom("alpha", "beta", "  gamma  ", "", "δ", "\t"), { maxLength: 6 })
    .map((lines) => lines.join("\n") + "\n"),
  fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Uint8Array.from([0, ...b])),
  fc.constant(""),
);
const name = fc.constantFrom(...NAMES);
const anyName = fc.constantFrom(...NAMES, ...NEW_NAMES);

type CallerOp =
  | { op: "edit" | "stage"; path: string; data: string | Uint8Array }
  | { op: "delete" | "unstage-delete" | "chmod"; path: string }
  | { op: "link"; path: string; target: string };

type ChildOp =
  | { op: "write"; path: string; data: string | Uint8Array }
  | { op: "delete" | "chmod"; path: string }
  | { op: "link"; path: string; target: string }
  | { op: "ignored" | "setup" }
  | { op: "git"; args: readonly string[] };

const callerOp: fc.Arbitrary<CallerOp> = fc.oneof(
  fc.record({
    op: fc.constantFrom("edit" as const, "stage" as const),
    path: anyName,
    data: content,
  }),
  fc.record({
    op: fc.constantFrom("delete" as const, "unstage-delete" as const, "chmod" as const),
    path: name,
  }),
  fc.record({
    op: fc.constant("link" as const),
    path: anyName,
    target: fc.constantFrom(...TARGETS),
  }),
);

const childOp: fc.Arbitrary<ChildOp> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant("write" as const), path: anyName, data: content }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constantFrom("delete" as const, "chmod" as const),
      path: anyName,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("link" as const),
      path: anyName,
      target: fc.constantFrom(...TARGETS),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constantFrom("ignored" as const, "setup" as const) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("git" as const),
      args: fc.constantFrom<readonly string[]>(
        ["branch", "agent-branch"],
        ["stash"],
        ["add", "-A"],
        ["commit", "-qam", "agent"],
        ["config", "diff.noprefix", "true"],
        ["config", "core.autocrlf", "true"],
        ["config", "core.fileMode", "false"],
        ["config", "core.excludesFile", "AGENT_EXCLUDES"],
        ["config", "core.ignoreStat", "true"],
      ),
    }),
  },
);

const scenario = fc.record({
  unborn: fc.boolean(),
  committed: fc.uniqueArray(fc.record({ path: name, data: content, exec: fc.boolean() }), {
    selector: (f) => f.path,
    minLength: 1,
    maxLength: 8,
  }),
  callerOps: fc.array(callerOp, { maxLength: 6 }),
  untracked: fc.uniqueArray(fc.record({ path: fc.constantFrom(...NEW_NAMES), data: content }), {
    selector: (f) => f.path,
    maxLength: 2,
  }),
  stash: fc.boolean(),
  hooks: fc.boolean(),
  diffConfig: fc.subarray(DIFF_CONFIG),
  cwd: fc.constantFrom(...CWDS),
  installOverwrites: fc.boolean(),
  childOps: fc.array(childOp, { minLength: 1, maxLength: 8 }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function flipExec(path: string): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st?.isFile()) Deno.chmodSync(path, st.mode & 0o111 ? 0o644 : 0o755);
}

async function check(s: Scenario): Promise<void> {
  using sb = sandbox();
  const repo = initRepo(sb);
  const env = sb.env;
  write(join(repo, ".gitignore"), "*.log\nbuild/\n");
  for (const f of s.committed) write(join(repo, f.path), f.data, f.exec ? 0o755 : 0o644);
  git(repo, env, "add", "-A");
  if (!s.unborn) {
    git(repo, env, "commit", "-qm", "initial");
    if (s.stash) {
      write(join(repo, s.committed[0].path), "stashed work\n");
      git(repo, env, "stash", "-q");
    }
  }
  for (const o of s.callerOps) {
    const p = join(repo, o.path);
    if (o.op === "edit" || o.op === "stage") {
      write(p, o.data);
      if (o.op === "stage") git(repo, env, "add", "--", o.path);
    } else if (o.op === "delete") rmSync(p, { force: true });
    else if (o.op === "unstage-delete") gitMaybe(repo, env, "rm", "-q", "--cached", "--", o.path);
    else if (o.op === "chmod") flipExec(p);
    else if (o.op === "link") link(o.target, p);
  }
  for (const u of s.untracked) write(join(repo, u.path), u.data);
  for (const i of IGNORED) write(join(repo, i), "ignored\n");
  mkdirSync(join(repo, s.cwd), { recursive: true });
  // Appended by hand: one git call per setting would double the time of a run.
  const config = s.diffConfig.map(([k, v]) => {
    const dot = k.indexOf(".");
    return `[${k.slice(0, dot)}]\n\t${k.slice(dot + 1)} = ${v}\n`;
  });
  appendFileSync(join(repo, ".git", "config"), config.join(""));
  const marker = join(sb.dir, "hook-ran");
  if (s.hooks) {
    for (const h of HOOKS) {
      write(join(repo, ".git", "hooks", h), `#!/bin/sh\necho ${h} >> "${marker}"\n`, 0o755);
    }
  }

  const before = snapshot(repo);
  const ws = await createWorkspace({ home: sb.home, cwd: join(repo, s.cwd), env }) as GitWorkspace;
  try {
    assert.equal(ws.kind, "git");
    assert.deepEqual(ws.notes, [], "nothing should be left out of this copy");
    assert.equal(ws.path, join(ws.worktree, s.cwd));
    for (const i of IGNORED) assert.ok(!existsSync(join(ws.worktree, i)), `${i} was copied`);
    // The copy starts as the caller's visible tree.
    assertRoundTrip(sb, repo, ws.worktree, new Uint8Array());

    // The install writes its files; the agent then works.
    write(join(ws.path, ".agent", "agent.md"), "installed\n");
    const written = [".agent/agent.md"];
    if (s.installOverwrites) write(join(ws.worktree, "a.txt"), "installed over a.txt\n");
    const baseline = await markBaseline(ws, written);
    const excludes = join(sb.dir, "agent-excludes");
    write(excludes, "*.txt\n");
    for (const o of s.childOps) {
      const p = "path" in o ? join(ws.worktree, o.path) : "";
      if (o.op === "write") write(p, o.data);
      else if (o.op === "delete") rmSync(p, { force: true });
      else if (o.op === "chmod") flipExec(p);
      else if (o.op === "link") link(o.target, p);
      else if (o.op === "ignored") write(join(ws.worktree, "agent.log"), "ignored\n");
      else if (o.op === "setup") write(join(ws.path, ".agent", "agent.md"), "agent edit\n");
      else if (o.op === "git") {
        gitMaybe(ws.worktree, env, ...o.args.map((a) => (a === "AGENT_EXCLUDES" ? excludes : a)));
      }
    }
    const changes = await workspaceChanges(ws, baseline);
    assertRoundTrip(sb, repo, ws.worktree, changes.bytes, baseline.setupPaths);
  } finally {
    assert.ok(removeWorkspace(ws.root, sb.home));
  }
  assertSameSnapshot(before, snapshot(repo), "the caller's repository");
  assert.ok(
    !existsSync(marker),
    `a hook ran: ${existsSync(marker) ? readFileSync(marker, "utf8") : ""}`,
  );
  assert.ok(statSync(repo).isDirectory());
}

Deno.test("createWorkspace()..removeWorkspace() never change the caller and the patch round-trips", async () => {
  const seed = Number(Deno.env.get("FC_SEED"));
  await fc.assert(fc.asyncProperty(scenario, check), {
    numRuns: Number(Deno.env.get("FC_RUNS") ?? 32),
    ...(Number.isFinite(seed) ? { seed } : {}),
    interruptAfterTimeLimit: 120_000,
    markInterruptAsFailure: true,
  });
});
