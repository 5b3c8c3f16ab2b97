/** `observal registry serve`: the embedded registry over HTTP. */
import process from "node:process";
import { homeFaultError, ObservalError, probeHome } from "../../core/mod.ts";
import { ipInRange, parseIpAddress, parseIpRange } from "../../net/mod.ts";
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
The first line on stdout is \`listening <url>\`; stop with Ctrl-C.
This serves plain HTTP: to reach it from other machines, keep it on 127.0.0.1 behind a
TLS-terminating reverse proxy and list the proxy's address in deployment.trusted_proxies,
so rate limits apply per client rather than to the proxy.`,
  async run(inv, ctx) {
    const host = str(inv, "host")!;
    const port = int(inv, "port", 0, 65535);
    const { serve } = await import("@hono/node-server");
    const { createRegistryApp, openRegistry, registryPath } = await import("../../server/mod.ts");
    // A registry that could not save a change would answer every write with an error:
    // a home that takes no writes stops it here, before it listens.
    const fault = probeHome(ctx.home);
    if (fault) throw homeFaultError(fault, ctx.home);
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
    if (!isLoopback(host)) {
      // API keys travel in every request: off this machine they need TLS around them.
      note(
        ctx,
        `Warning: serving plain HTTP on ${shown}, which other machines can reach; API keys ` +
          "and registry data cross the network unencrypted. Put a TLS-terminating reverse " +
          "proxy in front, bind this server to 127.0.0.1 behind it, and list the proxy's " +
          "address in deployment.trusted_proxies (`observal registry settings set " +
          "deployment.trusted_proxies <proxy-ip>`) so rate limits see the real clients",
      );
    }
    // Handle signals before announcing the URL: a supervisor may stop us as soon as it reads it.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        server.close(() => resolve());
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    if (inv.json) say(ctx, JSON.stringify({ url: `http://${shown}:${actual}` }));
    else say(ctx, `listening http://${shown}:${actual}`);
    note(ctx, `Registry database: ${registryPath(ctx.home)}`);
    await stopped;
    state.close();
    return 0;
  },
};

const LOOPBACK = [parseIpRange("127.0.0.0/8")!, parseIpRange("::1")!];

/** True when only this machine can connect: `localhost`, 127.0.0.0/8 or ::1. */
function isLoopback(host: string): boolean {
  if (host.toLowerCase() === "localhost") return true;
  const address = parseIpAddress(host);
  return address !== null && LOOPBACK.some((range) => ipInRange(address, range));
}
