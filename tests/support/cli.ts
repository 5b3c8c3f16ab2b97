/** Runs the CLI in process with captured output and a temp OBSERVAL_HOME. */
import { createContext, type Env } from "../../lib/core/mod.ts";
import { runCli } from "../../lib/cli/mod.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(
  argv: string[],
  options: { env: Env; cwd?: string; tty?: boolean; startedAt?: Date },
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const ctx = createContext({
    env: options.env,
    cwd: options.cwd ?? Deno.cwd(),
    startedAt: options.startedAt,
    io: {
      stdout: { write: (t) => void (stdout += t) },
      stderr: { write: (t) => void (stderr += t) },
      isTTY: options.tty ?? false,
      color: false,
    },
  });
  const code = await runCli(argv, ctx);
  return { code, stdout, stderr };
}
