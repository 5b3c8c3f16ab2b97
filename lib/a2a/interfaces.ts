/**
 * Where an Agent Card can be called: its interfaces in preference order, and the one
 * observal speaks (the first JSON-RPC interface).
 * @module
 */
import { z } from "zod";
import type { AgentCard, AgentCardV1 } from "./card.ts";

/** The bindings A2A defines; others are kept as written (upper-cased). */
export const KNOWN_BINDINGS = ["JSONRPC", "GRPC", "HTTP+JSON"] as const;

/**
 * One endpoint of a card, normalised. This is the shape pinned as `obs:a2aInterface`.
 * Built on first use, as the card schemas are.
 */
export const CardInterfaceSchema = z.lazy(() =>
  z.object({
    url: z.string(),
    protocolBinding: z.string(),
    protocolVersion: z.string().optional(),
    tenant: z.string().optional(),
  })
);
export type CardInterface = z.infer<typeof CardInterfaceSchema>;

/** The protocol version a v0.3 card means when it does not say. */
export const DEFAULT_V03_PROTOCOL_VERSION = "0.3.0";

/**
 * Normalises a binding name: upper-case, `_` → `+`, `REST`/`HTTP`/`HTTPJSON` →
 * `HTTP+JSON`, empty → `JSONRPC` (the v0.3 default transport).
 *
 * @param name The binding or transport as written in the card.
 * @returns The normalised name.
 *
 * @example
 * ```ts
 * normaliseBinding("http_json"); // "HTTP+JSON"
 * ```
 */
export function normaliseBinding(name: string | undefined): string {
  const upper = (name ?? "").trim().toUpperCase().replaceAll("_", "+");
  if (upper === "") return "JSONRPC";
  if (upper === "REST" || upper === "HTTP" || upper === "HTTPJSON") return "HTTP+JSON";
  return upper;
}

/**
 * Collects a card's interfaces in preference order: v1.0 `supportedInterfaces`, then the
 * v0.3 main `url` with `preferredTransport`, then v0.3 `additionalInterfaces`. Only
 * http(s) URLs with a host are kept, and exact duplicates are dropped.
 *
 * @param card A parsed card of either version.
 * @returns The interfaces, most preferred first.
 */
export function cardInterfaces(card: AgentCard): CardInterface[] {
  const out: CardInterface[] = [];
  const seen = new Set<string>();
  const cardProtocol = nonEmpty(card.protocolVersion);
  const add = (url: unknown, binding: string | undefined, version?: string, tenant?: string) => {
    if (typeof url !== "string" || !isHttpUrl(url.trim())) return;
    const iface: CardInterface = { url: url.trim(), protocolBinding: normaliseBinding(binding) };
    if (version) iface.protocolVersion = version;
    if (tenant) iface.tenant = tenant;
    const key = JSON.stringify([iface.url, iface.protocolBinding, version ?? "", tenant ?? ""]);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(iface);
  };
  const supported = (card as AgentCardV1).supportedInterfaces;
  for (const iface of Array.isArray(supported) ? supported : []) {
    add(
      iface.url,
      iface.protocolBinding ?? iface.transport,
      nonEmpty(iface.protocolVersion) ?? cardProtocol,
      nonEmpty(iface.tenant),
    );
  }
  // v0.3 endpoints: a card without a protocolVersion is 0.3.0 by that spec's default.
  const legacyVersion = cardProtocol ?? DEFAULT_V03_PROTOCOL_VERSION;
  add(card.url, card.preferredTransport, legacyVersion);
  for (const extra of card.additionalInterfaces ?? []) {
    add(extra.url, extra.transport, legacyVersion);
  }
  return out;
}

/**
 * The interface observal calls: the first JSON-RPC one, or `undefined` when the card
 * offers none (the agent can then be imported but not delegated to).
 *
 * @param card A parsed card of either version.
 * @returns `{url, protocolBinding, protocolVersion?, tenant?}` or `undefined`.
 */
export function callableInterface(card: AgentCard): CardInterface | undefined {
  return cardInterfaces(card).find((iface) => iface.protocolBinding === "JSONRPC");
}

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
