/**
 * A2A for observal, the card door: Agent Card schemas and parsing (v1.0 and v0.3) and
 * interface selection, and nothing else. The registry client reads pinned endpoints
 * through it without loading task normalisation, tokens, digests or ARD documents, which
 * cost the worker and `registry search` milliseconds at every start.
 *
 * @example
 * ```ts
 * import { callableInterface, parseAgentCard } from "./mod.ts";
 *
 * const card = parseAgentCard({ name: "Echo", url: "https://echo.example.com/a2a" });
 * callableInterface(card)?.url; // "https://echo.example.com/a2a"
 * ```
 * @module
 */
export * from "../card.ts";
export * from "../interfaces.ts";
