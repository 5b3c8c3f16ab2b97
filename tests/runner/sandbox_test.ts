/** The sandbox's rules and the command lines that apply them (bubblewrap, Seatbelt). */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  bwrapArgv,
  chooseSandbox,
  expandStatePath,
  sandboxMode,
  sandboxMounts,
  type SandboxPolicy,
  sandboxPolicy,
  seatbeltProfile,
} from "../../lib/runner/sandbox/mod.ts";
import { childEnv } from "../../lib/runner/mod.ts";
import type { Task } from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";

function tempHome() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-sandbox-")));
  return { root, done: () => rmSync(root, { recursive: true, force: true }) };
}

Deno.test("expandStatePath() reads ~, ${VAR:-default} and ${VAR}, and drops what it cannot place", () => {
  const env = { HOME: "/home/me", CODEX_HOME: "/opt/codex" };
  assert.equal(expandStatePath("${CODEX_HOME:-~/.codex}/", env), "/opt/codex/");
  assert.equal(
    expandStatePath("${CODEX_HOME:-~/.codex}/", { HOME: "/home/me" }),
    "/home/me/.codex/",
  );
  assert.equal(expandStatePath("~/.claude.json", env), "/home/me/.claude.json");
  assert.equal(expandStatePath("${UNSET_VAR}/x", env), undefined);
  assert.equal(expandStatePath("relative/x", env), undefined);
});

Deno.test("sandboxMounts() makes state folders, masks credential stores present, never the harness's own", () => {
  const h = tempHome();
  try {
    const home = join(h.root, "home");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    mkdirSync(join(home, ".config", "gh"), { recursive: true });
    writeFileSync(join(home, ".netrc"), "machine x\n");
    // A credential store reached through a link is masked where it really is.
    mkdirSync(join(h.root, "real-aws"));
    symlinkSync(join(h.root, "real-aws"), join(home, ".aws"));
    const env = { HOME: home };
    const mounts = sandboxMounts(
      env,
      ["~/.codex/", "~/.claude.json", "~/.config/gh/"],
      join(home, ".observal"),
    );
    // The missing folder was made; the missing file is left out; gh is the harness's state.
    assert.deepEqual(mounts.state, [join(home, ".codex"), join(home, ".config", "gh")]);
    assert.deepEqual(
      mounts.hidden.map((x) => x.path).sort(),
      [
        join(home, ".netrc"),
        join(home, ".ssh"),
        join(h.root, "real-aws"),
      ].sort(),
    );
    assert.equal(mounts.hidden.find((x) => x.path.endsWith(".netrc"))?.kind, "file");
  } finally {
    h.done();
  }
});

Deno.test("sandboxPolicy(): OBSERVAL_HOME is hidden but for the copy and task folder; what a child needs there stays visible", () => {
  const h = tempHome();
  try {
    const home = join(h.root, "home");
    const observal = join(home, ".observal");
    const put = (rel: string, dir = false) => {
      const path = join(observal, rel);
      if (dir) mkdirSync(path, { recursive: true });
      else writeFileSync(path, "x");
      return path;
    };
    const parentCopy = put("delegations/ws/observal-delegate-parent", true);
    const other = put("delegations/ws/observal-delegate-other", true);
    const ours = put("delegations/ws/observal-delegate-ours", true);
    const tasks = put("delegations/t1", true);
    put("delegations/t2", true);
    const config = put("config.json");
    const registry = put("registry.db");
    const input = {
      env: { HOME: home },
      workspaceRoot: ours,
      taskDir: tasks,
      mounts: { observalHome: observal, state: [], hidden: [] },
    };
    const plain = sandboxPolicy({ ...input, readable: [join(h.root, "repo")] });
    assert.deepEqual(plain.masked, [{ path: observal, kind: "dir" }]);
    assert.deepEqual(plain.shown, []);
    assert.deepEqual(plain.writable.sort(), [ours, tasks].sort());

    // A nested task's copy borrows its parent's objects: that copy is shown again,
    // read-only, and nothing else of observal's.
    const nested = sandboxPolicy({ ...input, readable: [parentCopy, join(parentCopy, "x")] });
    assert.deepEqual(nested.masked, [{ path: observal, kind: "dir" }]);
    assert.deepEqual(nested.shown, [parentCopy]);
    assert.ok(!nested.shown.includes(other));

    // OBSERVAL_HOME as the home itself, or inside a repository the child reads: only
    // observal's own entries are masked, the user's files are not.
    writeFileSync(join(observal, ".gitconfig"), "[user]\n");
    const own = [`dir ${join(observal, "delegations")}`, `file ${config}`, `file ${registry}`];
    for (
      const policy of [
        sandboxPolicy({ ...input, env: { HOME: observal }, readable: [] }),
        sandboxPolicy({ ...input, readable: [home] }),
      ]
    ) {
      assert.deepEqual(policy.masked.map((m) => `${m.kind} ${m.path}`).sort(), own.sort());
    }
    const asHome = sandboxPolicy({ ...input, env: { HOME: observal }, readable: [] });
    assert.ok(!asHome.masked.some((m) => m.path === join(observal, ".gitconfig")));
    assert.ok(!asHome.masked.some((m) => m.path === observal));
  } finally {
    h.done();
  }
});

Deno.test("bwrapArgv(): read-only root, private /tmp with what it needs shown again, OBSERVAL_HOME masked, writable places, masks last", () => {
  const policy: SandboxPolicy = {
    home: "/tmp/t1/home",
    masked: [{ path: "/tmp/t1/home/.observal", kind: "dir" }],
    shown: ["/tmp/t1/home/.observal/delegations/ws/w0/worktree"],
    writable: [
      "/tmp/t1/home/.codex",
      "/tmp/t1/home/.observal/delegations/t1",
      "/tmp/t1/home/.observal/delegations/ws/w1",
    ],
    readable: ["/tmp/t1/home"],
    hidden: [{ path: "/tmp/t1/home/.ssh", kind: "dir" }],
  };
  const argv = bwrapArgv(policy, ["codex", "exec"], {
    bwrap: "/usr/bin/bwrap",
    cwd: "/w",
    root: false,
  });
  const at = (...seq: string[]) => argv.findIndex((_, i) => seq.every((s, j) => argv[i + j] === s));
  assert.ok(at("--unshare-pid") > 0 && at("--die-with-parent") > 0);
  assert.equal(at("--unshare-user"), -1, "a user needs no extra user namespace");
  assert.ok(at("--ro-bind", "/", "/") < at("--tmpfs", "/tmp"));
  // Writes go to the copy, the task folder and the state; nothing else.
  const binds = argv.flatMap((a, i) => (a === "--bind" ? [argv[i + 1]] : []));
  assert.deepEqual(binds, policy.writable);
  assert.ok(at("--tmpfs", "/tmp") < at("--ro-bind", "/tmp/t1", "/tmp/t1"));
  // OBSERVAL_HOME is emptied first, then the copy and the task folder mounted inside it.
  const mask = at("--tmpfs", "/tmp/t1/home/.observal");
  assert.ok(at("--ro-bind", "/tmp/t1", "/tmp/t1") < mask);
  const shown = policy.shown[0];
  assert.ok(mask < at("--ro-bind", shown, shown), "what the child reads there, shown after");
  for (const w of policy.writable) assert.ok(at("--ro-bind", shown, shown) < at("--bind", w, w), w);
  assert.ok(
    at(
      "--bind",
      "/tmp/t1/home/.observal/delegations/ws/w1",
      "/tmp/t1/home/.observal/delegations/ws/w1",
    ) <
      at("--tmpfs", "/tmp/t1/home/.ssh"),
  );
  assert.deepEqual(argv.slice(-5), ["--chdir", "/w", "--", "codex", "exec"]);
  const asRoot = bwrapArgv(policy, ["x"], { bwrap: "bwrap", cwd: "/", root: true });
  assert.ok(
    asRoot.join(" ").includes("--unshare-user --uid 1000 --gid 1000 --cap-drop ALL"),
    "root keeps no capability",
  );
});

Deno.test("seatbeltProfile(): denies writes but to the policy's places, and reads of masked paths", () => {
  const profile = seatbeltProfile({
    masked: [{ path: "/Users/me/.observal", kind: "dir" }],
    shown: ["/Users/me/.observal/delegations/ws/w0/worktree"],
    writable: ["/Users/me/.observal/delegations/ws/w1", '/Users/a "quoted" path'],
    readable: [],
    hidden: [{ path: "/Users/me/.ssh", kind: "dir" }, { path: "/Users/me/.netrc", kind: "file" }],
  }, "/Users/me/.observal/delegations/ws/w1/scratch/tmp");
  // Later rules win: OBSERVAL_HOME is denied before the copy inside it is allowed again.
  assert.match(
    profile,
    /^\(version 1\)\n\(allow default\)\n\(deny file-write\*\)\n\(deny file-read\* file-write\*\n {2}\(subpath "\/Users\/me\/\.observal"\)\)\n\(allow file-read\*\n {2}\(subpath "\/Users\/me\/\.observal\/delegations\/ws\/w0\/worktree"\)\)\n\(allow file-read\* file-write\*\n/,
  );
  assert.match(profile, /\(subpath "\/Users\/me\/\.observal\/delegations\/ws\/w1"\)/);
  assert.match(profile, /\(subpath "\/Users\/a \\"quoted\\" path"\)/);
  assert.match(profile, /\(subpath "\/Users\/me\/\.observal\/delegations\/ws\/w1\/scratch\/tmp"\)/);
  assert.match(
    profile,
    /\(deny file-read\* file-write\*\n {2}\(subpath "\/Users\/me\/\.ssh"\)\n {2}\(literal "\/Users\/me\/\.netrc"\)\)\n$/,
  );
  // Balanced parentheses: sandbox-exec refuses a profile that is not.
  let depth = 0;
  for (const c of profile.replace(/"(?:[^"\\]|\\.)*"/g, "")) {
    if (c === "(") depth++;
    if (c === ")") depth--;
    assert.ok(depth >= 0);
  }
  assert.equal(depth, 0);
});

Deno.test(
  "a process that may not run bubblewrap finds no answer, caches none, and even auto refuses",
  {
    ignore: Deno.build.os !== "linux" ||
      !Deno.env.get("PATH")?.split(":").some((d) => existsSync(join(d, "bwrap"))),
  },
  async () => {
    const h = tempHome();
    try {
      const probe = fileURLToPath(new URL("../support/probe_sandbox.ts", import.meta.url));
      // The permissions a fenced observal has, less leave to run bwrap.
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-env",
          "--allow-read",
          `--allow-write=${h.root}`,
          "--allow-sys=osRelease,uid",
          "--allow-run=git",
          probe,
          h.root,
        ],
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const found = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.equal(found.kind, "none");
      assert.equal(found.denied, true);
      assert.ok(!existsSync(join(h.root, "sandbox-probe.json")), "no answer is cached");
      assert.throws(
        () => chooseSandbox("auto", () => found),
        (e: ObservalError) =>
          e.code === "FAILED_PRECONDITION" && /mcp install/.test(e.remediation ?? ""),
      );
    } finally {
      h.done();
    }
  },
);

Deno.test("sandboxMode(): --sandbox over OBSERVAL_SANDBOX over config.json; auto by default; a bad value is refused", () => {
  assert.equal(sandboxMode(undefined, {}, {}), "auto");
  assert.equal(sandboxMode(undefined, {}, { sandbox: "off" }), "off");
  assert.equal(sandboxMode(undefined, { OBSERVAL_SANDBOX: "on" }, { sandbox: "off" }), "on");
  assert.equal(sandboxMode("off", { OBSERVAL_SANDBOX: "on" }, {}), "off");
  assert.throws(
    () => sandboxMode("yes", {}, {}),
    (e: ObservalError) => /--sandbox is "yes"/.test(e.message),
  );
  assert.throws(
    () => chooseSandbox("on", () => ({ kind: "none", reason: "no bwrap" })),
    (e: ObservalError) => e.code === "FAILED_PRECONDITION" && /required/.test(e.message),
  );
  assert.equal(chooseSandbox("auto", () => ({ kind: "none", reason: "no bwrap" })).kind, "none");
  let probed = false;
  assert.equal(
    chooseSandbox("off", () => ((probed = true), { kind: "bwrap", reason: "" })).kind,
    "none",
  );
  assert.equal(probed, false, "off never probes");
});

Deno.test("childEnv(): PWD is the copy; the caller's places and git locations do not pass; no resident runner", () => {
  const task = {
    id: "t1",
    metadata: {
      observal: {
        target: "urn:x",
        kind: "agent",
        depth: 0,
        chain: [],
        cwd: "/caller",
        createdAt: "",
      },
    },
  } as unknown as Task;
  const env = childEnv(
    {
      PWD: "/caller",
      OLDPWD: "/caller",
      INIT_CWD: "/caller",
      npm_config_local_prefix: "/caller",
      GIT_DIR: "/caller/.git",
      GIT_WORK_TREE: "/caller",
      GIT_INDEX_FILE: "/caller/.git/index",
      GIT_CONFIG_COUNT: "1",
      GIT_AUTHOR_NAME: "Me",
      PATH: "/usr/bin",
      OBSERVAL_RESIDENT: "on",
    },
    task,
    "/copy/worktree",
  );
  assert.equal(env.PWD, "/copy/worktree");
  for (
    const k of [
      "OLDPWD",
      "INIT_CWD",
      "npm_config_local_prefix",
      "GIT_DIR",
      "GIT_WORK_TREE",
      "GIT_INDEX_FILE",
      "GIT_CONFIG_COUNT",
    ]
  ) {
    assert.equal(env[k], undefined, k);
  }
  assert.equal(env.GIT_AUTHOR_NAME, "Me");
  assert.equal(env.PATH, "/usr/bin");
  assert.equal(env.OBSERVAL_DELEGATION_TASK_ID, "t1");
  assert.equal(env.OBSERVAL_RESIDENT, "off", "an agent's delegate run starts no runner");
});
