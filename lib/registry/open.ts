/** Picks the transport for the registry client from the Context. */
import { join } from "node:path";
import { type Context, ObservalError, serverTarget } from "../core/mod.ts";
import { createRegistryApp, openRegistry, registryPath } from "../server/mod.ts";
import { RegistryClient } from "./client.ts";

/** Options for {@linkcode openRegistryClient}. */
export interface OpenClientOptions {
  /** Resolver for card fetches by the embedded registry (tests inject one). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** argv that launches the observal-agents MCP server. @default ["observal", "delegate", "mcp"] */
  delegationCommand?: readonly string[];
}

/**
 * A client for the configured server, or for the embedded registry in this process (acting
 * as the local admin). Close it when done: the embedded one holds the database open.
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
  let state;
  try {
    state = openRegistry({
      path: registryPath(ctx.home),
      clock: ctx.clock,
      resolve: options.resolve,
      delegationCommand: options.delegationCommand ?? ["observal", "delegate", "mcp"],
    });
  } catch (err) {
    throw new ObservalError("UNAVAILABLE", `Cannot open the embedded registry in ${ctx.home}`, {
      cause: err,
      remediation: `Check that ${join(ctx.home, "registry.db")} is writable, or set OBSERVAL_HOME`,
    });
  }
  const app = createRegistryApp(state, { localAdmin: true, rateLimit: false });
  return new RegistryClient({
    baseUrl: "http://observal.local",
    label: "the embedded registry",
    transport: async (req) => await app.fetch(req),
    onClose: () => state.close(),
  });
}
