/**
 * The worker side of a delegation. For now: the sandbox a harness child runs in (the
 * setting, the probe, the policy and the command lines that apply it).
 * @module
 */
export * from "./sandbox.ts";
export * from "./sandbox_policy.ts";
export { bwrapArgv, type BwrapOptions } from "./bwrap.ts";
export { SANDBOX_EXEC, seatbeltArgv, seatbeltProfile } from "./seatbelt.ts";
export {
  type SandboxedCommand,
  sandboxedCommand,
  type SandboxedCommandInput,
} from "./sandboxed_command.ts";
