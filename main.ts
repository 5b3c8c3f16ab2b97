/**
 * The `observal` executable: answer `--version` at once, else build the Context from the
 * process and run the CLI.
 *
 * Nothing else is imported before the version is answered, and the CLI is imported only
 * after: `--version` loads neither the runtime's Node layer nor the command table. A
 * `delegate run` first looks for a resident runner to run it.
 * @module
 */
import { programArgs } from "./lib/core/runtime.ts";
import { isVersionRequest, versionText } from "./lib/core/version.ts";
import { endProcess, hostStream } from "./lib/core/host.ts";

/** Runs the CLI on argv; resolves to the exit code. */
async function main(argv: string[]): Promise<number> {
  const [{ z }, { createContext }, { escapeControls, runCli }] = await Promise.all([
    import("zod"),
    import("./lib/core/mod.ts"),
    import("./lib/cli/mod.ts"),
  ]);
  // zod compiles a parser for each object schema on its first parse. A command parses most
  // schemas once, so compiling costs more than it saves: reading 20 stored tasks the first
  // time takes 3 ms instead of 6, and a pinned card 7 ms instead of 8-15.
  z.config({ jitless: true });
  const io = { stdout: hostStream("stdout"), stderr: hostStream("stderr") };
  // The command began when this process did, not once its code had loaded.
  const startedAt = new Date(performance.timeOrigin);
  try {
    return await runCli(argv, createContext({ io, startedAt }));
  } catch (err) {
    io.stderr.write(`error: ${escapeControls(err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
}

/**
 * A `delegate run` goes to this caller's resident runner when it has one (see
 * lib/resident/), before the CLI loads here; without one it runs here, and from a
 * terminal starts one for the next.
 */
async function resident(argv: string[]): Promise<number> {
  if (argv[0] !== "delegate" || argv[1] !== "run") return await main(argv);
  const { throughResident } = await import("./lib/resident/client.ts");
  const attempt = await throughResident(argv);
  if (attempt.code !== undefined) return attempt.code;
  const code = await main(argv);
  if (attempt.startAfter) {
    (await import("./lib/resident/mod.ts")).startResident(attempt.startAfter);
  }
  return code;
}

if (import.meta.main) {
  const argv = programArgs();
  if (isVersionRequest(argv)) {
    // The console drops output to a closed pipe itself, under Deno and Node alike.
    console.log(versionText(argv.includes("--json")));
  } else {
    // No top-level await, so the same bundle can also be a CommonJS entry.
    resident(argv).then(
      (code) => endProcess(code),
      (err) => {
        console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
        endProcess(1);
      },
    );
  }
}
