/**
 * The registry client as the CLI sets it up: HTTP to the configured Observal server, or
 * the embedded registry in this process. The embedded registry (its database,
 * hono and the rest of lib/server) loads on the first call, so opening a client is free
 * and a command that never calls the registry never loads the server.
 * @module
 */
import { join } from "../core/system/mod.ts";
import {
  type Context,
  homeFault,
  ObservalError,
  type ServerTarget,
  serverTarget,
} from "../core/mod.ts";
import { httpTransport, RegistryClient, type Transport } from "../registry/mod.ts";

/** Options for {@linkcode openRegistryClient}. */
export interface OpenClientOptions {
  /** Resolver for card fetches by the embedded registry (tests inject one). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** argv that launches the observal-agents MCP server. @default ["observal", "delegate", "mcp"] */
  delegationCommand?: readonly string[];
  /** Where to call instead of the configured target (`auth login --server`, a key to check). */
  target?: ServerTarget;
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
  const target = options.target ?? serverTarget(ctx);
  if (target.kind === "remote") {
    return new RegistryClient({
      apiKey: target.apiKey,
      label: target.url,
      transport: httpTransport(target.url, (req) => ctx.fetch(req)),
    });
  }
  const embedded = embeddedTransport(ctx, options);
  return new RegistryClient({
    label: "the embedded registry",
    transport: embedded.transport,
    onClose: embedded.close,
  });
}

/**
 * Why a server may have shown nothing: it was asked anonymously, and most servers show an
 * anonymous caller only public entries. Undefined when a key is set or no server is used.
 */
export function anonymousHint(ctx: Context): string | undefined {
  const target = serverTarget(ctx);
  if (target.kind !== "remote" || target.apiKey) return undefined;
  return `You are not signed in to ${target.url}, which shows anonymous callers only what is ` +
    "public: run `observal auth login`, or set OBSERVAL_API_KEY, and try again.";
}

/** Loads the embedded registry's code (what a client needs of it), opening nothing. */
export function loadEmbeddedRegistryCode() {
  return Promise.all([import("../server/open.ts"), import("../server/embedded.ts")]);
}

/**
 * The embedded registry's transport, opening the database and loading the server on first
 * use. Only the parts a call needs load: a search never loads the HTTP app.
 */
function embeddedTransport(
  ctx: Context,
  options: OpenClientOptions,
): { transport: Transport; close(): void } {
  let opened: Promise<{ transport: Transport; close(): void }> | undefined;
  let ready: { close(): void } | undefined;
  let closed = false;
  const open = async () => {
    const [{ openRegistry, registryPath }, { embeddedTransport }] =
      await loadEmbeddedRegistryCode();
    if (closed) {
      throw new ObservalError("INTERNAL", "The registry client was used after it was closed");
    }
    let state;
    try {
      state = openRegistry({
        path: registryPath(ctx.home),
        clock: ctx.clock,
        resolve: options.resolve,
        delegationCommand: options.delegationCommand ?? ["observal", "delegate", "mcp"],
      });
    } catch (err) {
      throw homeFault(err, ctx.home) ??
        new ObservalError("UNAVAILABLE", `Cannot open the embedded registry in ${ctx.home}`, {
          cause: err,
          remediation: `Check that ${
            join(ctx.home, "registry.db")
          } is writable, or set OBSERVAL_HOME`,
        });
    }
    ready = { close: () => state.close() };
    return { transport: embeddedTransport(state), close: ready.close };
  };
  return {
    transport: async (call) => {
      const registry = await (opened ??= open());
      return await registry.transport(call);
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
