/**
 * Wrapping a harness command line in the sandbox the task was given: the argv that
 * starts it and the variables the child gets on top of its environment.
 * @module
 */
import { hostUid, join, makeDir, realPath } from "../core/system/mod.ts";
import { type Env, ObservalError } from "../core/mod.ts";
import { findExecutable } from "../process/find_executable.ts";
import { bwrapArgv } from "./bwrap.ts";
import { SANDBOXED_ENV, type SandboxKind } from "./sandbox.ts";
import { type SandboxMounts, sandboxPolicy } from "./sandbox_policy.ts";
import { seatbeltArgv, seatbeltProfile } from "./seatbelt.ts";

/** Everything a sandboxed launch is built from. */
export interface SandboxedCommandInput {
  kind: SandboxKind;
  /** The harness's argv, binary first. */
  argv: readonly string[];
  /** The child's environment (HOME, PATH, the variables state paths name). */
  env: Env;
  /** The workspace root (copy and scratch) and the folder the child starts in. */
  workspaceRoot: string;
  cwd: string;
  scratch: string;
  taskDir: string;
  /** The home's part of the policy, found when the task started. */
  mounts?: SandboxMounts;
  /**
   * Other absolute paths the child reads: the caller's repository (the copy borrows its
   * objects), the programs of its MCP servers.
   */
  reads: readonly string[];
}

/** How to start the child. */
export interface SandboxedCommand {
  argv: string[];
  /** Set for the child on top of its environment. */
  env: Record<string, string>;
}

/**
 * The child's argv and extra variables for its sandbox. Without one (`none`, or
 * `inherited` from a sandboxed parent) the argv is the harness's own.
 *
 * @throws {ObservalError} FAILED_PRECONDITION when the sandbox's program is gone since the
 *   task started
 */
export function sandboxedCommand(input: SandboxedCommandInput): SandboxedCommand {
  const { kind, argv } = input;
  if (kind === "none" || kind === "inherited") return { argv: [...argv], env: {} };
  if (!input.mounts) {
    // Without them the credential stores would not be masked: refuse rather than guess.
    throw new ObservalError(
      "FAILED_PRECONDITION",
      "The task's sandbox was chosen without its mounts",
      { remediation: "Delegate the task again" },
    );
  }
  const reads = [
    ...input.reads,
    argv[0],
    realPath(argv[0]) ?? argv[0],
    ...(input.env.PATH ?? "").split(":"),
  ].filter((p) => p.startsWith("/"));
  const policy = sandboxPolicy({
    env: input.env,
    workspaceRoot: input.workspaceRoot,
    taskDir: input.taskDir,
    mounts: input.mounts,
    readable: reads,
  });
  if (kind === "seatbelt") {
    const tmp = join(input.scratch, "tmp");
    makeDir(tmp, 0o700);
    return {
      argv: seatbeltArgv(seatbeltProfile(policy, tmp), argv),
      env: { [SANDBOXED_ENV]: "seatbelt", TMPDIR: tmp },
    };
  }
  const bwrap = findExecutable("bwrap", { path: input.env.PATH ?? "" });
  if (!bwrap) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      "bubblewrap (bwrap) was found when the task started but is gone now",
      { remediation: "Install bubblewrap again, or delegate with --sandbox off" },
    );
  }
  return {
    argv: bwrapArgv(policy, argv, { bwrap, cwd: input.cwd, root: hostUid() === 0 }),
    env: { [SANDBOXED_ENV]: "bwrap", TMPDIR: "/tmp" },
  };
}
