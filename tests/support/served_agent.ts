/**
 * `observal a2a serve` as its own process for tests: it serves a playground's approved
 * Agent through the harness programs in the playground's `bin`, and is stopped with
 * SIGTERM as Ctrl-C would stop it.
 *
 * @module
 */
import assert from "node:assert/strict";
import process from "node:process";
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "./cli.ts";
import { type LocalPlayground, localPlayground } from "./local_delegation.ts";
import { MAIN } from "./process.ts";

/** A running `a2a serve`. */
export interface Served {
  /** Its root URL, from the `listening <url>` line it prints first. */
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `a2a serve` for the playground's Agent on a free port with the claude-code
 * harness.
 *
 * @param pg the playground (its home, repository and PATH)
 * @param extra more flags for `a2a serve`
 * @param options `enter`: an argv prefix to run it under, e.g. to join a network namespace;
 *   `harness`: false to let each run choose its harness
 * @returns the server once it listens
 */
export async function serve(
  pg: LocalPlayground,
  extra: string[] = [],
  options: { enter?: string[]; harness?: false } = {},
): Promise<Served> {
  const argv = [
    ...options.enter ?? [],
    Deno.execPath(),
    "run",
    "-A",
    MAIN,
    "a2a",
    "serve",
    "--agent",
    pg.identifier,
    "--repo",
    pg.repo,
    "--port",
    "0",
    ...options.harness === false ? [] : ["--harness", "claude-code"],
    ...extra,
  ];
  const child = spawn(argv[0], argv.slice(1), {
    cwd: pg.root,
    env: pg.env as Record<string, string>,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => stderr += d);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", resolve);
    exited.then((code) => reject(new Error(`a2a serve exited ${code}: ${stderr}`)));
  });
  const url = /^listening (http:\S+)$/.exec(first)?.[1];
  assert.ok(url, first);
  return {
    url,
    child,
    stderr: () => stderr,
    async stop() {
      // process.kill: Deno's ChildProcess.kill() ends the child as if it had no handler.
      // An `enter` prefix must exec the server (as nsenter does for a network namespace),
      // so that this pid is the server's.
      process.kill(child.pid!, "SIGTERM");
      return await exited;
    },
  };
}

/**
 * Runs `fn` against `a2a serve` on a fresh playground whose harness program is `program`,
 * then stops the server (which must exit 0) and cleans up.
 */
export async function withServed(
  program: string | undefined,
  fn: (pg: LocalPlayground, served: Served) => Promise<void>,
  extra: string[] | ((pg: LocalPlayground) => Promise<string[]>) = [],
): Promise<void> {
  const pg = await localPlayground();
  try {
    if (program) pg.program("claude", program);
    const served = await serve(pg, typeof extra === "function" ? await extra(pg) : extra);
    try {
      await fn(pg, served);
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
  } finally {
    await pg.close();
  }
}

/** A second home that imported and approved the served card; runs observal there. */
export async function callerHome(served: Served, options: { manifest?: boolean } = {}) {
  const home = mkdtempSync(join(tmpdir(), "observal-caller-"));
  const env = { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" };
  const run = (args: string[], cwd = home) => cli(args, { env, cwd });
  const ok = async (args: string[], cwd?: string) => {
    const r = await run(args, cwd);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  await ok(["registry", "settings", "set", "discovery.a2a_private_hosts", "127.0.0.1"]);
  const where = options.manifest ? "ard.json" : "agent-card.json";
  const out = JSON.parse(
    await ok(["registry", "a2a", "submit", `${served.url}/.well-known/${where}`, "--json"]),
  );
  const imported: Array<Record<string, unknown>> = options.manifest ? out.items : [out];
  for (const doc of imported) {
    await ok([
      "registry",
      "a2a",
      "review",
      String(doc.identifier),
      "--approve",
      "--digest",
      String(doc["obs:artifactDigest"]),
    ]);
  }
  return {
    home,
    /** The first card imported. */
    id: String(imported[0].identifier),
    imported,
    run,
    close: () => rmSync(home, { recursive: true, force: true }),
  };
}

/**
 * A clone of `origin` at `repo` with work the origin lacks: a new commit on edit.txt
 * ("committed"), an uncommitted line ("uncommitted") and an untracked notes.txt.
 */
export function cloneWithWork(origin: string, repo: string): string {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "pipe" });
  execFileSync("git", ["clone", "-q", origin, repo], { stdio: "pipe" });
  git("config", "user.email", "dev@example.com");
  git("config", "user.name", "Dev");
  writeFileSync(join(repo, "edit.txt"), "one\ntwo\ncommitted\n");
  git("commit", "-q", "-am", "a commit the server lacks");
  writeFileSync(join(repo, "edit.txt"), "one\ntwo\ncommitted\nuncommitted\n");
  writeFileSync(join(repo, "notes.txt"), "untracked\n");
  return repo;
}
