/** Runs the CLI in process with captured output and a temp OBSERVAL_HOME. */
import { createContext, type Env, type HostStdin } from "../../lib/core/mod.ts";
import { runCli } from "../../lib/cli/mod.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(
  argv: string[],
  options: { env: Env; cwd?: string; tty?: boolean; startedAt?: Date; stdin?: HostStdin },
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
      ...(options.stdin ? { stdin: options.stdin } : {}),
    },
  });
  const code = await runCli(argv, ctx);
  return { code, stdout, stderr };
}
