/**
 * Workspace creation and patch time on a 50 000-file repository, each as a ratio to git
 * baselines measured in the same run (medians of several runs):
 *
 * - createWorkspace() vs `git clone --shared` + checkout, `git worktree add` (on a
 *   throwaway bare copy, so nothing real is touched) and a full local `git clone`;
 * - workspaceChanges() with 3 changed files vs `git status` in the same copy;
 * - the tricks: parallel checkout, seeded private indexes.
 *
 * The repository is generated once into tmp/bench-workspace/repo (git-ignored) and reused.
 * `--dir` puts everything on another file system, e.g. a copy-on-write one, where a
 * reflink copy of the repository (`cp -a --reflink=always`) is measured too.
 *
 *   deno run -A bench/workspace.ts [--runs 5] [--files 50000] [--dir /mnt/xfs/bench]
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  createWorkspace,
  type GitWorkspace,
  listWorkspaceRoots,
  markBaseline,
  removeWorkspace,
  workspaceChanges,
} from "../lib/workspace/mod.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: "string", default: "5" },
    files: { type: "string", default: "50000" },
    dir: { type: "string" },
  },
});
const runs = Number(values.runs);
const fileCount = Number(values.files);
const base = values.dir
  ? resolve(values.dir)
  : fileURLToPath(new URL("../tmp/bench-workspace/", import.meta.url));
const repo = join(base, "repo");
const scratch = join(base, "scratch");
const home = join(base, "home");
const env: Record<string, string> = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: join(base, "user"),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@example.test",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@example.test",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env, encoding: "utf8", maxBuffer: 1 << 28 });
}

/** The bench repository: `fileCount` text files in folders of 100, committed once. */
function ensureRepo(): void {
  const marker = join(base, `generated-${fileCount}`);
  if (existsSync(marker)) return;
  rmSync(base, { recursive: true, force: true });
  mkdirSync(join(base, "user"), { recursive: true });
  mkdirSync(repo, { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  console.log(`generating ${fileCount} files in ${repo} ...`);
  for (let i = 0; i < fileCount; i++) {
    const dir = join(repo, `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    const lines = Array.from({ length: 5 + (i % 40) }, (_, l) => `line ${l} of file ${i}`);
    writeFileSync(join(dir, `file${i}.ts`), lines.join("\n") + "\n");
  }
  writeFileSync(join(repo, ".gitignore"), "*.log\nnode_modules/\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "generated");
  writeFileSync(marker, "");
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Runs `fn` once, timed, after flushing dirty pages so runs do not pay for each other. */
async function timed(fn: () => unknown): Promise<number> {
  execFileSync("sync");
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function fresh(name: string): string {
  const p = join(scratch, name);
  rmSync(p, { recursive: true, force: true });
  return p;
}

ensureRepo();
// A caller's index is normally fresh (any `git status` refreshes it); a stale one would make
// every read of the caller hash files again.
git(repo, "status", "--porcelain");
rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
for (const r of listWorkspaceRoots(home)) removeWorkspace(r, home);
const workers = Math.min(16, Math.max(4, availableParallelism()));
console.log(
  `${fileCount} files, ${availableParallelism()} cores, median of ${runs} runs each ` +
    `(variants interleaved, \`sync\` before each)`,
);

const throwaway = join(scratch, "throwaway.git");
git(scratch, "clone", "-q", "--bare", "--shared", repo, throwaway);
// A caller with uncommitted work: 3 edited files, 2 untracked ones.
const edited = ["pkg0/mod0/file0.ts", "pkg1/mod1/file1100.ts", "pkg2/mod2/file2200.ts"];
const originals = edited.map((p) => readFileSync(join(repo, p)));
const dirty = () => {
  for (const p of edited) writeFileSync(join(repo, p), "// edited by the caller\n", { flag: "a" });
  writeFileSync(join(repo, "untracked-1.ts"), "export {};\n");
  writeFileSync(join(repo, "pkg0", "untracked-2.ts"), "export {};\n");
};
const clean = () => {
  edited.forEach((p, i) => writeFileSync(join(repo, p), originals[i]));
  rmSync(join(repo, "untracked-1.ts"), { force: true });
  rmSync(join(repo, "pkg0", "untracked-2.ts"), { force: true });
};
// Copy-on-write: a reflink copy of the whole repository is the least a CoW workspace would
// cost (its index would still need a full refresh: new inodes). Only where supported.
const reflinks = (() => {
  writeFileSync(join(scratch, "probe"), "x");
  try {
    execFileSync("cp", ["--reflink=always", join(scratch, "probe"), join(scratch, "probe2")], {
      stdio: "ignore",
    });
    return true;
  } catch {
    return false;
  }
})();
const createOnce = async (opts: { checkoutWorkers?: number } = {}) => {
  let root = "";
  const t = await timed(async () => {
    root = (await createWorkspace({ home, cwd: repo, env, ...opts })).root;
  });
  removeWorkspace(root, home);
  return t;
};

const variants: Record<string, () => Promise<number>> = {
  shared: async () => {
    const t = await timed(() => git(scratch, "clone", "-q", "--shared", repo, fresh("shared")));
    fresh("shared");
    return t;
  },
  sharedParallel: async () => {
    const dst = fresh("sharedp");
    const t = await timed(() => {
      git(scratch, "clone", "-q", "--shared", "--no-checkout", repo, dst);
      git(dst, "-c", `checkout.workers=${workers}`, "checkout", "-q", "--detach", "HEAD");
    });
    fresh("sharedp");
    return t;
  },
  worktree: async () => {
    const dst = join(scratch, "wt");
    const t = await timed(() => git(throwaway, "worktree", "add", "-q", "--detach", dst, "HEAD"));
    git(throwaway, "worktree", "remove", "--force", dst);
    git(throwaway, "worktree", "prune");
    return t;
  },
  full: async () => {
    const t = await timed(() => git(scratch, "clone", "-q", repo, fresh("full")));
    fresh("full");
    return t;
  },
  ...(reflinks
    ? {
      reflink: async () => {
        const t = await timed(() =>
          execFileSync("cp", ["-a", "--reflink=always", repo, fresh("reflink")])
        );
        fresh("reflink");
        return t;
      },
    }
    : {}),
  create: () => createOnce(),
  createSequential: () => createOnce({ checkoutWorkers: 1 }),
  createDirty: async () => {
    dirty();
    try {
      return await createOnce();
    } finally {
      clean();
    }
  },
};
const samples: Record<string, number[]> = {};
const names = Object.keys(variants);
for (let round = 0; round < runs; round++) {
  // Rotate the order so no variant always runs right after the same other one.
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + round) % names.length];
    (samples[name] ??= []).push(await variants[name]());
  }
  console.log(`round ${round + 1}/${runs} done`);
}
if (git(repo, "status", "--porcelain").trim() !== "") {
  throw new Error("bench repository left dirty");
}
const m = (name: string) => median(samples[name]);

// Patch: one workspace, 3 files changed by the "agent".
const ws = (await createWorkspace({ home, cwd: repo, env })) as GitWorkspace;
const baseline = await markBaseline(ws);
const patchRuns = Math.max(runs, 7);
const baselineMs: number[] = [];
const changesMs: number[] = [];
const statusMs: number[] = [];
const unseededMs: number[] = [];
for (const p of edited) {
  writeFileSync(join(ws.worktree, p), "// edited by the agent\n", { flag: "a" });
}
let stat = "";
const freshIndex = join(ws.scratch, "bench-fresh.index");
for (let i = 0; i < patchRuns; i++) {
  baselineMs.push(await timed(() => markBaseline(ws)));
  changesMs.push(
    await timed(async () => {
      stat = JSON.stringify((await workspaceChanges(ws, baseline)).stat);
    }),
  );
  statusMs.push(await timed(() => git(ws.worktree, "status", "--porcelain")));
  // The trick it replaces: the after tree from a fresh index hashes every file again.
  unseededMs.push(
    await timed(() =>
      execFileSync("git", ["add", "-A"], {
        cwd: ws.worktree,
        env: { ...env, GIT_INDEX_FILE: freshIndex },
      })
    ),
  );
  rmSync(freshIndex, { force: true });
}
removeWorkspace(ws.root, home);
rmSync(scratch, { recursive: true, force: true });
const status = median(statusMs);
const shared = m("shared");

const ms = (x: number) => `${x.toFixed(0)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const rows: [string, string, string][] = [
  ["git clone --shared + checkout", ms(shared), "baseline"],
  [
    `  same, checkout.workers=${workers}`,
    ms(m("sharedParallel")),
    ratio(m("sharedParallel"), shared),
  ],
  ["git worktree add (throwaway copy)", ms(m("worktree")), ratio(m("worktree"), shared)],
  ["git clone (full, local)", ms(m("full")), ratio(m("full"), shared)],
  reflinks
    ? ["cp -a --reflink=always (whole repo)", ms(m("reflink")), ratio(m("reflink"), shared)]
    : ["cp -a --reflink=always", "n/a", "no reflink support here"],
  ["createWorkspace (clean caller)", ms(m("create")), ratio(m("create"), shared)],
  ["  vs shared clone + parallel checkout", "", ratio(m("create"), m("sharedParallel"))],
  ["  vs git worktree add", "", ratio(m("create"), m("worktree"))],
  ["  vs git clone (full)", "", ratio(m("create"), m("full"))],
  [
    "createWorkspace, checkout.workers=1",
    ms(m("createSequential")),
    ratio(m("createSequential"), shared),
  ],
  [
    "createWorkspace (3 edited, 2 untracked)",
    ms(m("createDirty")),
    ratio(m("createDirty"), shared),
  ],
  ["git status (in the copy)", ms(status), "baseline"],
  ["markBaseline (nothing installed)", ms(median(baselineMs)), ratio(median(baselineMs), status)],
  [`workspaceChanges (3 files) ${stat}`, ms(median(changesMs)), ratio(median(changesMs), status)],
  [
    "add -A with a fresh index (not seeded)",
    ms(median(unseededMs)),
    ratio(median(unseededMs), status),
  ],
];
const width = Math.max(...rows.map((r) => r[0].length));
for (const [name, value, r] of rows) {
  console.log(`${name.padEnd(width)}  ${value.padStart(8)}  ${r}`);
}
console.log(
  `goals: creation <= 1.0x shared clone + checkout (${ratio(m("create"), shared)}), ` +
    `patch <= 2x git status (${ratio(median(changesMs), status)})`,
);
