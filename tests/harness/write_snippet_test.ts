import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { ObservalError } from "../../lib/core/mod.ts";
import {
  getHarness,
  HARNESS_KEYS,
  parseAgentYaml,
  renderInstall,
  type Scope,
  writeSnippet,
} from "../../lib/harness/mod.ts";

const EXAMPLE = fileURLToPath(new URL("../../examples/agent/observal-agent.yaml", import.meta.url));

/** A temp target dir and a temp home, removed by `done`. */
function dirs() {
  const base = realpathSync(Deno.makeTempDirSync({ prefix: "observal-write-" }));
  const target = join(base, "project");
  const home = join(base, "home");
  const outside = join(base, "outside");
  for (const d of [target, home, outside]) mkdirSync(d);
  return {
    base,
    target,
    home,
    outside,
    done: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** Every file under `dir` (relative path → content), links listed as `-> target`. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const rel = relative(dir, path);
    if (entry.isSymbolicLink()) out[rel] = `-> ${Deno.readLinkSync(path)}`;
    else if (entry.isFile()) out[rel] = readFileSync(path, "utf8");
  }
  return out;
}

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const SERVER = { command: "npx", args: ["-y", "git-mcp"], env: { OBSERVAL_AGENT_ID: "a1" } };
const DELEGATE = { command: "observal", args: ["delegate", "mcp"], env: {} };

function statusOf(result: { files: { relative?: string; status: string }[] }, rel: string) {
  return result.files.find((f) => f.relative === rel)?.status;
}

Deno.test("writeSnippet() merges a JSON root section, keeping other servers and keys", async () => {
  const d = dirs();
  try {
    const file = join(d.target, ".cursor/mcp.json");
    put(
      file,
      JSON.stringify({
        $schema: "https://example.com/schema.json",
        version: 1,
        mcpServers: { mine: { command: "mine", args: [] }, git: { command: "old" } },
        other: { keep: true },
      }),
    );
    const result = await writeSnippet({
      scope: "project",
      mcp_config: {
        path: ".cursor/mcp.json",
        content: { version: 2, mcpServers: { git: SERVER, "observal-agents": DELEGATE } },
      },
    }, { targetDir: d.target, scope: "project" });
    assert.equal(statusOf(result, ".cursor/mcp.json"), "merged");
    const text = readFileSync(file, "utf8");
    assert.ok(text.endsWith("}\n"));
    assert.deepEqual(JSON.parse(text), {
      $schema: "https://example.com/schema.json",
      version: 2,
      mcpServers: { mine: { command: "mine", args: [] }, git: SERVER, "observal-agents": DELEGATE },
      other: { keep: true },
    });
    assert.deepEqual(Object.keys(JSON.parse(text)), ["$schema", "version", "mcpServers", "other"]);
  } finally {
    d.done();
  }
});

Deno.test("writeSnippet() refuses to merge into JSON that is not an object, touching nothing", async (t) => {
  for (
    const [name, existing] of [
      ["an array", "[1, 2]\n"],
      ["broken JSON", '{"mcpServers": {\n'],
      ["a section that is not an object", '{"mcpServers": ["git"]}\n'],
    ]
  ) {
    await t.step(name, async () => {
      const d = dirs();
      try {
        const file = join(d.target, ".cursor/mcp.json");
        put(file, existing);
        const before = tree(d.target);
        const err = await writeSnippet({
          scope: "project",
          // The profile comes later in writing order and must not be written either.
          agent_profile: { path: ".cursor/agents/r.md", content: "hi\n" },
          mcp_config: { path: ".cursor/mcp.json", content: { mcpServers: { git: SERVER } } },
        }, { targetDir: d.target, scope: "project" }).then(() => undefined, (e) => e);
        assert.ok(err instanceof ObservalError, String(err));
        assert.equal(err.code, "FAILED_PRECONDITION");
        assert.equal(err.exitCode, 6);
        assert.match(err.message, /\.cursor\/mcp\.json/);
        assert.ok(err.remediation);
        assert.deepEqual(tree(d.target), before);
      } finally {
        d.done();
      }
    });
  }
});

const CODEX_HEAD = `# Codex settings I keep by hand
model = "o3"   # the default model
approval_policy = "on-request"

[profiles.fast]
model = "gpt-5-mini" # for quick things

# my docs server, do not touch
[mcp_servers.docs]
command = "docs-mcp"
args = ["--port",
  "7000", # fixed port
]

# the agent's git server (ours)
`;
const CODEX_GIT = `[mcp_servers.git]
command = "old-git"
args = []
[mcp_servers.git.env]
TOKEN = "x"
`;
const CODEX_TAIL = `
# trailing notes stay
[tui]
notifications = true
notes = """
[mcp_servers.git]
not a header"""
`;

Deno.test("writeSnippet() merges Codex TOML in place, byte for byte outside our server tables", async () => {
  const d = dirs();
  try {
    const file = join(d.target, ".codex/config.toml");
    put(file, CODEX_HEAD + CODEX_GIT + CODEX_TAIL);
    const snippet = {
      scope: "project",
      mcp_config: {
        path: ".codex/config.toml",
        content: { mcp_servers: { git: SERVER, "observal-agents": DELEGATE } },
      },
    };
    const first = await writeSnippet(snippet, { targetDir: d.target, scope: "project" });
    assert.equal(statusOf(first, ".codex/config.toml"), "merged");
    const text = readFileSync(file, "utf8");
    const ours = `[mcp_servers.git]
command = "npx"
args = ["-y", "git-mcp"]
env.OBSERVAL_AGENT_ID = "a1"
`;
    const added = `
[mcp_servers.observal-agents]
command = "observal"
args = ["delegate", "mcp"]
`;
    assert.equal(text, CODEX_HEAD + ours + CODEX_TAIL + added);
    // smol-toml builds prototype-less tables; compare plain data.
    const data = JSON.parse(JSON.stringify(parseToml(text))) as Record<
      string,
      Record<string, unknown>
    >;
    assert.equal(data.model, "o3");
    assert.deepEqual(data.profiles, { fast: { model: "gpt-5-mini" } });
    assert.deepEqual(Object.keys(data.mcp_servers).sort(), ["docs", "git", "observal-agents"]);
    assert.deepEqual(data.mcp_servers.git, {
      command: "npx",
      args: ["-y", "git-mcp"],
      env: { OBSERVAL_AGENT_ID: "a1" },
    });
    assert.deepEqual(data.mcp_servers.docs, { command: "docs-mcp", args: ["--port", "7000"] });
    assert.equal((data.tui as Record<string, unknown>).notes, "[mcp_servers.git]\nnot a header");

    const again = await writeSnippet(snippet, { targetDir: d.target, scope: "project" });
    assert.equal(statusOf(again, ".codex/config.toml"), "unchanged");
    assert.equal(readFileSync(file, "utf8"), text);
  } finally {
    d.done();
  }
});

Deno.test("writeSnippet() refuses TOML it cannot edit safely, touching nothing", async (t) => {
  for (
    const [name, existing] of [
      ["invalid TOML", "[mcp_servers.git\ncommand = 1\n"],
      ["a server written inline", '[mcp_servers]\ngit = { command = "old" }\n'],
      ["the whole section inline", 'mcp_servers = { docs = { command = "d" } }\n'],
      ["a section that is not a table", 'mcp_servers = "none"\n'],
    ]
  ) {
    await t.step(name, async () => {
      const d = dirs();
      try {
        put(join(d.target, ".codex/config.toml"), existing);
        const before = tree(d.target);
        const err = await writeSnippet({
          scope: "project",
          mcp_config: { path: ".codex/config.toml", content: { mcp_servers: { git: SERVER } } },
          agent_profile: { path: ".codex/agents/r.toml", content: 'name = "r"\n' },
        }, { targetDir: d.target, scope: "project" }).then(() => undefined, (e) => e);
        assert.ok(err instanceof ObservalError, String(err));
        assert.equal(err.code, "FAILED_PRECONDITION");
        assert.match(err.message, /\.codex\/config\.toml/);
        assert.deepEqual(tree(d.target), before);
      } finally {
        d.done();
      }
    });
  }
});

Deno.test("writeSnippet() merges Goose YAML extensions, keeping comments and other keys", async () => {
  const d = dirs();
  try {
    const file = join(d.home, ".config/goose/config.yaml");
    put(
      file,
      `# my goose settings
GOOSE_PROVIDER: anthropic # provider comment
extensions:
  developer:
    enabled: true
    type: builtin
  git:
    cmd: old
`,
    );
    const ext = { type: "stdio", name: "git", enabled: true, cmd: "npx", args: ["-y"], envs: {} };
    const result = await writeSnippet({
      scope: "user",
      mcp_config: { path: "~/.config/goose/config.yaml", content: { extensions: { git: ext } } },
    }, { targetDir: d.target, scope: "user", home: d.home });
    assert.equal(result.files[0].status, "merged");
    assert.equal(result.files[0].relative, undefined);
    assert.equal(result.files[0].path, file);
    const text = readFileSync(file, "utf8");
    assert.match(text, /^# my goose settings\n/);
    assert.match(text, /# provider comment/);
    assert.deepEqual(parseYaml(text), {
      GOOSE_PROVIDER: "anthropic",
      extensions: { developer: { enabled: true, type: "builtin" }, git: ext },
    });
  } finally {
    d.done();
  }
});

Deno.test("writeSnippet() replaces files atomically and leaves no temp files", async () => {
  const d = dirs();
  try {
    const profile = join(d.target, ".claude/agents/r.md");
    put(profile, "old\n");
    const before = statSync(profile).ino;
    const result = await writeSnippet({
      scope: "project",
      agent_profile: { path: ".claude/agents/r.md", content: "new\n" },
      skills: [{ path: ".claude/skills/s/SKILL.md", content: "skill\n" }],
    }, { targetDir: d.target, scope: "project" });
    assert.deepEqual(result.files.map((f) => [f.relative, f.status]), [
      [".claude/agents/r.md", "updated"],
      [".claude/skills/s/SKILL.md", "created"],
    ]);
    assert.equal(readFileSync(profile, "utf8"), "new\n");
    // A new inode: the file was renamed into place, not rewritten where it stood.
    assert.notEqual(statSync(profile).ino, before);
    assert.deepEqual(Object.keys(tree(d.target)).sort(), [
      ".claude/agents/r.md",
      ".claude/skills/s/SKILL.md",
    ]);
  } finally {
    d.done();
  }
});

Deno.test("writeSnippet() keeps an existing file's mode and makes hook scripts executable", async () => {
  const d = dirs();
  try {
    const mcp = join(d.target, "opencode.json");
    put(mcp, '{"theme": "dark"}\n');
    chmodSync(mcp, 0o640);
    const profile = join(d.target, "AGENTS.md");
    put(profile, "old\n");
    chmodSync(profile, 0o600);
    await writeSnippet({
      scope: "project",
      mcp_config: { path: "opencode.json", content: { mcp: { git: { type: "local" } } } },
      agent_profile: { path: "AGENTS.md", content: "new\n" },
      hook_files: [{ path: ".opencode/hooks/run.sh", content: "#!/bin/sh\n", executable: true }],
    }, { targetDir: d.target, scope: "project" });
    assert.equal(statSync(mcp).mode & 0o777, 0o640);
    assert.equal(statSync(profile).mode & 0o777, 0o600);
    assert.equal(statSync(join(d.target, ".opencode/hooks/run.sh")).mode & 0o777, 0o755);
    assert.deepEqual(JSON.parse(readFileSync(mcp, "utf8")), {
      theme: "dark",
      mcp: { git: { type: "local" } },
    });
  } finally {
    d.done();
  }
});

Deno.test("writeSnippet() in a dry run reports what would happen and writes and runs nothing", async () => {
  const d = dirs();
  try {
    put(join(d.target, ".cursor/mcp.json"), '{"mcpServers": {}}\n');
    put(join(d.target, ".cursor/agents/r.md"), "old\n");
    put(join(d.target, ".cursor/skills/s/SKILL.md"), "same\n");
    const before = tree(d.target);
    const result = await writeSnippet({
      scope: "project",
      mcp_config: { path: ".cursor/mcp.json", content: { mcpServers: { git: SERVER } } },
      agent_profile: { path: ".cursor/agents/r.md", content: "new\n" },
      skills: [
        { path: ".cursor/skills/s/SKILL.md", content: "same\n" },
        { path: ".cursor/skills/t/SKILL.md", content: "new\n" },
      ],
      mcp_setup_commands: [["touch", "ran"]],
    }, {
      targetDir: d.target,
      scope: "project",
      dryRun: true,
      env: { PATH: Deno.env.get("PATH") },
    });
    assert.deepEqual(result.files.map((f) => [f.relative, f.status]), [
      [".cursor/mcp.json", "would merge"],
      [".cursor/agents/r.md", "would update"],
      [".cursor/skills/s/SKILL.md", "unchanged"],
      [".cursor/skills/t/SKILL.md", "would create"],
    ]);
    assert.deepEqual(result.setup_commands, [{ command: ["touch", "ran"], status: "would_run" }]);
    assert.deepEqual(tree(d.target), before);
  } finally {
    d.done();
  }
});

Deno.test("writeSnippet() refuses paths that escape the target, writing nothing", async (t) => {
  const cases: Array<[string, string, (d: ReturnType<typeof dirs>) => void]> = [
    ["a parent path", "../x.md", () => {}],
    ["an absolute path", "/tmp/observal-abs.md", () => {}],
    ["a path that climbs out midway", "a/../../x.md", () => {}],
    ["a home path at user scope that climbs out", "~/../x.md", () => {}],
    [
      "a link to a folder outside",
      "linked/x.md",
      (d) => symlinkSync(d.outside, join(d.target, "linked")),
    ],
    [
      "a link deeper down",
      ".codex/agents/x.toml",
      (d) => {
        mkdirSync(join(d.target, ".codex"));
        symlinkSync(d.outside, join(d.target, ".codex/agents"));
      },
    ],
    [
      "a file that is a link to outside",
      "AGENTS.md",
      (d) => {
        writeFileSync(join(d.outside, "AGENTS.md"), "theirs\n");
        symlinkSync(join(d.outside, "AGENTS.md"), join(d.target, "AGENTS.md"));
      },
    ],
  ];
  for (const [name, path, setup] of cases) {
    await t.step(name, async () => {
      const d = dirs();
      try {
        setup(d);
        const before = { target: tree(d.target), home: tree(d.home), outside: tree(d.outside) };
        const err = await writeSnippet({
          scope: "user",
          // A valid file first: it must not be written either.
          agent_profile: { path: "ok/profile.md", content: "ok\n" },
          skills: [{ path, content: "bad\n" }],
        }, { targetDir: d.target, scope: "user", home: d.home }).then(() => undefined, (e) => e);
        assert.ok(err instanceof ObservalError, String(err));
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.match(err.message, /Generated path escapes the target directory/);
        assert.ok(err.message.includes(path));
        assert.deepEqual(
          { target: tree(d.target), home: tree(d.home), outside: tree(d.outside) },
          before,
        );
        assert.ok(!existsSync("/tmp/observal-abs.md"));
      } finally {
        d.done();
      }
    });
  }
});

Deno.test("writeSnippet() places ~/ under the target at project scope and in home at user scope", async () => {
  const d = dirs();
  try {
    const snippet = (scope: Scope) => ({
      scope,
      agent_profile: { path: "~/.copilot/mcp-config.json", content: { mcpServers: {} } },
    });
    const project = await writeSnippet(snippet("project"), {
      targetDir: d.target,
      scope: "project",
      home: d.home,
    });
    assert.equal(project.files[0].path, join(d.target, ".copilot/mcp-config.json"));
    assert.equal(project.files[0].relative, ".copilot/mcp-config.json");
    const user = await writeSnippet(snippet("user"), {
      targetDir: d.target,
      scope: "user",
      home: d.home,
    });
    assert.equal(user.files[0].path, join(d.home, ".copilot/mcp-config.json"));
    assert.deepEqual(Object.keys(tree(d.home)), [".copilot/mcp-config.json"]);
  } finally {
    d.done();
  }
});

Deno.test("writeSnippet() follows a link that stays inside the target", async () => {
  const d = dirs();
  try {
    put(join(d.target, "docs/AGENTS.md"), "old\n");
    symlinkSync("docs/AGENTS.md", join(d.target, "AGENTS.md"));
    const result = await writeSnippet({
      scope: "project",
      agent_profile: { path: "AGENTS.md", content: "new\n" },
    }, { targetDir: d.target, scope: "project" });
    assert.equal(result.files[0].relative, "docs/AGENTS.md");
    assert.equal(readFileSync(join(d.target, "docs/AGENTS.md"), "utf8"), "new\n");
    assert.equal(Deno.readLinkSync(join(d.target, "AGENTS.md")), "docs/AGENTS.md");
  } finally {
    d.done();
  }
});

Deno.test("writeSnippet() refuses a snippet rendered for another scope or malformed", async () => {
  const d = dirs();
  try {
    await assert.rejects(
      writeSnippet({ scope: "user", agent_profile: { path: "a.md", content: "x" } }, {
        targetDir: d.target,
        scope: "project",
      }),
      /rendered for user scope/,
    );
    await assert.rejects(
      writeSnippet({ scope: "project", agent_profile: { path: 3 } }, {
        targetDir: d.target,
        scope: "project",
      }),
      /malformed at agent_profile/,
    );
    assert.deepEqual(tree(d.target), {});
  } finally {
    d.done();
  }
});

Deno.test("writeSnippet() runs setup commands in the target and reports each failure", async () => {
  const d = dirs();
  try {
    const bin = join(d.base, "bin");
    put(
      join(bin, "fake"),
      `#!/bin/sh\npwd > "${d.base}/fake.cwd"\nprintf '%s\\n' "$@" > "${d.base}/fake.argv"\n` +
        `[ "$1" = fail ] && { echo "it broke" >&2; exit 3; }\nexit 0\n`,
    );
    chmodSync(join(bin, "fake"), 0o755);
    const env = { PATH: `${bin}:${Deno.env.get("PATH")}` };
    const result = await writeSnippet({
      scope: "project",
      mcp_setup_commands: [
        ["fake", "ok", "two words"],
        ["fake", "fail"],
        ["observal-no-such-program"],
        ["sleep", "30"],
      ],
    }, { targetDir: d.target, scope: "project", env, setupTimeoutMs: 300 });
    assert.deepEqual(result.setup_commands, [
      { command: ["fake", "ok", "two words"], status: "completed", return_code: 0 },
      {
        command: ["fake", "fail"],
        status: "failed",
        return_code: 3,
        error: "exited with code 3: it broke",
      },
      {
        command: ["observal-no-such-program"],
        status: "failed",
        error: "observal-no-such-program not found",
      },
      { command: ["sleep", "30"], status: "failed", error: "timed out after 0.3 s" },
    ]);
    assert.equal(readFileSync(join(d.base, "fake.cwd"), "utf8").trim(), d.target);
    const skipped = await writeSnippet({
      scope: "project",
      mcp_setup_commands: [["fake", "again"]],
    }, { targetDir: d.target, scope: "project", env, setupCommands: "skip" });
    assert.deepEqual(skipped.setup_commands, [{ command: ["fake", "again"], status: "skipped" }]);
    assert.equal(readFileSync(join(d.base, "fake.argv"), "utf8"), "fail\n");
  } finally {
    d.done();
  }
});

/** Where each harness's files land (ref section 3), by root: T = target, H = home. */
const LANDING: Record<string, Partial<Record<Scope, string[]>>> = {
  cursor: {
    project: [
      "T/.cursor/agents/code-reviewer.md",
      "T/.cursor/mcp.json",
      "T/.cursor/skills/review-checklist/SKILL.md",
    ],
    // Cursor reads agent profiles only from the project, even at user scope.
    user: [
      "T/.cursor/agents/code-reviewer.md",
      "H/.cursor/mcp.json",
      "H/.cursor/skills/review-checklist/SKILL.md",
    ],
  },
  kiro: {
    project: [".kiro/agents/code-reviewer.json", ".kiro/skills/review-checklist/SKILL.md"].map((
      p,
    ) => `T/${p}`),
    user: [".kiro/agents/code-reviewer.json", ".kiro/skills/review-checklist/SKILL.md"].map((p) =>
      `H/${p}`
    ),
  },
  "claude-code": {
    project: [".claude/agents/code-reviewer.md", ".claude/skills/review-checklist/SKILL.md"].map((
      p,
    ) => `T/${p}`),
    user: [".claude/agents/code-reviewer.md", ".claude/skills/review-checklist/SKILL.md"].map((p) =>
      `H/${p}`
    ),
  },
  codex: {
    project: [
      "T/.codex/agents/code-reviewer.toml",
      "T/.codex/config.toml",
      "T/.agents/skills/review-checklist/SKILL.md",
    ],
    user: [
      "H/.codex/agents/code-reviewer.toml",
      "H/.codex/config.toml",
      "H/.agents/skills/review-checklist/SKILL.md",
    ],
  },
  copilot: {
    project: [
      "T/.github/agents/code-reviewer.agent.md",
      "T/.vscode/mcp.json",
      "T/.github/skills/review-checklist/SKILL.md",
    ],
  },
  "copilot-cli": {
    project: [
      "T/.github/agents/code-reviewer.agent.md",
      "T/.copilot/mcp-config.json",
      "T/.agents/skills/review-checklist/SKILL.md",
    ],
  },
  opencode: {
    project: [
      "T/.opencode/agents/code-reviewer.md",
      "T/opencode.json",
      "T/.opencode/skills/review-checklist/SKILL.md",
    ],
    user: [
      "H/.config/opencode/agents/code-reviewer.md",
      "H/.config/opencode/opencode.json",
      "H/.config/opencode/skills/review-checklist/SKILL.md",
    ],
  },
  antigravity: {
    project: [
      "T/.agents/agents/code-reviewer/agent.json",
      "T/.agents/mcp_config.json",
      "T/.agents/skills/review-checklist/SKILL.md",
    ],
    user: [
      "H/.gemini/antigravity-cli/agents/code-reviewer/agent.json",
      "H/.gemini/antigravity-cli/mcp_config.json",
      "H/.gemini/antigravity-cli/skills/review-checklist/SKILL.md",
    ],
  },
  goose: {
    // Project scope puts Goose's config.yaml under the project, where Goose does not read it.
    project: [
      "T/.agents/agents/code-reviewer.md",
      "T/.config/goose/config.yaml",
      "T/.agents/skills/review-checklist/SKILL.md",
    ],
    user: [
      "H/.agents/agents/code-reviewer.md",
      "H/.config/goose/config.yaml",
      "H/.agents/skills/review-checklist/SKILL.md",
    ],
  },
  pi: {
    project: [
      "T/AGENTS.md",
      "T/.pi/agents/code-reviewer/mcp.json",
      "T/.pi/agents/code-reviewer/skills/review-checklist/SKILL.md",
    ],
    user: [
      "H/.pi/agent/agents/code-reviewer/AGENTS.md",
      "H/.pi/agent/agents/code-reviewer/mcp.json",
      "H/.pi/agent/agents/code-reviewer/skills/review-checklist/SKILL.md",
    ],
  },
  "gemini-cli": {
    project: [
      "T/.gemini/agents/code-reviewer.md",
      "T/.gemini/settings.json",
      "T/.gemini/skills/review-checklist/SKILL.md",
    ],
    user: [
      "H/.gemini/agents/code-reviewer.md",
      "H/.gemini/settings.json",
      "H/.gemini/skills/review-checklist/SKILL.md",
    ],
  },
};

/** Parses a written file as its format and returns the data (or the text for Markdown). */
function parseAsFormat(path: string, text: string): unknown {
  if (path.endsWith(".json")) return JSON.parse(text);
  if (path.endsWith(".toml")) return parseToml(text);
  if (path.endsWith(".yaml")) return parseYaml(text);
  assert.ok(path.endsWith(".md"), path);
  if (text.startsWith("---\n")) {
    const match = /^---\n([\s\S]*?)\n---\n\n[\s\S]*\S[\s\S]*$/.exec(text);
    assert.ok(match, `front matter and body in ${path}`);
    const fields = parseYaml(match[1]);
    assert.equal(typeof fields, "object", path);
    return fields;
  }
  assert.ok(text.trim().length > 0, path);
  return text;
}

Deno.test("writeSnippet() puts every harness's rendered files where the harness reads them", async (t) => {
  const definition = { ...parseAgentYaml(readFileSync(EXAMPLE, "utf8")), supported_harnesses: [] };
  assert.deepEqual(Object.keys(LANDING), [...HARNESS_KEYS]);
  for (const harness of HARNESS_KEYS) {
    for (const scope of ["project", "user"] as const) {
      await t.step(`${harness} at ${scope} scope`, async () => {
        const render = () =>
          renderInstall({
            agent: { id: "agent-42", name: "code-reviewer", version: "1.2.0", definition },
            harness,
            scope,
            delegation: { enabled: true, command: ["observal", "delegate", "mcp"] },
          });
        const expected = LANDING[harness][scope];
        if (!expected) {
          assert.ok(!getHarness(harness).scopes.includes(scope));
          assert.throws(render, /has no user scope/);
          return;
        }
        const d = dirs();
        try {
          const { config_snippet } = render();
          const result = await writeSnippet(config_snippet, {
            targetDir: d.target,
            scope,
            home: d.home,
            setupCommands: "skip",
          });
          const landed = [
            ...Object.keys(tree(d.target)).map((p) => `T/${p}`),
            ...Object.keys(tree(d.home)).map((p) => `H/${p}`),
          ].sort();
          assert.deepEqual(landed, [...expected].sort());
          assert.ok(result.files.every((f) => f.status === "created"));
          for (const file of result.files) {
            const data = parseAsFormat(file.path, readFileSync(file.path, "utf8"));
            if (file.key === "mcp_config") {
              const servers = (data as Record<string, Record<string, unknown>>)[
                getHarness(harness).mcp_servers_key
              ];
              assert.deepEqual(Object.keys(servers).sort(), ["git", "observal-agents"]);
            }
          }
          if (harness === "claude-code") {
            assert.deepEqual(result.setup_commands.map((c) => [c.command.slice(0, 4), c.status]), [
              [["claude", "mcp", "add", "git"], "skipped"],
              [["claude", "mcp", "add", "observal-agents"], "skipped"],
            ]);
          }
          // A second write of the same install changes nothing.
          const again = await writeSnippet(render().config_snippet, {
            targetDir: d.target,
            scope,
            home: d.home,
            setupCommands: "skip",
          });
          assert.ok(again.files.every((f) => f.status === "unchanged"), JSON.stringify(again));
        } finally {
          d.done();
        }
      });
    }
  }
});
