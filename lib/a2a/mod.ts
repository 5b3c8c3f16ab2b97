/**
 * A2A for observal: Agent Card schemas and parsing (v1.0 and v0.3), interface selection,
 * the card digest, ARD identifiers and documents for imported cards, card signature
 * verification, the per-host token rules, and the JSON-RPC client for remote agents (whose
 * v1.0 and v0.3 answers are normalised to v1.0 snapshots, within the limits of
 * `remote_limits.ts`) with the loop that follows a remote task to its end.
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
export * from "./normalize.ts";
export * from "./tokens.ts";
export * from "./remote_limits.ts";
export * from "./client/remote_client.ts";
export * from "./client/remote_rpc_error.ts";
export * from "./client/remote_errors.ts";
export * from "./client/follow_task.ts";
