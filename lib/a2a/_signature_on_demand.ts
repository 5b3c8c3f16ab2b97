/**
 * Card signature checks for the light door: jose and the A2A SDK are imported on the first
 * check, so modules that only need A2A types and parsing (the task store, every command
 * that reads tasks) never load them.
 * @module
 */
import type { CardSignatureStatus, VerifyCardSignaturesOptions } from "./signature.ts";

/**
 * Checks the signatures on an Agent Card; see `signature.ts` for the rules.
 *
 * @param card the raw card as served
 * @param options where keys come from
 * @returns `{status: "none"}` for an unsigned card, or the key that verified
 * @throws {ObservalError} `INVALID_AGENT_CARD` when the card carries signatures and none
 * verifies
 */
export async function verifyCardSignatures(
  card: unknown,
  options: VerifyCardSignaturesOptions,
): Promise<CardSignatureStatus> {
  const { verifyCardSignatures } = await import("./signature.ts");
  return await verifyCardSignatures(card, options);
}
