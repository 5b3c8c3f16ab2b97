/**
 * Long output on a terminal goes through the pager, as git does it: `GIT_PAGER`, else
 * `PAGER`, else `less`, with `LESS=FRX` unless set (quit if one screen, keep colour, leave
 * the screen as it was). An empty pager or `cat` means none.
 * @module
 */
import { spawn } from "node:child_process";
import type { Context } from "../core/mod.ts";

/** The pager command for this environment, or undefined for none. */
export function pagerCommand(env: Context["env"]): string | undefined {
  const cmd = (env.GIT_PAGER ?? env.PAGER ?? "less").trim();
  return cmd === "" || cmd === "cat" ? undefined : cmd;
}

/**
 * Writes already rendered (escaped) text into the pager and waits for it to exit.
 *
 * @returns false when there is no pager or it could not be started: print the text instead
 */
export function page(ctx: Context, text: string): Promise<boolean> {
  const cmd = pagerCommand(ctx.env);
  if (!cmd) return Promise.resolve(false);
  return new Promise((resolve) => {
    // The pager is the user's own shell command (`less -R`, `delta | less`), run by the
    // shell as git runs it; nothing of the text reaches the command line.
    const child = spawn("/bin/sh", ["-c", cmd], {
      cwd: ctx.cwd,
      env: { ...ctx.env, LESS: ctx.env.LESS ?? "FRX", LV: ctx.env.LV ?? "-c" },
      stdio: ["pipe", "inherit", "inherit"],
    });
    let started = false;
    child.on("spawn", () => {
      started = true;
      child.stdin.end(text);
    });
    // The user quit the pager before reading everything: not an error.
    child.stdin.on("error", () => {});
    child.on("error", () => resolve(started));
    child.on("close", () => resolve(true));
  });
}
