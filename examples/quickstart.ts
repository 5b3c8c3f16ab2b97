/**
 * The quickstart, as a user would type it: start the embedded registry, publish the example
 * agent, import and approve the example remote agent's card, search for it, and delegate a
 * task to it. Everything runs on 127.0.0.1. Its data (the registry database and the
 * delegated task) stays in `tmp/quickstart/`, replaced by the next run (`--home DIR` puts
 * it elsewhere), and it ends with the commands to look at it.
 *
 *   npm run quickstart [-- --home DIR]
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
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
const home = resolve(values.home ?? join(root, "tmp", "quickstart"));
/** Marks a folder this script made, so a later run may replace it and nothing else. */
const MARKER = ".observal-quickstart";
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const bold = (s: string) => (color ? `\x1b[1m${s}\x1b[0m` : s);

/** A path or word as a shell reads it back: quoted only when it must be. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** Starts from an empty home: a folder the quickstart made before is replaced, no other. */
function freshHome(): void {
  if (existsSync(home) && readdirSync(home).length > 0) {
    if (!existsSync(join(home, MARKER))) {
      console.error(
        `error: ${home} holds files the quickstart did not make; it is left as it is.\n` +
          "Pass --home with a new or empty folder.",
      );
      process.exit(1);
    }
    rmSync(home, { recursive: true, force: true });
  }
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, MARKER), "Made by `npm run quickstart`; the next run replaces it.\n");
}

/**
 * Runs one observal command in this process, echoing it first. Its output is shown as it
 * comes, unless `quiet` (for --json output, which the caller sums up); returns its stdout.
 */
async function observal(env: Env, argv: string[], quiet = false): Promise<string> {
  process.stdout.write(`\n${bold(`$ observal ${argv.map(shellWord).join(" ")}`)}\n`);
  let out = "";
  const ctx = createContext({
    env: { ...process.env, ...env },
    cwd: root,
    io: {
      stdout: { write: (t) => void (out += t, quiet || process.stdout.write(t)) },
      isTTY: process.stdout.isTTY ?? false,
    },
  });
  const code = await runCli(argv, ctx);
  if (code !== 0) {
    throw new Error(`observal ${argv.slice(0, 3).join(" ")} failed with exit code ${code}`);
  }
  return out;
}

/** Runs a command with --json and prints a one-line summary of what it returned. */
async function summed(
  env: Env,
  argv: string[],
  sum: (body: Record<string, unknown>) => string,
): Promise<Record<string, unknown>> {
  const body = JSON.parse(await observal(env, [...argv, "--json"], true));
  console.log(`  ${sum(body)}`);
  return body;
}

/** The first of these fields that holds text (a document's wire name, or a list item's). */
function field(body: Record<string, unknown>, ...names: string[]): string {
  for (const name of names) if (typeof body[name] === "string") return body[name] as string;
  return "";
}

/** An entry's name, version, review state and digest, as the summaries show them. */
function entry(b: Record<string, unknown>) {
  return {
    name: field(b, "displayName", "name"),
    version: field(b, "version"),
    state: field(b, "obs:lifecycle", "state"),
    digest: field(b, "obs:artifactDigest", "digest"),
  };
}

/** `sha256:bc79dc14…`: enough of a digest to recognise it. */
function shortDigest(digest: string): string {
  return `${digest.slice(0, 15)}…`;
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

freshHome();
const local: Env = { OBSERVAL_HOME: home };
const agent = await startExampleAgent();
let server: { url: string; stop(): void } | undefined;
let taskId = "";
try {
  console.log(`OBSERVAL_HOME=${home}`);
  console.log(`Example remote agent: ${agent.cardUrl}`);

  // 1. Set up the embedded registry locally: an admin key, and allow the loopback agent.
  const admin = await summed(
    local,
    ["registry", "user", "add", "admin", "--role", "admin"],
    () => "added the admin user; its API key signs the commands below",
  );
  await observal(local, [
    "registry",
    "settings",
    "set",
    "discovery.a2a_private_hosts",
    "127.0.0.1",
  ]);

  // 2. Serve it over HTTP; from here on the CLI talks to it like to any Observal server.
  server = await serveRegistry(local);
  console.log(`\nRegistry serving at ${server.url}`);
  const remote: Env = {
    ...local,
    OBSERVAL_SERVER_URL: server.url,
    OBSERVAL_API_KEY: String(admin.apiKey),
  };

  // 3. Publish the example registry agent and approve the digest that was published.
  const published = await summed(
    remote,
    ["registry", "agent", "publish", "examples/agent/observal-agent.yaml"],
    (b) => {
      const e = entry(b);
      return `published ${e.name} ${e.version}: ${e.state} review, digest ${shortDigest(e.digest)}`;
    },
  );
  await observal(remote, [
    "registry",
    "agent",
    "review",
    String(published.identifier),
    "--approve",
    "--digest",
    entry(published).digest,
  ]);

  // 4. Import the remote agent's card, inspect it, approve exactly what was inspected.
  const imported = await summed(
    remote,
    ["registry", "a2a", "submit", agent.cardUrl, "--visibility", "public"],
    (b) => `imported ${entry(b).name} ${entry(b).version}: ${entry(b).state} review`,
  );
  const inspected = await summed(
    remote,
    ["registry", "a2a", "inspect", String(imported.identifier)],
    (b) => `card of ${entry(b).name}, digest ${shortDigest(entry(b).digest)}`,
  );
  await observal(remote, [
    "registry",
    "a2a",
    "review",
    String(imported.identifier),
    "--approve",
    "--digest",
    entry(inspected).digest,
  ]);

  // 5. Search: both agents are approved; the remote one is delegable from here.
  await observal(remote, ["registry", "search", "write release notes"]);
  await observal(remote, ["registry", "search", "review my changes"]);

  // 6. Delegate a task to the remote agent and wait for its answer.
  const ran = await observal(remote, [
    "delegate",
    "run",
    String(imported.identifier),
    "Fixed the login timeout on slow networks. Added dark mode to the settings page.",
    "--wait",
    "60",
  ]);
  taskId = /[0-9a-f]{8}-[0-9a-f-]{27}/.exec(ran)?.[0] ?? "";
  await observal(remote, ["delegate", "list"]);
} finally {
  server?.stop();
  await agent.close();
}

// What was kept, and how to look at it: the registry and the task are in the home, and
// without OBSERVAL_SERVER_URL the CLI opens that home's registry itself.
const shownHome = relative(process.cwd(), home).startsWith("..")
  ? home
  : relative(process.cwd(), home) || ".";
const prefix = taskId.slice(0, 8);
console.log(`
${bold("Done.")} The data is kept in ${shownHome}: the registry (registry.db) and the task
(delegations/). The next run of the quickstart replaces it. To look around (the example agent
has stopped), paste:

  export OBSERVAL_HOME=${shellWord(home)}
  alias observal=${
  shellWord(`${join(root, "node_modules", ".bin", "deno")} run -A ${join(root, "main.ts")}`)
}
  observal delegate list
  observal delegate status ${prefix}
  observal delegate logs ${prefix}
  observal registry search "review my changes"
  observal --help`);
