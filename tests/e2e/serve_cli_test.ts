/**
 * `observal registry serve` as a real process, driven by the CLI over HTTP with API keys,
 * the way a platform team would run it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cli } from "../support/cli.ts";
import { spawnObserval } from "../support/process.ts";

const AGENT_FILE = fileURLToPath(
  new URL("../../examples/agent/observal-agent.yaml", import.meta.url),
);

Deno.test("registry serve: keys made locally authenticate CLI calls over HTTP", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-serve-"));
  const local = { OBSERVAL_HOME: home, HOME: home };
  const server = spawnObserval(["registry", "serve", "--port", "0"], local);
  try {
    const line = await server.firstLine;
    const url = /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
    assert.ok(url, line);

    const made = await cli(["registry", "user", "add", "pat", "--role", "admin", "--json"], {
      env: local,
    });
    assert.equal(made.code, 0, made.stderr);
    const key = JSON.parse(made.stdout).apiKey as string;
    assert.match(key, /^obs_/);

    const remote = { ...local, OBSERVAL_SERVER_URL: url };
    const anon = await cli(["registry", "user", "list"], { env: remote });
    assert.equal(anon.code, 4, "admin routes need a key");
    const authed = { ...remote, OBSERVAL_API_KEY: key };
    const pub = await cli(["registry", "agent", "publish", AGENT_FILE, "--json"], { env: authed });
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
    ], { env: authed });
    assert.equal(review.code, 0, review.stderr);
    assert.match(review.stdout, /approved/);
    const search = await cli(["registry", "search", "review", "code"], { env: authed });
    assert.equal(search.code, 0, search.stderr);
    assert.match(search.stdout, /IDENTIFIER/);
    assert.ok(search.stdout.includes(doc.identifier));
    const wrong = await cli(["registry", "search", "x"], {
      env: { ...remote, OBSERVAL_API_KEY: "obs_nope" },
    });
    assert.equal(wrong.code, 4);
    assert.match(wrong.stderr, /API key is not valid/);
    assert.equal(await server.stop(), 0, `serve exits cleanly on SIGTERM: ${server.stderr()}`);
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
});

Deno.test("registry serve: warns on stderr that it serves plain HTTP off the loopback", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-serve-"));
  const env = { OBSERVAL_HOME: home, HOME: home };
  const open = spawnObserval(["registry", "serve", "--host", "0.0.0.0", "--port", "0"], env);
  const local = spawnObserval(["registry", "serve", "--port", "0"], env);
  try {
    assert.match(await open.firstLine, /^listening http:\/\/0\.0\.0\.0:\d+$/);
    assert.match(await local.firstLine, /^listening http:\/\/127\.0\.0\.1:\d+$/);
    // Stopping first lets the whole of stderr arrive.
    assert.equal(await open.stop(), 0, open.stderr());
    assert.equal(await local.stop(), 0, local.stderr());
    assert.match(open.stderr(), /Warning: serving plain HTTP on 0\.0\.0\.0/);
    assert.match(open.stderr(), /TLS-terminating reverse proxy/);
    assert.match(open.stderr(), /deployment\.trusted_proxies/);
    assert.doesNotMatch(local.stderr(), /Warning/);
  } finally {
    await open.stop();
    await local.stop();
    rmSync(home, { recursive: true, force: true });
  }
});
