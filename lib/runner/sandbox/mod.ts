/**
 * The sandbox a harness child runs in: the setting and the probe, the policy (what the
 * child may write and see), the command lines that apply it (bubblewrap, Seatbelt), and
 * choosing it for a task. Loaded by the commands that need it (a registry Agent's start,
 * its worker, `doctor`), not by every delegation command.
 * @module
 */
export * from "../sandbox.ts";
export * from "../sandbox_policy.ts";
export { bwrapArgv, type BwrapOptions } from "../bwrap.ts";
export { SANDBOX_EXEC, seatbeltArgv, seatbeltProfile } from "../seatbelt.ts";
export {
  type SandboxedCommand,
  sandboxedCommand,
  type SandboxedCommandInput,
} from "../sandboxed_command.ts";
export { chooseTaskSandbox } from "../task_sandbox.ts";
