/** `observal registry serve`: the embedded registry over HTTP. */
import process from "node:process";
import { ObservalError } from "../../core/mod.ts";
import { type Command, int, str } from "../command.ts";
import { note, say } from "../output.ts";

export const serveCommand: Command = {
  name: "serve",
  summary: "Serve the embedded registry over HTTP",
  flags: {
    host: {
      type: "string",
      value: "HOST",
      description: "Address to listen on",
      default: "127.0.0.1",
    },
    port: {
      type: "string",
      value: "PORT",
      description: "Port (0 picks a free one)",
      default: "8787",
    },
  },
  details: `Callers authenticate with API keys (\`observal registry user add\` prints one).
The first line on stdout is \`listening <url>\`; stop with Ctrl-C.`,
  async run(inv, ctx) {
    const host = str(inv, "host")!;
    const port = int(inv, "port", 0, 65535);
    const { serve } = await import("@hono/node-server");
    const { createRegistryApp, openRegistry, registryPath } = await import("../../server/mod.ts");
    const state = openRegistry({
      path: registryPath(ctx.home),
      clock: ctx.clock,
      delegationCommand: ["observal", "delegate", "mcp"],
    });
    const app = createRegistryApp(state, { localAdmin: false });
    const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(s));
      s.once("error", (err: Error) =>
        reject(
          new ObservalError("UNAVAILABLE", `Cannot listen on ${host}:${port}: ${err.message}`, {
            remediation: "Choose another --port, or stop whatever uses it",
          }),
        ));
    });
    const address = server.address();
    const actual = typeof address === "object" && address ? address.port : port;
    const shown = host.includes(":") ? `[${host}]` : host;
    if (inv.json) say(ctx, JSON.stringify({ url: `http://${shown}:${actual}` }));
    else say(ctx, `listening http://${shown}:${actual}`);
    note(ctx, `Registry database: ${registryPath(ctx.home)}`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        server.close(() => resolve());
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    state.close();
    return 0;
  },
};
