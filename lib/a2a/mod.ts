/**
 * A2A for observal, the light door: Agent Card schemas and parsing (v1.0 and v0.3),
 * interface selection, the card digest, ARD identifiers and documents for imported cards,
 * the task shapes, normalising remote answers to v1.0 snapshots (within the limits of
 * `remote_limits.ts`), the per-host token rules, and card signature checks (jose and the
 * A2A SDK load on the first check). It loads no HTTP client, so the task store and every
 * command that only reads tasks stay light.
 *
 * The JSON-RPC client for remote agents and the loop that follows a remote task to its end
 * are behind the heavy door, `client/mod.ts`.
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
export * from "./task.ts";
export * from "./normalize.ts";
export * from "./tokens.ts";
export * from "./remote_limits.ts";
export * from "./client/remote_rpc_error.ts";
export * from "./client/remote_errors.ts";
export { verifyCardSignatures } from "./_signature_on_demand.ts";
export type { CardSignatureStatus, VerifyCardSignaturesOptions } from "./signature.ts";
export * from "./repo_state.ts";
