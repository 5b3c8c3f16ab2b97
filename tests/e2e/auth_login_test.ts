/**
 * `observal auth login|status|logout` against a real `registry serve` on 127.0.0.1 with a
 * real API key: the key is checked with the server before anything is saved.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../support/cli.ts";
import { MAIN, runCliWithInput, spawnObserval } from "../support/process.ts";

/** A served registry with one admin, `pat`, and their key; a separate client home. */
async function served() {
  const root = mkdtempSync(join(tmpdir(), "observal-auth-"));
  const serverEnv = { OBSERVAL_HOME: join(root, "server"), HOME: join(root, "server") };
  const server = spawnObserval(["registry", "serve", "--port", "0"], serverEnv);
  const line = await server.firstLine;
  const url = /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
  assert.ok(url, line);
  const made = await cli(["registry", "user", "add", "pat", "--role", "admin", "--json"], {
    env: serverEnv,
  });
  assert.equal(made.code, 0, made.stderr);
  const key = JSON.parse(made.stdout).apiKey as string;
  const home = join(root, "client");
  const env = { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1", PATH: Deno.env.get("PATH") };
  return {
    url,
    key,
    home,
    cwd: root,
    env,
    configFile: join(home, "config.json"),
    done: async () => {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

Deno.test("auth login checks the key with the server: a wrong key or no server saves nothing", async () => {
  const s = await served();
  try {
    const wrong = await runCliWithInput(s.env, s.cwd, [
      "auth",
      "login",
      "--server",
      s.url,
    ], "obs_not-a-real-key-0000000000\n");
    assert.equal(wrong.code, 4, wrong.stderr);
    assert.match(wrong.stderr, /refused the API key/);
    assert.match(wrong.stderr, /Nothing was saved/);
    assert.equal(existsSync(s.configFile), false);

    // A port nothing listens on: bind one, then free it.
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closed = `http://127.0.0.1:${(probe.addr as Deno.NetAddr).port}`;
    probe.close();
    const away = await runCliWithInput(s.env, s.cwd, [
      "auth",
      "login",
      "--server",
      closed,
    ], `${s.key}\n`);
    assert.equal(away.code, 8, away.stderr);
    assert.match(away.stderr, /Cannot reach the registry.*Nothing was saved/);
    assert.equal(existsSync(s.configFile), false);

    const bad = await runCliWithInput(s.env, s.cwd, ["auth", "login", "--server", "ftp://x"], "");
    assert.equal(bad.code, 2, bad.stderr);
  } finally {
    await s.done();
  }
});

Deno.test("auth login reads the key from stdin, saves it privately; status shows who; logout removes it", async () => {
  const s = await served();
  try {
    const login = await runCliWithInput(s.env, s.cwd, [
      "auth",
      "login",
      "--server",
      `${s.url}/`,
    ], `${s.key}\n`);
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, new RegExp(`Signed in to ${s.url} as pat \\(admin\\)`));
    assert.ok(!login.stdout.includes(s.key) && !login.stderr.includes(s.key));
    assert.deepEqual(JSON.parse(readFileSync(s.configFile, "utf8")), {
      server_url: s.url,
      api_key: s.key,
    });
    assert.equal((statSync(s.configFile).mode & 0o777).toString(8), "600");

    let status = await cli(["auth", "status"], { env: s.env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`Server: ${s.url} \\(from config\\.json\\)`));
    assert.match(status.stdout, /Signed in as pat \(admin\)/);
    assert.match(status.stdout, /API key: obs_…\S{4} \(from config\.json\)/);
    assert.ok(!status.stdout.includes(s.key));
    status = await cli(["auth", "status", "--json"], { env: s.env });
    const json = JSON.parse(status.stdout);
    assert.equal(json.signed_in, true);
    assert.equal(json.user.handle, "pat");
    assert.ok(!status.stdout.includes(s.key));

    // A key in the environment wins, and a wrong one is said to be refused.
    status = await cli(["auth", "status"], {
      env: { ...s.env, OBSERVAL_API_KEY: "obs_wrong-wrong-wrong-wrong" },
    });
    assert.equal(status.code, 4);
    assert.match(status.stderr, /refused the API key/);

    const logout = await cli(["auth", "logout"], { env: s.env });
    assert.equal(logout.code, 0, logout.stderr);
    assert.match(logout.stdout, /Removed api_key/);
    assert.deepEqual(JSON.parse(readFileSync(s.configFile, "utf8")), { server_url: s.url });
    status = await cli(["auth", "status"], { env: s.env });
    assert.equal(status.code, 4);
    assert.match(status.stdout, /Not signed in: no API key/);

    const forget = await cli(["auth", "logout", "--forget-server"], { env: s.env });
    assert.equal(forget.code, 0, forget.stderr);
    assert.deepEqual(JSON.parse(readFileSync(s.configFile, "utf8")), {});
    status = await cli(["auth", "status"], { env: s.env });
    assert.equal(status.code, 4);
    assert.match(status.stdout, /embedded registry/);
  } finally {
    await s.done();
  }
});

/**
 * `observal auth login` on a pseudo-terminal (util-linux `script`), then `stty -a` there:
 * `type` is written once the prompt shows. Resolves with everything the terminal showed.
 */
async function loginOnTerminal(
  env: Record<string, string | undefined>,
  cwd: string,
  url: string,
  type: string,
): Promise<{ code: number; screen: string }> {
  const command = `'${Deno.execPath()}' run -A '${MAIN}' auth login --server ${url}; ` +
    `code=$?; stty -a; exit $code`;
  const child = new Deno.Command("script", {
    args: ["-qec", command, "/dev/null"],
    env: env as Record<string, string>,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const decoder = new TextDecoder();
  let screen = "";
  let typed = false;
  for await (const chunk of child.stdout) {
    screen += decoder.decode(chunk, { stream: true });
    if (!typed && screen.includes(`API key for ${url}: `)) {
      typed = true;
      await writer.write(new TextEncoder().encode(type));
    }
  }
  await writer.close().catch(() => {});
  const status = await child.status;
  await new Response(child.stderr).text();
  return { code: status.code, screen };
}

const hasScript = new Deno.Command("sh", { args: ["-c", "command -v script"] }).outputSync()
  .success;

Deno.test({
  name: "auth login at a terminal reads the key without echo, and restores the terminal on Ctrl-C",
  ignore: !hasScript,
  fn: async () => {
    const s = await served();
    try {
      const cancelled = await loginOnTerminal(s.env, s.cwd, s.url, "obs_half\x03");
      assert.equal(cancelled.code, 130, cancelled.screen);
      assert.match(cancelled.screen, /Interrupted: nothing was read or saved/);
      assert.ok(!cancelled.screen.includes("obs_half"), cancelled.screen);
      assert.match(cancelled.screen, /(^|\s)echo(\s|$)/m, "echo is back on after Ctrl-C");
      assert.match(cancelled.screen, /(^|\s)icanon(\s|$)/m);
      assert.equal(existsSync(s.configFile), false);

      // Typed with a slip corrected by Backspace.
      const done = await loginOnTerminal(s.env, s.cwd, s.url, `${s.key}x\x7f\r`);
      assert.equal(done.code, 0, done.screen);
      assert.match(done.screen, /Signed in to .* as pat/);
      assert.ok(!done.screen.includes(s.key), `the key was echoed: ${done.screen}`);
      assert.ok(!done.screen.includes(s.key.slice(4, 20)), done.screen);
      assert.match(done.screen, /(^|\s)echo(\s|$)/m);
      assert.equal(JSON.parse(readFileSync(s.configFile, "utf8")).api_key, s.key);
    } finally {
      await s.done();
    }
  },
});
