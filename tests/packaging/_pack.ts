/**
 * The npm package as a user gets it: built by scripts/build_npm.ts, packed with `npm pack`
 * and installed from the tarball into an empty folder.
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PROJECT_NODE } from "./_node_versions.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** An installed package. */
export interface Installed {
  /** The folder it was installed into (`<work>/app`). */
  app: string;
  /** `<app>/node_modules/.bin/observal`. */
  bin: string;
  /** The files in the tarball, relative to its `package/` folder, sorted. */
  files: string[];
  /** The environment npm ran with: the project's Node first on PATH. */
  npmEnv: Record<string, string>;
}

/**
 * Builds the npm package into `out` with scripts/build_npm.ts and its `flags`. Build it
 * inside the repository to run it from there: Node then finds the dependencies in its
 * node_modules, as an install would.
 */
export function buildNpm(out: string, ...flags: string[]): void {
  execFileSync(Deno.execPath(), ["run", "-A", "scripts/build_npm.ts", ...flags, "--out", out], {
    cwd: REPO,
    stdio: "pipe",
  });
}

/**
 * Builds, packs and installs the package under `work` (which must exist and be empty).
 *
 * @param work a scratch folder; the build goes to `<work>/package`, the install to `<work>/app`
 * @returns where it was installed and what the tarball held
 */
export function packAndInstall(work: string): Installed {
  const out = join(work, "package");
  buildNpm(out);
  const npmEnv = {
    ...Deno.env.toObject(),
    PATH: `${dirname(PROJECT_NODE)}:${Deno.env.get("PATH")}`,
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
  execFileSync("npm", ["pack", "--silent", "--pack-destination", work], {
    cwd: out,
    env: npmEnv,
    stdio: "pipe",
  });
  const tarball = join(work, readdirSync(work).find((f) => f.endsWith(".tgz"))!);
  const files = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ""))
    .sort();
  const app = join(work, "app");
  mkdirSync(app);
  execFileSync("npm", ["install", "--no-save", tarball], { cwd: app, env: npmEnv, stdio: "pipe" });
  return { app, bin: join(app, "node_modules", ".bin", "observal"), files, npmEnv };
}
