/**
 * The endpoint a remote agent's entry pinned at review: the one place that reads it, for
 * the service that starts a remote task and the worker that calls the agent.
 * @module
 */
import { type AgentCard, type CardInterface, parseAgentCard } from "../a2a/cards/mod.ts";
import type { EntryDocument } from "./schemas.ts";

/** Where and how to call a remote agent, as its entry was approved. */
export interface PinnedEndpoint {
  /** The callable interface pinned when the card was reviewed (`obs:a2aInterface`). */
  iface: CardInterface;
  /** The card as reviewed (`obs:agentCard`): its security schemes and streaming. */
  card: AgentCard;
}

/**
 * The pinned endpoint and card of a remote entry, or undefined when the entry pins no
 * callable endpoint (a registry Agent, or a card without a JSON-RPC interface).
 *
 * @param entry an entry document from {@linkcode RegistryClient.entry}
 * @returns the interface to call and the card it belongs to
 * @throws {ObservalError} INVALID_AGENT_CARD when the stored card does not parse
 *
 * @example
 * ```ts ignore
 * const pinned = pinnedEndpoint(await registry.entry(identifier));
 * if (pinned) console.log(pinned.iface.url);
 * ```
 */
export function pinnedEndpoint(entry: EntryDocument): PinnedEndpoint | undefined {
  const iface = entry["obs:a2aInterface"];
  if (!iface?.url) return undefined;
  return { iface, card: parseAgentCard(entry["obs:agentCard"]) };
}
