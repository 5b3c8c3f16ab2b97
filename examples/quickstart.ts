/**
 * The quickstart, as a user would type it: start the embedded registry, publish the example
 * agent, import and approve the example remote agent's card, search for it, and delegate a
 * task to it. Everything runs on 127.0.0.1 in a throwaway OBSERVAL_HOME (pass --home DIR to
 * keep it).
 *
 *   npm run quickstart
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runCli } from "../lib/cli/mod.ts";
import { createContext, type Env } from "../lib/core/mod.ts";
import { startExampleAgent } from "./remote_agent.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { home: { type: "string" } },
});
const home = values.home ?? mkdtempSync(join(tmpdir(), "observal-quickstart-"));
const bold = (
  s: string,
) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[0m` : s);

/** Runs one observal command in this process, echoing it first; returns its stdout. */
async function observal(env: Env, ...argv: string[]): Promise<string> {
  return await observalWith(env, process.stderr.isTTY ?? false, ...argv);
}

async function observalWith(env: Env, tty: boolean, ...argv: string[]): Promise<string> {
  process.stdout.write(
    `\n${bold(`$ observal ${argv.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(" ")}`)}\n`,
  );
  let out = "";
  const ctx = createContext({
    env: { ...process.env, ...env },
    cwd: root,
    // Progress lines go to stderr on a terminal; stdout stays the result.
    io: { stdout: { write: (t) => void (out += t, process.stdout.write(t)) }, isTTY: tty },
  });
  const code = await runCli(argv, ctx);
  if (code !== 0) {
    throw new Error(`observal ${argv[0]} ${argv[1] ?? ""} failed with exit code ${code}`);
  }
  return out;
}

/** Starts `observal registry serve` as its own process and waits for its address. */
function serveRegistry(env: Env): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [
    "run",
    "-A",
    join(root, "main.ts"),
    "registry",
    "serve",
    "--port",
    "0",
  ], {
    env: { ...process.env, ...env } as Record<string, string>,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (d) => {
      buf += d;
      const m = /^listening (\S+)/m.exec(buf);
      if (m) resolve({ url: m[1], stop: () => child.kill("SIGTERM") });
    });
    child.on("exit", (code) => reject(new Error(`registry serve exited with ${code}`)));
  });
}

const local: Env = { OBSERVAL_HOME: home };
const agent = await startExampleAgent();
let server: { url: string; stop(): void } | undefined;
try {
  console.log(`OBSERVAL_HOME=${home}`);
  console.log(`Example remote agent: ${agent.cardUrl}`);

  // 1. Set up the embedded registry locally: an admin key, and allow the loopback agent.
  const admin = JSON.parse(
    await observal(local, "registry", "user", "add", "admin", "--role", "admin", "--json"),
  );
  await observal(local, "registry", "settings", "set", "discovery.a2a_private_hosts", "127.0.0.1");

  // 2. Serve it over HTTP; from here on the CLI talks to it like to any Observal server.
  server = await serveRegistry(local);
  console.log(`\nRegistry serving at ${server.url}`);
  const remote: Env = { ...local, OBSERVAL_SERVER_URL: server.url, OBSERVAL_API_KEY: admin.apiKey };

  // 3. Publish the example registry agent and approve the digest that was published.
  const published = JSON.parse(
    await observal(
      remote,
      "registry",
      "agent",
      "publish",
      "examples/agent/observal-agent.yaml",
      "--json",
    ),
  );
  await observal(
    remote,
    "registry",
    "agent",
    "review",
    published.identifier,
    "--approve",
    "--digest",
    published["obs:artifactDigest"],
  );

  // 4. Import the remote agent's card, inspect it, approve exactly what was inspected.
  const imported = JSON.parse(
    await observal(
      remote,
      "registry",
      "a2a",
      "submit",
      agent.cardUrl,
      "--visibility",
      "public",
      "--json",
    ),
  );
  const inspected = JSON.parse(
    await observal(remote, "registry", "a2a", "inspect", imported.identifier, "--json"),
  );
  await observal(
    remote,
    "registry",
    "a2a",
    "review",
    imported.identifier,
    "--approve",
    "--digest",
    inspected["obs:artifactDigest"],
  );

  // 5. Search: both agents are approved and delegable.
  await observal(remote, "registry", "search", "write release notes");
  await observal(remote, "registry", "search", "review my changes");

  // 6. Delegate a task to the remote agent and wait for its answer.
  await observal(
    remote,
    "delegate",
    "run",
    imported.identifier,
    "Fixed the login timeout on slow networks. Added dark mode to the settings page.",
    "--wait",
    "60",
  );
  await observal(remote, "delegate", "list");
  console.log(`\nDone. The registry database is ${join(home, "registry.db")}.`);
} finally {
  server?.stop();
  await agent.close();
  if (!values.home) rmSync(home, { recursive: true, force: true });
}
