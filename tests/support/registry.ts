/**
 * A real embedded registry for tests: a temp OBSERVAL_HOME, the registry app served over
 * HTTP on 127.0.0.1, and clients for either transport (HTTP, or in process as the CLI's).
 */
import { serve } from "@hono/node-server";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isoSeconds, systemClock } from "../../lib/core/mod.ts";
import { httpTransport, RegistryClient } from "../../lib/registry/mod.ts";
import {
  createRegistryApp,
  createUser,
  embeddedTransport,
  issueKey,
  openRegistry,
  registryPath,
  type UserRole,
  writeSetting,
} from "../../lib/server/mod.ts";

export interface TestRegistry {
  home: string;
  url: string;
  state: ReturnType<typeof openRegistry>;
  /** An HTTP client with the given API key (none = anonymous). */
  http(apiKey?: string): RegistryClient;
  /** An in-process client acting as the local admin. */
  embedded(): RegistryClient;
  /** Creates a user and returns their API key. */
  user(handle: string, role?: UserRole): { id: string; key: string };
  setting(key: string, value: unknown): void;
  close(): Promise<void>;
}

/** Starts a registry on a random loopback port. */
export async function startRegistry(options: {
  resolve?: (host: string) => Promise<string[]>;
  privateHosts?: string[];
} = {}): Promise<TestRegistry> {
  const home = mkdtempSync(join(tmpdir(), "observal-test-"));
  const state = openRegistry({
    path: registryPath(home),
    clock: systemClock,
    resolve: options.resolve,
    delegationCommand: ["observal", "delegate", "mcp"],
  });
  if (options.privateHosts) {
    writeSetting(state.db, "discovery.a2a_private_hosts", options.privateHosts.join(","));
  }
  const app = createRegistryApp(state, { rateLimit: false });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    home,
    url,
    state,
    http: (apiKey) =>
      new RegistryClient({ apiKey, label: url, transport: httpTransport(url, (r) => fetch(r)) }),
    embedded: () => new RegistryClient({ label: "embedded", transport: embeddedTransport(state) }),
    user(handle, role = "user") {
      const now = isoSeconds(new Date());
      const u = createUser(state.db, { handle, role }, now);
      return { id: u.id, key: issueKey(state.db, u.id, now) };
    },
    setting: (key, value) => void writeSetting(state.db, key, value),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      state.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
