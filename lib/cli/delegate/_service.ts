/** Builds the delegation service for one command and closes what it opened. */
import { type Context, serverTarget } from "../../core/mod.ts";
import { DelegationService, detachedLauncher } from "../../delegation/mod.ts";
import type { RegistryClient } from "../../registry/mod.ts";
import { openTaskStore, type TaskStore } from "../../store/mod.ts";
import { loadEmbeddedRegistryCode, openRegistryClient } from "../open_registry_client.ts";

export interface Opened {
  service: DelegationService;
  store: TaskStore;
  registry: () => RegistryClient;
}

/** Opens the service (store now, registry client on first use); `close` releases both. */
export function openService(ctx: Context): Opened & { close(): void } {
  const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
  let client: RegistryClient | undefined;
  const registry = () => (client ??= openRegistryClient(ctx));
  try {
    const service = new DelegationService({ ctx, store, registry, launch: detachedLauncher(ctx) });
    return {
      service,
      store,
      registry,
      close() {
        client?.close();
        store.close();
      },
    };
  } catch (err) {
    store.close();
    throw err;
  }
}

/**
 * Loads the code a first call to the service runs beyond this module (the harness lookup
 * a search makes and, for the embedded registry, its server side), opening nothing.
 */
export async function loadServiceCode(ctx: Context): Promise<void> {
  await Promise.all([
    import("../../runner/runnable/mod.ts"),
    serverTarget(ctx).kind === "embedded" ? loadEmbeddedRegistryCode() : undefined,
  ]);
}

/** Runs `fn` with an opened service and closes it afterwards, once its cancels are sent. */
export async function withService<T>(ctx: Context, fn: (o: Opened) => Promise<T>): Promise<T> {
  const opened = openService(ctx);
  try {
    return await fn(opened);
  } finally {
    // A cancel sent to the agent of a task whose worker died is awaited, not dropped.
    await opened.service.drain();
    opened.close();
  }
}
