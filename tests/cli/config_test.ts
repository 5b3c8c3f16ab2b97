/** `observal config`: settings stored in a private config.json, env overrides shown. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../support/cli.ts";
import type { HostStdin } from "../../lib/core/mod.ts";

const KEY = "obs_0123456789abcdefghijklmnopqrstuv";

function home() {
  const base = mkdtempSync(join(tmpdir(), "observal-config-"));
  const dir = join(base, "home");
  const env = { OBSERVAL_HOME: dir, HOME: dir };
  return {
    dir,
    env,
    file: join(dir, "config.json"),
    done: () => rmSync(base, { recursive: true }),
  };
}

/** A piped stdin holding `text`. */
function piped(text: string): HostStdin {
  let bytes: Uint8Array | undefined = new TextEncoder().encode(text);
  return {
    isTerminal: () => false,
    read: (into) => {
      if (!bytes) return Promise.resolve(null);
      into.set(bytes);
      const n = bytes.length;
      bytes = undefined;
      return Promise.resolve(n);
    },
  };
}

Deno.test("config set, get, list and unset round-trip through a private config.json", async () => {
  const h = home();
  try {
    let r = await cli(["config", "set", "server_url", "http://127.0.0.1:9/"], { env: h.env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((statSync(h.dir).mode & 0o777).toString(8), "700", "a new home is private");
    assert.equal((statSync(h.file).mode & 0o777).toString(8), "600");
    for (const [k, v] of [["sandbox", "off"], ["launcher", "npx"]]) {
      r = await cli(["config", "set", k, v], { env: h.env });
      assert.equal(r.code, 0, r.stderr);
    }
    r = await cli(["config", "get", "server_url"], { env: h.env });
    assert.equal(r.stdout, "http://127.0.0.1:9\n", "stored without the trailing slash");
    r = await cli(["config", "list", "--json"], { env: h.env });
    const items = JSON.parse(r.stdout).items as Array<Record<string, unknown>>;
    assert.deepEqual(
      items.map((i) => [i.key, i.value, i.source]),
      [
        ["server_url", "http://127.0.0.1:9", "config"],
        ["api_key", null, "unset"],
        ["sandbox", "off", "config"],
        ["launcher", "npx", "config"],
      ],
    );
    r = await cli(["config", "unset", "sandbox"], { env: h.env });
    assert.equal(r.code, 0, r.stderr);
    r = await cli(["config", "get", "sandbox", "--json"], { env: h.env });
    assert.deepEqual(JSON.parse(r.stdout), {
      key: "sandbox",
      value: "auto",
      source: "default",
      env: "OBSERVAL_SANDBOX",
    });
    assert.deepEqual(JSON.parse(readFileSync(h.file, "utf8")), {
      server_url: "http://127.0.0.1:9",
      launcher: "npx",
    });
  } finally {
    h.done();
  }
});

Deno.test("config set keeps keys other tools wrote, and makes an existing open file private", async () => {
  const h = home();
  try {
    Deno.mkdirSync(h.dir, { recursive: true });
    writeFileSync(h.file, JSON.stringify({ theme: "dark", nested: { a: [1] } }), { mode: 0o644 });
    const r = await cli(["config", "set", "launcher", "npx"], { env: h.env });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(readFileSync(h.file, "utf8")), {
      theme: "dark",
      nested: { a: [1] },
      launcher: "npx",
    });
    assert.equal((statSync(h.file).mode & 0o777).toString(8), "600");
  } finally {
    h.done();
  }
});

Deno.test("config set refuses invalid values and unknown keys with exit 2, leaving the file as it was", async () => {
  const h = home();
  try {
    await cli(["config", "set", "sandbox", "on"], { env: h.env });
    const before = readFileSync(h.file, "utf8");
    const cases: Array<[string[], RegExp]> = [
      [["config", "set", "server_url", "ftp://example.com"], /http:\/\/ or https:\/\//],
      [["config", "set", "server_url", "not a url"], /http:\/\/ or https:\/\//],
      [["config", "set", "sandbox", "maybe"], /one of: auto, on, off/],
      [["config", "set", "launcher", "docker"], /one of: self, npx/],
      [["config", "set", "sandbx", "on"], /Did you mean sandbox\?.*server_url, api_key/],
      [["config", "get", "colour"], /Known settings: server_url, api_key, sandbox, launcher/],
      [["config", "unset", "active_agent"], /Known settings/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv, { env: h.env });
      assert.equal(r.code, 2, argv.join(" "));
      assert.match(r.stderr, message, argv.join(" "));
      assert.equal(readFileSync(h.file, "utf8"), before, `${argv.join(" ")} wrote nothing`);
    }
  } finally {
    h.done();
  }
});

Deno.test("config never prints the API key whole unless asked; - reads it from stdin", async () => {
  const h = home();
  try {
    let r = await cli(["config", "set", "api_key", "-"], { env: h.env, stdin: piped(`${KEY}\n`) });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(readFileSync(h.file, "utf8")).api_key, KEY);
    assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY), r.stdout);
    for (
      const argv of [
        ["config", "list"],
        ["config", "list", "--json"],
        ["config", "get", "api_key"],
        [
          "config",
          "get",
          "api_key",
          "--json",
        ],
      ]
    ) {
      r = await cli(argv, { env: h.env });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!r.stdout.includes(KEY), `${argv.join(" ")}: ${r.stdout}`);
      assert.match(r.stdout, /obs_…stuv/, argv.join(" "));
    }
    r = await cli(["config", "get", "api_key", "--show-secret"], { env: h.env });
    assert.equal(r.stdout, `${KEY}\n`);
    const help = await cli(["config", "set", "--help"], { env: h.env });
    assert.match(help.stdout, /shell's history/);
  } finally {
    h.done();
  }
});

Deno.test("config list shows a variable winning over config.json, and set says so", async () => {
  const h = home();
  try {
    await cli(["config", "set", "server_url", "https://stored.example"], { env: h.env });
    const env = { ...h.env, OBSERVAL_SERVER_URL: "http://127.0.0.1:1", OBSERVAL_API_KEY: KEY };
    let r = await cli(["config", "list"], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^server_url\s+http:\/\/127\.0\.0\.1:1\s+OBSERVAL_SERVER_URL$/m);
    assert.match(r.stdout, /^api_key\s+obs_…stuv\s+OBSERVAL_API_KEY$/m);
    assert.ok(!r.stdout.includes(KEY));
    r = await cli(["config", "set", "server_url", "https://other.example"], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /OBSERVAL_SERVER_URL is set and wins/);
  } finally {
    h.done();
  }
});

Deno.test("mcp install takes its launcher from config when --launcher is not given", async () => {
  const h = home();
  const project = mkdtempSync(join(tmpdir(), "observal-config-project-"));
  try {
    await cli(["config", "set", "launcher", "npx"], { env: h.env });
    const args = ["mcp", "install", "--harness", "codex", "--dir", project, "--dry-run", "--json"];
    let r = await cli(args, { env: h.env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(JSON.stringify(JSON.parse(r.stdout).entry), /"npx"/);
    r = await cli([...args, "--launcher", "self"], { env: h.env });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(JSON.stringify(JSON.parse(r.stdout).entry), /"npx"/);
  } finally {
    h.done();
    rmSync(project, { recursive: true });
  }
});
