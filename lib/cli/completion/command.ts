/**
 * `observal completion bash|zsh|fish`: prints a completion script written from the CLI's
 * own command table, so it offers exactly the commands, flags and flag values there are.
 * @module
 */
import { ObservalError } from "../../core/mod.ts";
import { closest, type Command } from "../command.ts";
import { rootGroup } from "../mod.ts";
import { printJson, printVerbatim } from "../output.ts";
import { completionScript, type Shell, SHELLS } from "./scripts.ts";
import { completionSpec } from "./spec.ts";

/** `observal completion`. */
export const completionCommand: Command = {
  name: "completion",
  summary: "Print a shell completion script (bash, zsh or fish)",
  args: ["shell"],
  details: `Completes commands, flags (short forms too) and the values of flags that take a
fixed set (--harness, --sandbox, --state, ...). With --json, prints the tree it is written
from.

Install:
  bash  add to ~/.bashrc:     source <(observal completion bash)
        or, system-wide:      observal completion bash > /etc/bash_completion.d/observal
  zsh   add to ~/.zshrc, after compinit:   source <(observal completion zsh)
        or put it on $fpath:  observal completion zsh > "\${fpath[1]}/_observal"
  fish  observal completion fish > ~/.config/fish/completions/observal.fish

Open a new shell afterwards.`,
  async run(inv, ctx) {
    const shell = inv.args.shell as Shell;
    if (!SHELLS.includes(shell)) {
      const near = closest(shell, SHELLS);
      throw new ObservalError("USAGE", `No completion for the shell "${inv.args.shell}"`, {
        remediation: `${near ? `Did you mean ${near}? ` : ""}Use one of: ${SHELLS.join(", ")}`,
      });
    }
    const nodes = await completionSpec(rootGroup);
    if (inv.json) return printJson(ctx, { shell, commands: nodes });
    // Verbatim: the script is for a shell to read, and carries no text from outside.
    printVerbatim(ctx, completionScript(shell, nodes));
  },
};
