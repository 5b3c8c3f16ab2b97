/** `observal doctor`: each problem is reported with its fix. */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRegistry } from "../support/registry.ts";
import { cli } from "../support/cli.ts";
import { nodeOnPathCheck } from "../../lib/cli/doctor.ts";

interface Check {
  check: string;
  status: string;
  detail: string;
  fix?: string;
}

function setup() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "observal-doctor-")));
  const bin = join(root, "bin");
  mkdirSync(bin);
  mkdirSync(join(root, ".codex"));
  // The project is not the home folder, so project and user configs are different files.
  const project = join(root, "project");
  mkdirSync(project);
  const env: Record<string, string> = {
    HOME: root,
    OBSERVAL_HOME: join(root, ".observal"),
    PATH: `${bin}:/usr/bin:/bin`,
    NO_COLOR: "1",
  };
  const program = (name: string, script: string) => {
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  };
  return {
    root,
    project,
    bin,
    env,
    program,
    done: () => rmSync(root, { recursive: true, force: true }),
  };
}

async function doctor(env: Record<string, string>, cwd: string) {
  const r = await cli(["doctor", "--json"], { env, cwd });
  return { code: r.code, body: JSON.parse(r.stdout) as { problems: number; checks: Check[] } };
}

Deno.test("doctor reports a broken observal-agents entry and how to fix it", async () => {
  const s = setup();
  try {
    writeFileSync(
      join(s.root, ".codex", "config.toml"),
      '[mcp_servers.observal-agents]\ncommand = "/nowhere/observal"\nargs = ["delegate", "mcp"]\n',
    );
    const { code, body } = await doctor(s.env, s.project);
    assert.equal(code, 1);
    const broken = body.checks.find((c) => c.check.includes(".codex/config.toml"))!;
    assert.equal(broken.status, "problem");
    assert.match(broken.detail, /\/nowhere\/observal does not start the server/);
    assert.equal(
      broken.fix,
      "Run `observal mcp install --harness codex --scope user` to point it at this observal",
    );
  } finally {
    s.done();
  }
});

Deno.test("doctor reports a Node on PATH too old for the observal command", async () => {
  const s = setup();
  try {
    s.program("node", "#!/bin/sh\necho v20.11.1\n");
    const { body } = await doctor(s.env, s.project);
    const node = body.checks.find((c) => c.check === "node on PATH")!;
    // This observal runs on Deno: the old node on PATH is worth knowing, not a problem.
    assert.equal(node.status, "info");
    assert.match(node.detail, /is v20\.11\.1; this observal runs on Deno/);
    assert.match(node.fix!, /Node 22\.13 or newer first on PATH/);
    s.program("node", "#!/bin/sh\necho v24.1.0\n");
    const again = await doctor(s.env, s.project);
    assert.equal(again.body.checks.find((c) => c.check === "node on PATH")!.status, "ok");
  } finally {
    s.done();
  }
});

Deno.test("an old node on PATH is a problem only where observal runs on Node", () => {
  const underNode = nodeOnPathCheck("/usr/bin/node", "v20.11.1", false);
  assert.equal(underNode.status, "problem");
  assert.equal(underNode.detail, "/usr/bin/node is v20.11.1");
  assert.equal(nodeOnPathCheck("/usr/bin/node", "v20.11.1", true).status, "info");
  assert.equal(nodeOnPathCheck("/usr/bin/node", "v22.13.0", false).status, "ok");
  assert.equal(nodeOnPathCheck("/usr/bin/node", "v22.12.9", false).status, "problem");
});

Deno.test("doctor reports missing harnesses with what to install, and an installed one with its version", async () => {
  const s = setup();
  try {
    const none = await doctor(s.env, s.project);
    const all = none.body.checks.find((c) => c.check === "harnesses")!;
    assert.equal(all.status, "problem");
    assert.match(all.fix!, /^Install one of: .*Claude Code \(claude\), Codex \(codex\)/);
    const codex = none.body.checks.find((c) => c.check === "harness codex")!;
    assert.equal(codex.status, "info");
    assert.match(codex.fix!, /Install Codex so that codex is on PATH/);
    s.program("codex", "#!/bin/sh\necho codex-cli 9.9.9\n");
    const one = await doctor(s.env, s.project);
    assert.equal(one.body.checks.find((c) => c.check === "harnesses"), undefined);
    assert.match(
      one.body.checks.find((c) => c.check === "harness codex")!.detail,
      /codex-cli 9\.9\.9/,
    );
  } finally {
    s.done();
  }
});

Deno.test("doctor reports an API key the registry rejects", async () => {
  const s = setup();
  const registry = await startRegistry();
  try {
    const env = { ...s.env, OBSERVAL_SERVER_URL: registry.url, OBSERVAL_API_KEY: "obs_wrong" };
    const { body } = await doctor(env, s.project);
    const check = body.checks.find((c) => c.check === "registry")!;
    assert.equal(check.status, "problem");
    assert.match(check.detail, /rejected the API key/);
    assert.match(check.fix!, /OBSERVAL_API_KEY to a valid key/);
    const { key } = registry.user("dora");
    const ok = await doctor({ ...env, OBSERVAL_API_KEY: key }, s.project);
    assert.equal(ok.body.checks.find((c) => c.check === "registry")!.status, "ok");
  } finally {
    await registry.close();
    s.done();
  }
});

Deno.test("doctor says which sandbox harness children get, and why there is none", async () => {
  const s = setup();
  try {
    // A PATH without bubblewrap: auto runs unsandboxed and says how to fix it; on refuses.
    const bare = { ...s.env, PATH: s.bin };
    const auto = (await doctor(bare, s.project)).body.checks.find((c) => c.check === "sandbox")!;
    assert.equal(auto.status, "info");
    assert.match(
      auto.detail,
      /sandbox = auto: harness children run unsandboxed \(bubblewrap is not installed/,
    );
    assert.match(auto.fix ?? "", /Install bubblewrap/);
    const on = (await doctor({ ...bare, OBSERVAL_SANDBOX: "on" }, s.project)).body.checks
      .find((c) => c.check === "sandbox")!;
    assert.equal(on.status, "problem");
    assert.match(on.detail, /The sandbox is required \(sandbox = on\)/);
    const bad = (await doctor({ ...s.env, OBSERVAL_SANDBOX: "maybe" }, s.project)).body.checks
      .find((c) => c.check === "sandbox")!;
    assert.equal(bad.status, "problem");
    assert.match(bad.detail, /OBSERVAL_SANDBOX is "maybe"/);
    // Where bubblewrap works (CI installs it), that is what runs.
    if (Deno.build.os === "linux") {
      const found = (await doctor(s.env, s.project)).body.checks.find((c) =>
        c.check === "sandbox"
      )!;
      assert.equal(found.status, "ok", found.detail);
      assert.match(found.detail, /run in bwrap/);
    }
  } finally {
    s.done();
  }
});

Deno.test("doctor checks that a headless run may call delegate: Codex's approval mode and project trust", async () => {
  const s = setup();
  try {
    const entry = '[mcp_servers.observal-agents]\ncommand = "/nowhere/observal"\nargs = []\n';
    const user = join(s.root, ".codex", "config.toml");
    writeFileSync(user, entry);
    const headless = async () =>
      (await doctor(s.env, s.project)).body.checks.filter((c) => c.check === "headless codex");
    const [refused] = await headless();
    assert.equal(refused.status, "info");
    assert.match(
      refused.detail,
      /codex exec refuses delegate: the entry's default_tools_approval_mode is not set/,
    );
    assert.equal(refused.fix, "observal mcp install --harness codex --scope user --allow-headless");
    writeFileSync(user, `${entry}default_tools_approval_mode = "approve"\n`);
    const [approved] = await headless();
    assert.equal(approved.status, "ok", approved.detail);

    // A project entry Codex does not read at all until the project is trusted.
    mkdirSync(join(s.project, ".codex"));
    writeFileSync(
      join(s.project, ".codex", "config.toml"),
      `${entry}default_tools_approval_mode = "approve"\n`,
    );
    const untrusted = (await headless()).find((c) => c.detail.includes("not trusted"))!;
    assert.equal(untrusted.status, "problem");
    assert.ok(untrusted.detail.includes(`${s.project} is not trusted in ${user}`));
    assert.equal(
      untrusted.fix,
      "observal mcp install --harness codex --scope project --allow-headless",
    );
    writeFileSync(
      user,
      `${entry}default_tools_approval_mode = "approve"\n\n[projects."${s.project}"]\ntrust_level = "trusted"\n`,
    );
    assert.deepEqual((await headless()).map((c) => c.status), ["ok", "ok"]);
  } finally {
    s.done();
  }
});

Deno.test("doctor checks that claude -p may call delegate: an allow rule in settings.local.json or the user's settings.json", async () => {
  const s = setup();
  try {
    writeFileSync(
      join(s.project, ".mcp.json"),
      JSON.stringify({ mcpServers: { "observal-agents": { command: "/nowhere/observal" } } }),
    );
    const check = async () =>
      (await doctor(s.env, s.project)).body.checks.find((c) => c.check === "headless claude-code")!;
    const denied = await check();
    assert.equal(denied.status, "info");
    assert.match(
      denied.detail,
      /claude -p denies delegate: no allow rule for mcp__observal-agents/,
    );
    assert.equal(
      denied.fix,
      "observal mcp install --harness claude-code --scope project --allow-headless, or run claude -p with --allowedTools mcp__observal-agents",
    );
    // The committed project settings do not count: claude -p ignored a rule there.
    mkdirSync(join(s.project, ".claude"));
    const rule = JSON.stringify({ permissions: { allow: ["mcp__observal-agents"] } });
    writeFileSync(join(s.project, ".claude", "settings.json"), rule);
    assert.equal((await check()).status, "info");
    writeFileSync(join(s.project, ".claude", "settings.local.json"), rule);
    assert.equal((await check()).status, "ok");
    rmSync(join(s.project, ".claude", "settings.local.json"));
    mkdirSync(join(s.root, ".claude"));
    writeFileSync(join(s.root, ".claude", "settings.json"), rule);
    const user = await check();
    assert.equal(user.status, "ok");
    assert.ok(user.detail.includes(join(s.root, ".claude", "settings.json")));
  } finally {
    s.done();
  }
});

Deno.test("doctor says whether delegate run uses a resident runner here, and why not", async () => {
  const s = setup();
  try {
    const resident = async (value: string) =>
      (await doctor({ ...s.env, OBSERVAL_RESIDENT: value }, s.project)).body.checks
        .find((c) => c.check === "resident")!;
    const bad = await resident("maybe");
    assert.equal(bad.status, "problem");
    assert.match(bad.detail, /OBSERVAL_RESIDENT is maybe, not one of auto, on, off/);
    assert.match(bad.fix ?? "", /auto, on or off/);
    const off = await resident("off");
    assert.equal(off.status, "info");
    assert.match(off.detail, /delegate run runs cold: OBSERVAL_RESIDENT is off/);
    if (Deno.build.os === "linux") {
      const on = await resident("on");
      assert.equal(on.status, "info");
      assert.match(on.detail, /the next delegate run from here starts a resident runner/);
    }
  } finally {
    s.done();
  }
});
