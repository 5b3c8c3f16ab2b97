/**
 * A2A for observal: Agent Card schemas and parsing (v1.0 and v0.3), interface selection,
 * the card digest, ARD identifiers and documents for imported cards, and card signature
 * verification.
 *
 * @example
 * ```ts
 * import { callableInterface, cardDigest, parseAgentCard } from "./mod.ts";
 *
 * const raw = { name: "Echo", url: "https://echo.example.com/a2a" };
 * const card = parseAgentCard(raw);
 * callableInterface(card); // {url: "https://echo.example.com/a2a", protocolBinding: "JSONRPC", ...}
 * cardDigest(raw); // "sha256:…"
 * ```
 * @module
 */
export * from "./card.ts";
export * from "./interfaces.ts";
export * from "./digest.ts";
export * from "./identifier.ts";
export * from "./ard_document.ts";
export * from "./signature.ts";
export * from "./task.ts";
