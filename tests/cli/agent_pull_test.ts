/** `observal agent pull` through the real CLI against the embedded registry. */
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { readConfig } from "../../lib/core/mod.ts";
import { cli } from "../support/cli.ts";

const AGENT_FILE = fileURLToPath(
  new URL("../../examples/agent/observal-agent.yaml", import.meta.url),
);

/** Every file under `dir`, relative path → content. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = readFileSync(path, "utf8");
  }
  return out;
}

function put(path: string, text: string, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

interface Setup {
  base: string;
  observalHome: string;
  home: string;
  project: string;
  bin: string;
  env: Record<string, string>;
  ref: string;
  done(): void;
}

/** A temp OBSERVAL_HOME, HOME and project, with the example agent published (and approved). */
async function setup(approve = true): Promise<Setup> {
  const base = realpathSync(Deno.makeTempDirSync({ prefix: "observal-pull-" }));
  const observalHome = join(base, "observal");
  const home = join(base, "home");
  const project = join(base, "project");
  const bin = join(base, "bin");
  for (const d of [home, project, bin]) mkdirSync(d);
  const env = { OBSERVAL_HOME: observalHome, HOME: home, PATH: `${bin}:${Deno.env.get("PATH")}` };
  const pub = await cli(["registry", "agent", "publish", AGENT_FILE, "--json"], { env });
  assert.equal(pub.code, 0, pub.stderr);
  const doc = JSON.parse(pub.stdout);
  if (approve) {
    const review = await cli([
      "registry",
      "agent",
      "review",
      doc.identifier,
      "--approve",
      "--digest",
      doc["obs:artifactDigest"],
    ], { env });
    assert.equal(review.code, 0, review.stderr);
  }
  return {
    base,
    observalHome,
    home,
    project,
    bin,
    env,
    ref: String(doc["obs:nativeRef"]).split("@")[0],
    done: () => rmSync(base, { recursive: true, force: true }),
  };
}

function lockfile(s: Setup): Record<string, unknown> | undefined {
  const path = join(s.observalHome, "lockfile.json");
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
}

function lockedAgents(s: Setup, harness: string): Array<Record<string, unknown>> {
  const lock = lockfile(s) as
    | { registries: Record<string, { harnesses: Record<string, { agents: [] }> }> }
    | undefined;
  return lock?.registries.embedded?.harnesses[harness]?.agents ?? [];
}

/** A fake `claude` that records its argv and working directory, failing for one server. */
function fakeClaude(s: Setup, failFor?: string): string {
  const log = join(s.base, "claude.log");
  put(
    join(s.bin, "claude"),
    `#!/bin/sh
printf '%s|' "$(pwd)" "$@" >> "${log}"
echo >> "${log}"
${failFor ? `[ "$3" = "${failFor}" ] && { echo "cannot add $3" >&2; exit 4; }` : ""}
exit 0
`,
    0o755,
  );
  return log;
}

const USER_CODEX = `# my Codex config: keep these comments
model = "o3" # default model

[mcp_servers.docs]   # a server I added myself
command = "docs-mcp"
args = ["--stdio"]

[profiles.fast]
model = "gpt-5-mini"
`;

Deno.test("agent pull merges into an existing Codex config, keeping the user's comments and servers", async () => {
  const s = await setup();
  try {
    const config = join(s.project, ".codex/config.toml");
    put(config, USER_CODEX, 0o640);
    const r = await cli(["agent", "pull", s.ref, "--harness", "codex", "--dir", s.project], {
      env: s.env,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Pulled local\/code-reviewer 1\.2\.0 into Codex \(project scope\)/);
    assert.match(r.stdout, /^ {2}merged +\.codex\/config\.toml$/m);
    assert.match(r.stdout, /^ {2}created +\.codex\/agents\/code-reviewer\.toml$/m);
    assert.match(r.stdout, /^Next: /m);

    const text = readFileSync(config, "utf8");
    assert.ok(text.startsWith(USER_CODEX), "the user's part is kept byte for byte");
    const data = JSON.parse(JSON.stringify(parseToml(text)));
    assert.equal(data.model, "o3");
    assert.deepEqual(data.profiles, { fast: { model: "gpt-5-mini" } });
    assert.deepEqual(Object.keys(data.mcp_servers), ["docs", "git", "observal-agents"]);
    assert.equal(data.mcp_servers.git.command, "npx");
    // observal-agents starts the observal that pulled it, by absolute path, with its home.
    const delegation = data.mcp_servers["observal-agents"];
    assert.equal(delegation.command, Deno.execPath());
    assert.deepEqual(delegation.args.slice(-4), ["delegate", "mcp", "--harness", "codex"]);
    assert.equal(delegation.env.OBSERVAL_HOME, s.observalHome);
    assert.equal(Deno.statSync(config).mode! & 0o777, 0o640);

    const [entry] = lockedAgents(s, "codex");
    assert.equal(entry.name, "code-reviewer");
    assert.equal(entry.scope, "project");
    assert.equal(entry.directory, s.project);
    assert.equal(entry.local_name, "code-reviewer");
    assert.match(String(entry.lock_digest), /^sha256:/);
    assert.equal(lockfile(s)?.lock_version, 2);
  } finally {
    s.done();
  }
});

Deno.test("agent pull run twice reports unchanged files and keeps one lockfile entry", async () => {
  const s = await setup();
  try {
    const argv = ["agent", "pull", s.ref, "--harness", "codex", "--dir", s.project, "--json"];
    const first = await cli(argv, { env: s.env });
    assert.equal(first.code, 0, first.stderr);
    assert.ok(
      JSON.parse(first.stdout).files.every((f: { status: string }) => f.status === "created"),
    );
    const written = tree(s.project);
    // A hand edit to the profile is put back; the rest stays as it is.
    put(join(s.project, ".codex/agents/code-reviewer.toml"), 'name = "edited"\n');
    const second = await cli(argv, { env: s.env });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(
      JSON.parse(second.stdout).files.map((f: { path: string; status: string }) => [
        relative(s.project, f.path),
        f.status,
      ]),
      [
        [".codex/config.toml", "unchanged"],
        [".codex/agents/code-reviewer.toml", "updated"],
        [".agents/skills/review-checklist/SKILL.md", "unchanged"],
      ],
    );
    assert.deepEqual(tree(s.project), written);
    assert.equal(lockedAgents(s, "codex").length, 1);
  } finally {
    s.done();
  }
});

Deno.test("agent pull --json prints one result object", async () => {
  const s = await setup();
  try {
    fakeClaude(s);
    const r = await cli(
      ["agent", "pull", s.ref, "--harness", "claude_code", "--dir", s.project, "--json"],
      { env: s.env },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out), [
      "agent",
      "harness",
      "scope",
      "dry_run",
      "target_directory",
      "files",
      "warnings",
      "setup_commands",
    ]);
    assert.deepEqual(Object.keys(out.agent), ["id", "qualified_name", "version", "local_name"]);
    assert.equal(out.agent.qualified_name, "local/code-reviewer");
    assert.equal(out.agent.version, "1.2.0");
    assert.equal(out.harness, "claude-code");
    assert.equal(out.scope, "project");
    assert.equal(out.dry_run, false);
    assert.equal(out.target_directory, s.project);
    for (const f of out.files) assert.deepEqual(Object.keys(f), ["path", "status"]);
    assert.deepEqual(out.setup_commands[0].command.slice(0, 8), [
      "claude",
      "mcp",
      "add",
      "git",
      "--scope",
      "project",
      "-e",
      "GIT_SIGN_COMMITS=false",
    ]);
    assert.deepEqual(out.setup_commands[0], {
      command: out.setup_commands[0].command,
      status: "completed",
      return_code: 0,
    });
  } finally {
    s.done();
  }
});

Deno.test("agent pull --dry-run writes nothing and records nothing", async () => {
  const s = await setup();
  try {
    put(join(s.project, ".codex/config.toml"), USER_CODEX);
    const before = tree(s.project);
    const r = await cli(
      ["agent", "pull", s.ref, "--harness", "codex", "--dir", s.project, "--dry-run", "--json"],
      { env: s.env },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.dry_run, true);
    assert.deepEqual(out.files.map((f: { status: string }) => f.status), [
      "would merge",
      "would create",
      "would create",
    ]);
    assert.deepEqual(tree(s.project), before);
    assert.equal(lockfile(s), undefined);
    const text = await cli(
      ["agent", "pull", s.ref, "--harness", "codex", "--dir", s.project, "-n"],
      { env: s.env },
    );
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Dry run: .*nothing was written/);
    assert.deepEqual(tree(s.project), before);
  } finally {
    s.done();
  }
});

Deno.test("agent pull runs Claude Code's setup commands in the project directory", async () => {
  const s = await setup();
  try {
    const log = fakeClaude(s);
    const r = await cli(["agent", "pull", s.ref, "--harness", "claude-code", "--dir", s.project], {
      env: s.env,
    });
    assert.equal(r.code, 0, r.stderr);
    const calls = readFileSync(log, "utf8").trim().split("\n");
    assert.equal(calls.length, 2);
    assert.match(
      calls[0],
      new RegExp(
        `^${s.project}\\|mcp\\|add\\|git\\|--scope\\|project\\|-e\\|GIT_SIGN_COMMITS=false\\|-e\\|` +
          "OBSERVAL_AGENT_ID=[^|]+\\|--\\|npx\\|-y\\|@cyanheads/git-mcp-server\\|$",
      ),
    );
    assert.match(
      calls[1],
      /\|mcp\|add\|observal-agents\|--scope\|project\|(.*\|)?--\|.*\|delegate\|mcp\|--harness\|claude-code\|$/,
    );
    assert.match(r.stdout, /^ {2}completed +claude mcp add git --scope project -e /m);
    assert.ok(existsSync(join(s.project, ".claude/agents/code-reviewer.md")));
    assert.ok(!existsSync(join(s.project, ".mcp.json")), "Claude Code's server map is not a file");
    assert.equal(lockedAgents(s, "claude-code").length, 1);
  } finally {
    s.done();
  }
});

Deno.test("agent pull reports a failing setup command and records nothing", async () => {
  const s = await setup();
  try {
    fakeClaude(s, "observal-agents");
    const r = await cli(
      ["agent", "pull", s.ref, "--harness", "claude-code", "--dir", s.project, "--json"],
      { env: s.env },
    );
    assert.equal(r.code, 9);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.setup_commands.map((c: { status: string }) => c.status), [
      "completed",
      "failed",
    ]);
    assert.equal(out.setup_commands[1].return_code, 4);
    const err = JSON.parse(r.stderr).error;
    assert.equal(err.errorCode, "UNAVAILABLE");
    assert.match(err.message, /files were written, but 1 setup command\(s\) failed/);
    assert.match(err.remediation, /exited with code 4: cannot add observal-agents/);
    assert.ok(existsSync(join(s.project, ".claude/agents/code-reviewer.md")));
    assert.equal(lockfile(s), undefined);

    rmSync(join(s.bin, "claude"));
    const missing = await cli(
      ["agent", "pull", s.ref, "--harness", "claude-code", "--dir", s.project],
      { env: s.env },
    );
    assert.equal(missing.code, 9);
    assert.match(missing.stderr, /2 setup command\(s\) failed/);
    assert.match(missing.stderr, /claude not found/);
  } finally {
    s.done();
  }
});

Deno.test("agent pull refuses an unknown harness, listing the valid ones", async () => {
  const s = await setup();
  try {
    const r = await cli(["agent", "pull", s.ref, "--harness", "vim", "--dir", s.project], {
      env: s.env,
    });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--harness cannot be "vim"/);
    assert.match(r.stderr, /cursor, kiro, claude-code, codex, copilot, copilot-cli, opencode/);
    const none = await cli(["agent", "pull", s.ref, "--dir", s.project], { env: s.env });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Missing --harness/);
    const scope = await cli(
      ["agent", "pull", s.ref, "--harness", "copilot-cli", "--scope", "user", "--dir", s.project],
      { env: s.env },
    );
    assert.equal(scope.code, 2);
    assert.match(scope.stderr, /Copilot CLI has no install scope to choose/);
    const dir = await cli(
      ["agent", "pull", s.ref, "--harness", "codex", "--dir", join(s.base, "nope")],
      { env: s.env },
    );
    assert.equal(dir.code, 2);
    assert.match(dir.stderr, /is not an existing directory/);
    assert.deepEqual(tree(s.project), {});
    assert.equal(lockfile(s), undefined);
  } finally {
    s.done();
  }
});

Deno.test("agent pull refuses an agent that is not approved yet", async () => {
  const s = await setup(false);
  try {
    const r = await cli(["agent", "pull", s.ref, "--harness", "codex", "--dir", s.project], {
      env: s.env,
    });
    assert.equal(r.code, 6, r.stderr);
    assert.match(r.stderr, /local\/code-reviewer has no approved version yet/);
    assert.match(r.stderr, /observal registry agent review urn:air:.* --approve --digest sha256:/);
    assert.deepEqual(tree(s.project), {});
    assert.equal(lockfile(s), undefined);
  } finally {
    s.done();
  }
});

Deno.test("agent pull for Pi records the active agent in config.json, keeping other keys", async () => {
  const s = await setup();
  try {
    put(join(s.observalHome, "config.json"), JSON.stringify({ theme: "dark" }));
    const r = await cli(["agent", "pull", s.ref, "--harness", "pi", "--dir", s.project, "--json"], {
      env: s.env,
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.scope, "user");
    assert.ok(existsSync(join(s.home, ".pi/agent/agents/code-reviewer/AGENTS.md")));
    const config = JSON.parse(readFileSync(join(s.observalHome, "config.json"), "utf8"));
    assert.deepEqual(config, {
      theme: "dark",
      active_agent: { id: out.agent.id, name: "code-reviewer", version: "1.2.0" },
    });
    assert.deepEqual(readConfig({ home: s.observalHome }).active_agent, config.active_agent);
    const [entry] = lockedAgents(s, "pi");
    assert.equal(entry.scope, "user");
  } finally {
    s.done();
  }
});

Deno.test("agent pull refuses a damaged lockfile before writing any file", async () => {
  const s = await setup();
  try {
    put(join(s.observalHome, "lockfile.json"), "{not json");
    const r = await cli(["agent", "pull", s.ref, "--harness", "codex", "--dir", s.project], {
      env: s.env,
    });
    assert.equal(r.code, 6);
    assert.match(r.stderr, /lockfile\.json is not a lockfile/);
    assert.deepEqual(tree(s.project), {});
  } finally {
    s.done();
  }
});

Deno.test("registry agent install prints each file and its content, and writes nothing", async () => {
  const s = await setup();
  try {
    const r = await cli(
      ["registry", "agent", "install", s.ref, "--harness", "codex"],
      { env: s.env, cwd: s.project },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Nothing was written/);
    assert.match(r.stdout, /^==> \.codex\/config\.toml \(merged into the existing file/m);
    assert.match(r.stdout, /^==> \.codex\/agents\/code-reviewer\.toml \(created, or replaces/m);
    assert.match(r.stdout, /^\[mcp_servers\.git\]$/m);
    assert.match(
      r.stdout,
      /^To install: observal agent pull local\/code-reviewer --harness codex/m,
    );
    assert.deepEqual(tree(s.project), {});
    const json = await cli(
      ["registry", "agent", "install", s.ref, "--harness", "codex", "--json"],
      { env: s.env, cwd: s.project },
    );
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).config_snippet.scope, "project");
  } finally {
    s.done();
  }
});

Deno.test("agent pull gives a second agent with the same name a namespaced local name", async () => {
  const s = await setup();
  try {
    const other = join(s.base, "other-agent.yaml");
    writeFileSync(other, `namespace: other\n${readFileSync(AGENT_FILE, "utf8")}`);
    const pub = await cli(["registry", "agent", "publish", other, "--json"], { env: s.env });
    assert.equal(pub.code, 0, pub.stderr);
    const doc = JSON.parse(pub.stdout);
    const review = await cli([
      "registry",
      "agent",
      "review",
      doc.identifier,
      "--approve",
      "--digest",
      doc["obs:artifactDigest"],
    ], { env: s.env });
    assert.equal(review.code, 0, review.stderr);
    const pull = (ref: string) =>
      cli(
        ["agent", "pull", ref, "--harness", "opencode", "--scope", "project", "--dir", s.project],
        {
          env: s.env,
        },
      );
    assert.equal((await pull(s.ref)).code, 0);
    const second = await pull("other/code-reviewer");
    assert.equal(second.code, 0, second.stderr);
    assert.ok(existsSync(join(s.project, ".opencode/agents/code-reviewer.md")));
    assert.ok(existsSync(join(s.project, ".opencode/agents/other-code-reviewer.md")));
    assert.deepEqual(
      lockedAgents(s, "opencode").map((a) => [a.qualified_name, a.local_name]),
      [["local/code-reviewer", "code-reviewer"], ["other/code-reviewer", "other-code-reviewer"]],
    );
    // Pulling the first again keeps its own name.
    assert.equal((await pull(s.ref)).code, 0);
    assert.equal(lockedAgents(s, "opencode")[0].local_name, "code-reviewer");
  } finally {
    s.done();
  }
});
