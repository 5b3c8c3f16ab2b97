/**
 * The `observal` executable: answer `--version` at once, else build the Context from the
 * process and run the CLI.
 *
 * Nothing else is imported before the version is answered, and the CLI is imported only
 * after: `--version` loads neither the runtime's Node layer nor the command table.
 * @module
 */
import { programArgs } from "./lib/core/runtime.ts";
import { isVersionRequest, versionText } from "./lib/core/version.ts";
import type { Writer } from "./lib/core/mod.ts";

/**
 * A writer for one of the process's streams that goes quiet once its reader has gone
 * (`observal delegate list | head -1`): the broken pipe ends the output, not the command,
 * and no stack trace is printed.
 */
function quietOnClose(stream: NodeJS.WriteStream): Writer {
  let closed = false;
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE" || err.code === "ERR_STREAM_DESTROYED") closed = true;
    else throw err;
  });
  return {
    write(text) {
      if (closed) return;
      try {
        stream.write(text);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EPIPE") throw err;
        closed = true;
      }
    },
  };
}

/** Runs the CLI on argv; resolves to the exit code. */
async function main(argv: string[]): Promise<number> {
  const [{ default: process }, { z }, { createContext }, { escapeControls, runCli }] = await Promise
    .all([
      import("node:process"),
      import("zod"),
      import("./lib/core/mod.ts"),
      import("./lib/cli/mod.ts"),
    ]);
  // zod compiles a parser for each object schema on its first parse. A command parses most
  // schemas once, so compiling costs more than it saves: reading 20 stored tasks the first
  // time takes 3 ms instead of 6, and a pinned card 7 ms instead of 8-15.
  z.config({ jitless: true });
  const io = { stdout: quietOnClose(process.stdout), stderr: quietOnClose(process.stderr) };
  try {
    return await runCli(argv, createContext({ io }));
  } catch (err) {
    io.stderr.write(`error: ${escapeControls(err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
}

if (import.meta.main) {
  const argv = programArgs();
  if (isVersionRequest(argv)) {
    // The console drops output to a closed pipe itself, under Deno and Node alike.
    console.log(versionText(argv.includes("--json")));
  } else {
    // No top-level await, so the same bundle can also be a CommonJS entry.
    main(argv).then(
      (code) => (globalThis.process.exitCode = code),
      (err) => {
        console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
        globalThis.process.exitCode = 1;
      },
    );
  }
}
