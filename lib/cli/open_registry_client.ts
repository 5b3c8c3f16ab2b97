/**
 * The registry client as the CLI sets it up: HTTP to the configured Observal server, or
 * the embedded registry's `fetch` in this process. The embedded registry (its database,
 * hono and the rest of lib/server) loads on the first call, so opening a client is free
 * and a command that never calls the registry never loads the server.
 * @module
 */
import { join } from "../core/paths.ts";
import { type Context, ObservalError, serverTarget } from "../core/mod.ts";
import { RegistryClient, type Transport } from "../registry/mod.ts";

/** Options for {@linkcode openRegistryClient}. */
export interface OpenClientOptions {
  /** Resolver for card fetches by the embedded registry (tests inject one). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** argv that launches the observal-agents MCP server. @default ["observal", "delegate", "mcp"] */
  delegationCommand?: readonly string[];
}

/**
 * A client for the configured server, or for the embedded registry in this process (acting
 * as the local admin). Close it when done: the embedded one holds its database open once a
 * call has opened it.
 *
 * @param ctx where the registry is (`OBSERVAL_SERVER_URL`, config.json, `OBSERVAL_HOME`)
 * @param options what the embedded registry needs beyond the Context
 * @returns a client; nothing is opened or loaded until its first call
 *
 * @example
 * ```ts ignore
 * const client = openRegistryClient(ctx);
 * try {
 *   const { results } = await client.search({ query: { text: "review" } });
 * } finally {
 *   client.close();
 * }
 * ```
 */
export function openRegistryClient(ctx: Context, options: OpenClientOptions = {}): RegistryClient {
  const target = serverTarget(ctx);
  if (target.kind === "remote") {
    return new RegistryClient({
      baseUrl: target.url,
      apiKey: target.apiKey,
      label: target.url,
      transport: (req) => ctx.fetch(req),
    });
  }
  const embedded = embeddedTransport(ctx, options);
  return new RegistryClient({
    baseUrl: "http://observal.local",
    label: "the embedded registry",
    transport: embedded.transport,
    onClose: embedded.close,
  });
}

/** The embedded registry's `fetch`, opening the database and loading the server on first use. */
function embeddedTransport(
  ctx: Context,
  options: OpenClientOptions,
): { transport: Transport; close(): void } {
  let opened: Promise<{ fetch: Transport; close(): void }> | undefined;
  let ready: { close(): void } | undefined;
  let closed = false;
  const open = async () => {
    const server = await import("../server/mod.ts");
    if (closed) {
      throw new ObservalError("INTERNAL", "The registry client was used after it was closed");
    }
    let state;
    try {
      state = server.openRegistry({
        path: server.registryPath(ctx.home),
        clock: ctx.clock,
        resolve: options.resolve,
        delegationCommand: options.delegationCommand ?? ["observal", "delegate", "mcp"],
      });
    } catch (err) {
      throw new ObservalError("UNAVAILABLE", `Cannot open the embedded registry in ${ctx.home}`, {
        cause: err,
        remediation: `Check that ${
          join(ctx.home, "registry.db")
        } is writable, or set OBSERVAL_HOME`,
      });
    }
    const app = server.createRegistryApp(state, { localAdmin: true, rateLimit: false });
    ready = { close: () => state.close() };
    return { fetch: async (req: Request) => await app.fetch(req), close: ready.close };
  };
  return {
    transport: async (req) => {
      const registry = await (opened ??= open());
      return await registry.fetch(req);
    },
    close: () => {
      if (closed) return;
      closed = true;
      if (ready) ready.close();
      // A registry still opening is closed as soon as it has opened.
      else opened?.then((r) => r.close(), () => {});
    },
  };
}
