/**
 * The `observal` executable: build the Context from the process and run the CLI.
 * @module
 */
import process from "node:process";
import { createContext, type Writer } from "./lib/core/mod.ts";
import { escapeControls, runCli } from "./lib/cli/mod.ts";

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

if (import.meta.main) {
  const io = { stdout: quietOnClose(process.stdout), stderr: quietOnClose(process.stderr) };
  // No top-level await, so the same bundle can also be a CommonJS entry.
  runCli(process.argv.slice(2), createContext({ io })).then(
    (code) => (process.exitCode = code),
    (err) => {
      io.stderr.write(
        `error: ${escapeControls(err instanceof Error ? err.message : String(err))}\n`,
      );
      process.exitCode = 1;
    },
  );
}
