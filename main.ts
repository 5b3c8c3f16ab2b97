/**
 * The `observal` executable: build the Context from the process and run the CLI.
 * @module
 */
import process from "node:process";
import { createContext } from "./lib/core/mod.ts";
import { runCli } from "./lib/cli/mod.ts";

if (import.meta.main) {
  // No top-level await, so the same bundle can also be a CommonJS entry.
  runCli(process.argv.slice(2), createContext()).then(
    (code) => (process.exitCode = code),
    (err) => {
      process.stderr.write(`error: ${err instanceof Error ? err.message : err}\n`);
      process.exitCode = 1;
    },
  );
}
