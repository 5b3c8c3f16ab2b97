/**
 * The bubblewrap command line that runs a harness child inside its sandbox on Linux: the
 * whole file system read-only, a private /tmp, writable mounts for what the policy allows,
 * credential stores masked, and its own PID namespace, so that ending the sandbox's first
 * process ends every process the child started (also those that called setsid).
 * @module
 */
import type { HiddenPath, SandboxPolicy } from "./sandbox_policy.ts";

/** Options for {@linkcode bwrapArgv}. */
export interface BwrapOptions {
  /** The bwrap executable. */
  bwrap: string;
  /** Where the child starts. */
  cwd: string;
  /**
   * Whether observal runs as root. Root keeps its capabilities inside a plain bwrap
   * sandbox (and could remount `/` writable), so it runs as an ordinary user in a user
   * namespace with none; what it writes still belongs to root outside.
   */
  root: boolean;
}

/**
 * The folders directly under /tmp that hold `paths`: the private /tmp shows those again,
 * read-only, so a harness, a home or a repository kept under /tmp still works.
 */
function tmpFolders(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const path of paths) {
    const first = /^\/tmp\/[^/]+/.exec(path)?.[0];
    if (first) out.add(first);
  }
  return [...out].sort();
}

/**
 * `bwrap ... -- argv`. Mount order matters: later mounts cover earlier ones, so the
 * private /tmp comes first, then the folders of the real /tmp the child needs, then
 * OBSERVAL_HOME's masks, then writable places, then the credential stores' masks (a secret
 * inside a writable place is still masked).
 *
 * @example
 * ```ts
 * import type { SandboxPolicy } from "./sandbox_policy.ts";
 * declare const policy: SandboxPolicy;
 * declare const ws: { path: string };
 * const argv = bwrapArgv(policy, ["codex", "exec", "..."], {
 *   bwrap: "/usr/bin/bwrap",
 *   cwd: ws.path,
 *   root: false,
 * });
 * ```
 */
export function bwrapArgv(
  policy: SandboxPolicy,
  argv: readonly string[],
  options: BwrapOptions,
): string[] {
  const out = [options.bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc"];
  // Root becomes an ordinary user inside: uid 0 without capabilities makes a nested bwrap
  // (Codex sandboxes its own commands) refuse to map its user namespace.
  if (options.root) {
    out.push("--unshare-user", "--uid", "1000", "--gid", "1000", "--cap-drop", "ALL");
  }
  out.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  for (const path of tmpFolders([...policy.readable, ...policy.writable])) {
    out.push("--ro-bind", path, path);
  }
  const mask = (hidden: HiddenPath) =>
    hidden.kind === "dir"
      ? out.push("--tmpfs", hidden.path)
      : out.push("--ro-bind", "/dev/null", hidden.path);
  // OBSERVAL_HOME holds the copy and the task folder, mounted over its mask, and what the
  // child must still read there.
  for (const hidden of policy.masked) mask(hidden);
  for (const path of policy.shown) out.push("--ro-bind", path, path);
  for (const path of policy.writable) out.push("--bind", path, path);
  for (const hidden of policy.hidden) mask(hidden);
  out.push("--chdir", options.cwd, "--", ...argv);
  return out;
}

/** The arguments of a probe that runs `true` under the same isolation as a real run. */
export function bwrapProbeArgv(bwrap: string, root: boolean, truePath: string): string[] {
  return bwrapArgv({ masked: [], shown: [], writable: [], readable: [], hidden: [] }, [truePath], {
    bwrap,
    cwd: "/",
    root,
  });
}
