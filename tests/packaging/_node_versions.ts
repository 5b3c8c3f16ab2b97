/**
 * Other Node versions for the packaging tests: `node@<version>` from npm, installed once
 * into a cache folder every run reuses (`$OBSERVAL_TEST_NODE_CACHE`, or
 * `<repo>/tmp/node-versions`), the way tests/support/harness_clis.ts caches harness CLIs.
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const READY = ".observal-ready";

/** The project's own Node (the `node` devDependency). */
export const PROJECT_NODE = join(REPO, "node_modules", ".bin", "node");

/** The folder Node versions are installed into. */
export function nodeCacheDir(): string {
  return Deno.env.get("OBSERVAL_TEST_NODE_CACHE") || join(REPO, "tmp", "node-versions");
}

/**
 * The `node` executable of an exact version, installed from npm unless it is cached. A file
 * lock keeps test files running in parallel from installing it twice at once.
 *
 * @param version an exact version, e.g. "22.13.0"
 * @returns the absolute path of its `node`
 * @throws {Error} when npm fails or the installed Node reports another version
 */
export async function ensureNode(version: string): Promise<string> {
  const dir = join(nodeCacheDir(), version);
  const bin = join(dir, "node_modules", "node", "bin", "node");
  if (existsSync(join(dir, READY))) return bin;
  mkdirSync(nodeCacheDir(), { recursive: true });
  const lock = await Deno.open(join(nodeCacheDir(), `${version}.lock`), {
    create: true,
    write: true,
  });
  try {
    await lock.lock(true);
    if (existsSync(join(dir, READY))) return bin;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true }));
    // npm runs on the project's Node; the package's preinstall fetches the platform binary.
    const env = {
      ...Deno.env.toObject(),
      PATH: `${join(REPO, "node_modules", ".bin")}:${Deno.env.get("PATH")}`,
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
    };
    try {
      execFileSync("npm", ["install", "--no-save", `node@${version}`], {
        cwd: dir,
        env,
        stdio: "pipe",
        timeout: 300_000,
      });
    } catch (err) {
      const e = err as { stderr?: Uint8Array; message: string };
      const detail = e.stderr ? new TextDecoder().decode(e.stderr).trim().slice(-2000) : e.message;
      throw new Error(
        `Installing node@${version} for the packaging tests failed (it needs the npm ` +
          `registry, or OBSERVAL_TEST_NODE_CACHE pointing at a folder where it is):\n${detail}`,
      );
    }
    const reported = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim();
    if (reported !== `v${version}`) {
      throw new Error(`node@${version} installed, but it reports ${reported}`);
    }
    writeFileSync(join(dir, READY), `node@${version}\n`);
    return bin;
  } finally {
    await lock.unlock();
    lock.close();
  }
}
