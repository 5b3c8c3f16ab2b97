/**
 * Choosing a local task's sandbox, in the caller, before the task exists.
 * @module
 */
import { type Context, readConfig } from "../core/mod.ts";
import type { HarnessKey } from "../harness/keys/mod.ts";
import { chooseSandbox, probeSandbox, sandboxMode } from "./sandbox.ts";
import { sandboxMounts } from "./sandbox_policy.ts";
import type { LocalSandbox } from "./worker_permissions.ts";

/**
 * The sandbox a registry agent's child gets, chosen by the caller before the task exists,
 * so that `on` refuses up front; `auto` without one says so once, on stderr and in the
 * task's notes. The home's part of the policy is found here too, so the worker never
 * reads the home's secrets.
 *
 * @param ctx the caller's context (home, env, stderr)
 * @param flag `--sandbox`, if given
 * @param harness the chosen harness
 */
export async function chooseTaskSandbox(
  ctx: Context,
  flag: string | undefined,
  harness: HarnessKey,
): Promise<LocalSandbox> {
  const mode = sandboxMode(flag, ctx.env, readConfig(ctx));
  const choice = chooseSandbox(mode, () => probeSandbox(ctx.home, ctx.env));
  if (choice.kind === "bwrap" || choice.kind === "seatbelt") {
    const { getHarness } = await import("../harness/facts/mod.ts");
    const state = getHarness(harness).headless.state_paths;
    return { ...choice, mounts: sandboxMounts(ctx.env, state, ctx.home) };
  }
  if (choice.kind !== "none" || mode === "off") return choice;
  const notice = `Not sandboxed: ${choice.reason}. The agent runs with your own access ` +
    "(set sandbox to on to refuse such runs, or off to silence this)";
  ctx.io.stderr.write(`observal: ${notice}\n`);
  return { ...choice, notice };
}
