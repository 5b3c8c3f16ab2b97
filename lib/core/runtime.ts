/**
 * Where the program is and how to run it again: under Deno, Node or a compiled binary.
 * With lib/core/host.ts (the process's environment, streams and files) it is the only code
 * that knows which runtime it is in; everything else is written against `node:` built-ins,
 * or against those two where a built-in would cost every command its load time.
 *
 * This module loads no built-in until a function needs one: under Deno, loading
 * `node:process` and `node:fs` takes longer than `observal --version` itself, which
 * needs neither ({@linkcode programArgs}, {@linkcode runtimeName}).
 * @module
 */
import type * as NodeFs from "node:fs";
import type * as NodePath from "node:path";
import type * as NodeUrl from "node:url";
import { nodeFs, nodePath, nodeProcess, realPathOrLexical } from "./host.ts";

interface DenoLike {
  version: { deno: string };
  args: string[];
  execPath(): string;
  mainModule: string;
}

// deno-lint-ignore no-explicit-any
const deno = (globalThis as any).Deno as DenoLike | undefined;

/** The built-ins this module uses, loaded together the first time one is needed. */
function builtins(): { fs: typeof NodeFs; path: typeof NodePath; url: typeof NodeUrl } {
  return { fs: nodeFs(), path: nodePath(), url: nodeProcess().getBuiltinModule("node:url") };
}

/** The command line's arguments after the program (and, under Node, its script). */
export function programArgs(): string[] {
  return deno ? [...deno.args] : nodeProcess().argv.slice(2);
}

/** Whether this is a Node single executable (its script is built in, as argv[1] shows). */
function isNodeSea(): boolean {
  const process = nodeProcess();
  if (deno || !process.argv[1]) return false;
  const { realpathSync } = builtins().fs;
  try {
    return realpathSync(process.argv[1]) === realpathSync(process.execPath);
  } catch {
    return false;
  }
}

/** The runtime and its version, for `--version` and diagnostics. */
export function runtimeName(): string {
  return deno ? `deno ${deno.version.deno}` : `node ${nodeProcess().versions.node}`;
}

/**
 * What a re-executed observal process (a worker) may touch. `deno run` enforces all of it;
 * Node's permission model only part of it (see {@linkcode nodePermissionFlags}); a compiled
 * binary or a Node single executable cannot be narrowed at run time and ignores it.
 */
export interface SelfPermissions {
  /** Files and folders (with everything under them) it may read; undefined = none. */
  read?: readonly string[];
  /** Files and folders it may write; undefined = none. */
  write?: readonly string[];
  /** host[:port] entries; empty = no network. */
  net?: readonly string[];
  /** Programs the process may run; undefined = none. */
  run?: readonly string[];
}

/** Node flags that grant permissions; a fenced re-execution never inherits them. */
const NODE_PERMISSION_FLAG =
  /^--(permission|experimental-permission|allow-fs-read|allow-fs-write|allow-child-process|allow-net|allow-worker|allow-addons|allow-wasi|allow-inspector)(=|$)/;

/**
 * Node's permission-model flags for `perms`, or undefined when Node cannot fence such a
 * process. Files read and written through node:fs are held to `perms.read` and
 * `perms.write`, plus reading the program's own modules (`programRoots`). Not fenced under
 * Node: database files (node:sqlite opens them without asking the permission model), and
 * the network on Node 24 (it has no network fence; on Node 25+ the network is allowed whole
 * when `perms.net` is not empty). A process that must run programs is not fenced at all:
 * Node allows child processes only all together, and passes its permission model on to
 * child Node processes, which would fence the harness CLIs (most are Node programs) too.
 *
 * @param perms what the process may touch
 * @param options the folders the program loads its modules from, and the Node major version
 * @returns flags to put before the script, or undefined
 */
export function nodePermissionFlags(
  perms: SelfPermissions,
  options: { programRoots: readonly string[]; nodeMajor: number },
): string[] | undefined {
  if (perms.run?.length) return undefined;
  const flags = ["--permission"];
  const read = new Set([...options.programRoots, ...perms.read ?? []]);
  for (const path of read) flags.push(`--allow-fs-read=${path}`);
  for (const path of new Set(perms.write ?? [])) flags.push(`--allow-fs-write=${path}`);
  if (perms.net?.length && options.nodeMajor >= 25) flags.push("--allow-net");
  return flags;
}

/**
 * Where a Node program's modules are read from: the script, its package's folder (the
 * nearest one above the script with a package.json) and every `node_modules` folder above
 * that, which is where Node looks up dependencies.
 *
 * @param script the program's entry script (a real path)
 * @returns paths to allow reading, for {@linkcode nodePermissionFlags}
 */
export function nodeProgramRoots(script: string): string[] {
  const { fs: { existsSync, realpathSync }, path: { dirname, join } } = builtins();
  let root = dirname(script);
  for (let dir = root;; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) {
      root = dir;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  const roots = [script, root];
  for (let dir = root;; dir = dirname(dir)) {
    const modules = join(dir, "node_modules");
    roots.push(modules);
    // Node reads a module at its real path: a symlinked node_modules is allowed there too.
    try {
      const real = realpathSync(modules);
      if (real !== modules) roots.push(real);
    } catch { /* no node_modules here */ }
    if (dirname(dir) === dir) break;
  }
  return roots;
}

/**
 * What a `deno run` of the source checkout at `root` reads of its own as it runs: deno.json
 * has Deno load a module a command imports only when the command runs (`lazy-dynamic-imports`),
 * and a fenced process reads it then, under its fence. So the fence always lets the program
 * read its code (`lib/`), its dependencies (`node_modules/`, at its real path too) and the
 * harness facts, and nothing else of the checkout.
 */
function sourceReadRoots(root: string): string[] {
  const { fs: { realpathSync }, path: { join } } = builtins();
  const modules = join(root, "node_modules");
  const roots = [join(root, "lib"), modules, join(root, "harness_registry.json")];
  try {
    const real = realpathSync(modules);
    if (real !== modules) roots.push(real);
  } catch { /* no node_modules: nothing to read there */ }
  return roots;
}

/**
 * The argv that runs this same observal with `args`: a compiled binary re-executes
 * itself; `deno run` gets exactly the permissions asked for (from a source checkout, plus
 * reading the program's own code); Node runs the same script (its real path) under its
 * permission model when `perms` names files or programs.
 *
 * @param args the observal command line, e.g. `["delegate", "worker", id]`
 * @param perms what the new process may touch; `{}` means nothing (but its own code) under
 * `deno run`
 * @returns argv: the executable first
 */
export function selfCommand(args: readonly string[], given: SelfPermissions = {}): string[] {
  const perms = withRealPaths(given);
  const { fs: { realpathSync }, path: { basename }, url: { fileURLToPath } } = builtins();
  if (!deno) {
    const process = nodeProcess();
    // A Node single executable is its own script: it runs with just its arguments.
    if (isNodeSea()) return [process.execPath, ...args];
    const script = realpathSync(process.argv[1]);
    // Unlike under Deno, `{}` (nothing named) runs it unfenced.
    const fenced = perms.read !== undefined || perms.write !== undefined || perms.run !== undefined;
    const flags = fenced
      ? nodePermissionFlags(perms, {
        programRoots: nodeProgramRoots(script),
        nodeMajor: Number(process.versions.node.split(".")[0]),
      })
      : undefined;
    // Our fence replaces any the parent had; an unfenced child keeps the parent's.
    const inherited = flags
      ? process.execArgv.filter((f) => !NODE_PERMISSION_FLAG.test(f))
      : process.execArgv;
    return [process.execPath, ...inherited, ...flags ?? [], script, ...args];
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
  const flags = ["run", "--no-prompt", "--allow-env", "--allow-sys=hostname,osRelease,uid"];
  // From source the project's deno.json says how npm packages resolve, wherever the cwd is.
  // A bundle resolves everything itself: a deno.json above it (one that loads dynamic
  // imports lazily would need read access to its chunks) must not apply.
  flags.push(
    fromSource ? `--config=${fileURLToPath(new URL("../../deno.json", here))}` : "--no-config",
  );
  const read = [
    ...fromSource ? sourceReadRoots(fileURLToPath(new URL("../..", here))) : [],
    ...perms.read ?? [],
  ];
  if (read.length) flags.push(`--allow-read=${read.join(",")}`);
  if (perms.write?.length) flags.push(`--allow-write=${perms.write.join(",")}`);
  if (perms.net?.length) flags.push(`--allow-net=${perms.net.join(",")}`);
  if (perms.run?.length) flags.push(`--allow-run=${perms.run.join(",")}`);
  return [exec, ...flags, main, ...args];
}

/**
 * The argv that runs this same observal with `args` and with the permissions `granted`
 * (names this Deno process holds whole): a compiled binary re-executes itself (its
 * permissions were fixed when it was built); `deno run` gets `--allow-<name>` for each;
 * Node runs the same script with the flags it was started with.
 */
export function selfCommandWhole(
  args: readonly string[],
  granted: readonly string[],
): string[] {
  // Node: unfenced, with the flags it was started with.
  const [exec, ...rest] = selfCommand(args, {});
  if (!deno) return [exec, ...rest];
  if (!rest.length || rest[0] !== "run") return [exec, ...rest];
  const config = rest.find((a) => a.startsWith("--config=") || a === "--no-config")!;
  const main = rest[rest.length - args.length - 1];
  return [
    exec,
    "run",
    "--no-prompt",
    ...granted.map((name) => `--allow-${name}`),
    config,
    main,
    ...args,
  ];
}

/**
 * The permissions with each path also named by its real path: both runtimes check a file
 * by the path it is opened with, and code that resolves links (the workspace does) would
 * otherwise be refused under a home reached through a symlink.
 */
function withRealPaths(perms: SelfPermissions): SelfPermissions {
  const both = (paths?: readonly string[]) =>
    paths && [...new Set(paths.flatMap((p) => [p, realPathOrLexical(p)]))];
  return { ...perms, read: both(perms.read), write: both(perms.write) };
}

/**
 * The sandbox program a server probes before it starts a registry Agent's task (bubblewrap
 * on PATH, `sandbox-exec` on macOS): without leave to run it, the probe would find no
 * sandbox. None when there is none here: Deno would note every name it cannot resolve.
 */
function sandboxTool(): string[] {
  const process = nodeProcess();
  if (process.platform === "darwin") return ["/usr/bin/sandbox-exec"];
  if (process.platform !== "linux") return [];
  const { fs: { statSync }, path: { join } } = builtins();
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (!dir.startsWith("/")) continue;
    try {
      if (statSync(join(dir, "bwrap")).isFile()) return [join(dir, "bwrap")];
    } catch { /* not here */ }
  }
  return [];
}

/** How an MCP entry we write starts observal: this very program, or `npx` by version. */
export const LAUNCHER_KINDS = ["self", "npx"] as const;
/** One of {@linkcode LAUNCHER_KINDS}. */
export type LauncherKind = typeof LAUNCHER_KINDS[number];

/**
 * The argv prefix that starts this observal from a harness's MCP config, without relying
 * on PATH: the compiled binary's own path; the Node executable that runs us now and the
 * package's script (both absolute, so a harness with another PATH or an older Node on it
 * still launches it); or `deno run` from a source checkout with the permissions the MCP
 * server needs. `npx` gives `npx -y observal@<version>`, for configs shared in a repository.
 *
 * @param kind "self" (default) or "npx"
 * @param options the version for npx; OBSERVAL_HOME, the only folder the server writes; and
 *   `socket`, a socket outside it that the server connects to (Deno asks write access for
 *   that)
 * @returns argv; append the observal command (`delegate mcp ...`)
 */
export function selfLauncher(
  kind: LauncherKind,
  options: { version: string; home: string; socket?: string },
): string[] {
  if (kind === "npx") return ["npx", "-y", `observal@${options.version}`];
  const { fs: { realpathSync }, path: { basename } } = builtins();
  if (!deno) {
    const process = nodeProcess();
    return isNodeSea() ? [process.execPath] : [process.execPath, realpathSync(process.argv[1])];
  }
  const exec = deno.execPath();
  if (!/^deno(\.exe)?$/i.test(basename(exec))) return [exec];
  // The server reads wherever the harness runs it and launches workers with their own,
  // narrower permissions; it writes only OBSERVAL_HOME. It runs as long as the harness
  // does: a 1 MiB young generation keeps its memory flat (bench/soak.ts: 1.42 times its
  // start after 10k tool calls with V8's default, 1.02 with this), as the npm package's
  // shim does under Node.
  const [, ...rest] = selfCommand([], {});
  const main = rest.at(-1)!;
  const config = rest.find((a) => a.startsWith("--config=") || a === "--no-config");
  return [
    exec,
    "run",
    "--no-prompt",
    "--allow-env",
    "--allow-sys=hostname,osRelease,uid",
    "--allow-read",
    `--allow-write=${[options.home, ...(options.socket ? [options.socket] : [])]}`,
    "--allow-net",
    `--allow-run=${[exec, "git", "kill", "cat", "readlink", "ps", "lsof", ...sandboxTool()]}`,
    "--v8-flags=--max-semi-space-size=1",
    ...(config ? [config] : []),
    main,
  ];
}
