/**
 * The scripted model server as a process of its own, for places the test process cannot
 * serve, such as a network namespace:
 *
 * ```sh
 * deno run -A tests/support/model_server_main.ts --port-file F --log-file L [--port N]
 * ```
 *
 * Writes the port to F once listening (atomically, so a reader never sees half a number),
 * appends each answered request to L as one JSON line, and exits on SIGTERM or SIGINT.
 *
 * @module
 */
import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import process from "node:process";
import { parseArgs } from "node:util";
import { startModelServer } from "./model_server.ts";

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      "port-file": { type: "string" },
      "log-file": { type: "string" },
      port: { type: "string", default: "0" },
    },
  });
  const portFile = values["port-file"];
  const logFile = values["log-file"];
  if (!portFile || !logFile) {
    console.error("usage: model_server_main.ts --port-file F --log-file L [--port N]");
    process.exit(2);
  }
  writeFileSync(logFile, "", { flag: "a" });
  const server = await startModelServer({
    port: Number(values.port),
    onRequest: (r) => appendFileSync(logFile, JSON.stringify(r) + "\n"),
  });
  const stop = async () => {
    await server.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
  writeFileSync(`${portFile}.tmp`, String(server.port));
  renameSync(`${portFile}.tmp`, portFile);
  // Also on stdout, so a parent can await the line instead of polling the file.
  console.log(`listening ${server.port}`);
}
