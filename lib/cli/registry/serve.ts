/** `observal registry serve`: the embedded registry over HTTP. */
import { homeFaultError, probeHome } from "../../core/mod.ts";
import { isLoopback, listen } from "../listen.ts";
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
Reviewers open <url>/ in a browser: they sign in with their key, see what waits for their
review, and approve or reject it there.
This serves plain HTTP: to reach it from other machines, keep it on 127.0.0.1 behind a
TLS-terminating reverse proxy and list the proxy's address in deployment.trusted_proxies,
so rate limits apply per client rather than to the proxy.`,
  async run(inv, ctx) {
    const host = str(inv, "host")!;
    const port = int(inv, "port", 0, 65535);
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
    const server = await listen(app.fetch, host, port);
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
    if (inv.json) say(ctx, JSON.stringify({ url: server.url }));
    else say(ctx, `listening ${server.url}`);
    note(ctx, `Registry database: ${registryPath(ctx.home)}`);
    await server.stopped();
    state.close();
    return 0;
  },
};
