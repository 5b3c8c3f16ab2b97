/**
 * The one place that knows whether we run under Deno, Node or a compiled binary.
 * Everything else is written against `node:` built-ins.
 * @module
 */
import { realpathSync } from "node:fs";
import { basename } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

interface DenoLike {
  version: { deno: string };
  execPath(): string;
  mainModule: string;
}

// deno-lint-ignore no-explicit-any
const deno = (globalThis as any).Deno as DenoLike | undefined;

/** Whether this is a Node single executable (its script is built in, as argv[1] shows). */
function isNodeSea(): boolean {
  if (deno || !process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(process.execPath);
  } catch {
    return false;
  }
}

/** The runtime and its version, for `--version` and diagnostics. */
export function runtimeName(): string {
  return deno ? `deno ${deno.version.deno}` : `node ${process.versions.node}`;
}

/** Deno permissions for a re-executed observal process; ignored by Node. */
export interface SelfPermissions {
  read?: readonly string[];
  write?: readonly string[];
  /** host[:port] entries; empty = no network. */
  net?: readonly string[];
  /** Programs the process may run; undefined = none. */
  run?: readonly string[];
}

/**
 * The argv that runs this same observal with `args`: a compiled binary re-executes
 * itself, `deno run` gets the narrowest permissions asked for, Node runs the same script.
 */
export function selfCommand(args: readonly string[], perms: SelfPermissions = {}): string[] {
  if (!deno) {
    // A Node single executable is its own script: it runs with just its arguments.
    if (isNodeSea()) return [process.execPath, ...args];
    return [process.execPath, ...process.execArgv, process.argv[1], ...args];
  }
  const exec = deno.execPath();
  // A compiled binary is not named deno; its permissions were fixed at compile time.
  if (!/^deno(\.exe)?$/i.test(basename(exec))) return [exec, ...args];
  const here = import.meta.url;
  const fromSource = here.endsWith("/lib/core/runtime.ts");
  const main = fromSource
    ? fileURLToPath(new URL("../../main.ts", here))
    : deno.mainModule.startsWith("file:")
    ? fileURLToPath(deno.mainModule)
    : deno.mainModule;
  const flags = ["run", "--no-prompt", "--allow-env", "--allow-sys=hostname,osRelease"];
  // From source the project's deno.json says how npm packages resolve, wherever the cwd is.
  if (fromSource) flags.push(`--config=${fileURLToPath(new URL("../../deno.json", here))}`);
  if (perms.read?.length) flags.push(`--allow-read=${perms.read.join(",")}`);
  if (perms.write?.length) flags.push(`--allow-write=${perms.write.join(",")}`);
  if (perms.net?.length) flags.push(`--allow-net=${perms.net.join(",")}`);
  if (perms.run?.length) flags.push(`--allow-run=${perms.run.join(",")}`);
  return [exec, ...flags, main, ...args];
}

/** How an MCP entry we write starts observal: this very program, or `npx` by version. */
export type LauncherKind = "self" | "npx";

/**
 * The argv prefix that starts this observal from a harness's MCP config, without relying
 * on PATH: the compiled binary's own path; the Node executable that runs us now and the
 * package's script (both absolute, so a harness with another PATH or an older Node on it
 * still launches it); or `deno run` from a source checkout with the permissions the MCP
 * server needs. `npx` gives `npx -y observal@<version>`, for configs shared in a repository.
 *
 * @param kind "self" (default) or "npx"
 * @param options the version for npx, and OBSERVAL_HOME (the only folder the server writes)
 * @returns argv; append the observal command (`delegate mcp ...`)
 */
export function selfLauncher(
  kind: LauncherKind,
  options: { version: string; home: string },
): string[] {
  if (kind === "npx") return ["npx", "-y", `observal@${options.version}`];
  if (!deno) {
    return isNodeSea() ? [process.execPath] : [process.execPath, realpathSync(process.argv[1])];
  }
  const exec = deno.execPath();
  if (!/^deno(\.exe)?$/i.test(basename(exec))) return [exec];
  // The server reads wherever the harness runs it and launches workers with their own,
  // narrower permissions; it writes only OBSERVAL_HOME.
  const [, ...rest] = selfCommand([], {});
  const main = rest.at(-1)!;
  const config = rest.find((a) => a.startsWith("--config="));
  return [
    exec,
    "run",
    "--no-prompt",
    "--allow-env",
    "--allow-sys=hostname,osRelease",
    "--allow-read",
    `--allow-write=${options.home}`,
    "--allow-net",
    `--allow-run=${exec},git,kill,cat,readlink,ps,lsof`,
    ...(config ? [config] : []),
    main,
  ];
}
