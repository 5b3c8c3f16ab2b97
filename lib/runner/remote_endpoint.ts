/**
 * A remote task's endpoint: the approved card's pinned JSON-RPC interface, read again at
 * run time (an approval may have been withdrawn), the hosts allowed to be private as the
 * registry says now, and the client that reaches it only through the SSRF gate.
 * @module
 */
import { remoteLimits, type Task } from "../a2a/mod.ts";
import { createRemoteClient, type RemoteClient } from "../a2a/client/mod.ts";
import { remotePace } from "../a2a/remote_pace.ts";
import { ObservalError } from "../core/mod.ts";
import { resolveWithOverrides } from "../net/mod.ts";
import { type EntryDocument, type PinnedEndpoint, pinnedEndpoint } from "../registry/mod.ts";
import type { RemoteRunDeps } from "./remote_run.ts";

/** The variable holding host=address pairs used instead of DNS for agent endpoints. */
const RESOLVE_VARIABLE = "OBSERVAL_A2A_RESOLVE";

/** The pinned endpoint, its card and the hosts allowed to be private. */
export interface Endpoint extends PinnedEndpoint {
  allowPrivateHosts: string[];
}

/** The pinned endpoint and card, if the entry is still approved and delegable. */
export async function approvedEndpoint(
  deps: RemoteRunDeps,
  task: Task,
  read?: EntryDocument,
): Promise<Endpoint | { refused: string }> {
  let entry: EntryDocument;
  try {
    entry = read ?? await deps.registry().entry(task.metadata.observal.target);
  } catch (err) {
    if (err instanceof ObservalError && err.code === "NOT_FOUND") {
      return { refused: "it was removed from the registry" };
    }
    throw err;
  }
  if (entry["obs:lifecycle"] !== "approved" || entry["obs:delegable"] === false) {
    return { refused: "it is no longer approved" };
  }
  const pinned = pinnedEndpoint(entry);
  if (!pinned) return { refused: "its approved card has no callable endpoint" };
  return { ...pinned, allowPrivateHosts: await privateHosts(deps, entry, pinned.iface.url) };
}

/**
 * The registry's `discovery.a2a_private_hosts` as it stands now, read at call time so that
 * removing a host takes effect at once. The entry may carry the decision for its own
 * endpoint (`obs:a2aPrivateHost`); otherwise the setting is read where this user may read
 * it (the embedded registry, or an admin's key). Anyone else gets no exemption: a private
 * endpoint then fails closed.
 */
async function privateHosts(
  deps: RemoteRunDeps,
  entry: EntryDocument,
  endpoint: string,
): Promise<string[]> {
  const decided = entry["obs:a2aPrivateHost"];
  if (typeof decided === "boolean") {
    return decided && URL.canParse(endpoint) ? [new URL(endpoint).hostname] : [];
  }
  try {
    const { items } = await deps.registry().settings();
    const value = items.find((i) => i.key === "discovery.a2a_private_hosts")?.value;
    return Array.isArray(value) ? value.filter((h): h is string => typeof h === "string") : [];
  } catch {
    return [];
  }
}

/** A client for the pinned endpoint, through the SSRF gate, the resolver and the size caps. */
export function clientFor(deps: RemoteRunDeps, endpoint: Endpoint): RemoteClient {
  const { ctx } = deps;
  return createRemoteClient({
    iface: endpoint.iface,
    card: endpoint.card,
    env: ctx.env,
    allowPrivateHosts: endpoint.allowPrivateHosts,
    resolve: deps.resolve ?? resolveWithOverrides(ctx.env[RESOLVE_VARIABLE], RESOLVE_VARIABLE),
    request: deps.request,
    limits: remoteLimits(ctx.env),
    ...remotePace(ctx.env),
  });
}
