/**
 * The JWS algorithms a card signature may use, apart from the verifier (`signature.ts`),
 * which loads jose and the A2A SDK: the client's door names them without loading either.
 * @module
 */

/** Asymmetric JWS algorithms a card signature may use; `none` and HMAC are refused. */
export const CARD_SIGNATURE_ALGORITHMS = [
  "ES256",
  "ES384",
  "ES512",
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "EdDSA",
  "Ed25519",
] as const;
