/**
 * Verification of signed Agent Cards (A2A v1.0 §8.4): each entry of `signatures` is a
 * JWS in flattened JSON form with a detached payload, the payload being the canonical
 * JSON of the card without `signatures`.
 *
 * Which canonical form: publishers disagree on what "the card" is before JCS. The plain
 * form is RFC 8785 of the card exactly as served, minus `signatures`. The a2a-js form
 * (@a2a-js/sdk 1.3.0 `canonicalizeAgentCard`) first round-trips the card through the
 * v1.0 proto types, so unknown fields disappear, and then drops every empty string,
 * array and object. A signature is accepted when it verifies over either form. The
 * a2a-js form does not cover fields outside the v1.0 schema; that is acceptable because
 * review approves the digest of the whole raw card, not the signature.
 * @module
 */
import { canonicalizeAgentCard } from "@a2a-js/sdk";
import * as jose from "jose";
import { errorMessage, type ObservalError } from "../core/mod.ts";
import { cardError } from "./_card_error.ts";
import { CARD_SIGNATURE_ALGORITHMS } from "./card_signature_algorithms.ts";
import { canonicalJson } from "./digest.ts";

export { CARD_SIGNATURE_ALGORITHMS };

/** The outcome of {@linkcode verifyCardSignatures}. */
export type CardSignatureStatus = { status: "none" } | { status: "verified"; keyId: string };

/** Options for {@linkcode verifyCardSignatures}. */
export interface VerifyCardSignaturesOptions {
  /**
   * Fetches the JWK Set at a signature's `jku` URL and returns its decoded JSON. Pass a
   * fetch that guards against SSRF; it is called at most once per URL.
   */
  fetchJwks: (jku: string) => Promise<unknown>;
  /** Keys trusted up front; a key whose `kid` matches wins over the `jku`. */
  trustedKeys?: jose.JWK[];
}

interface SignatureEntry {
  protected: string;
  signature: string;
  header?: jose.JWSHeaderParameters;
}

/**
 * Checks the signatures on an Agent Card.
 *
 * @param card The raw card as served.
 * @param options Where keys come from.
 * @returns `{status: "none"}` for an unsigned card, or `{status: "verified", keyId}`
 * naming the key of the first signature that verifies.
 * @throws {ObservalError} `INVALID_AGENT_CARD` when the card carries signatures and none
 * verifies (bad signature, unknown key, unsupported algorithm, malformed JWS, key set
 * not reachable).
 *
 * @example
 * ```ts
 * declare const card: unknown;
 * declare function safeGetJson(url: string): Promise<unknown>;
 * const result = await verifyCardSignatures(card, { fetchJwks: (url) => safeGetJson(url) });
 * if (result.status === "verified") console.log(result.keyId);
 * ```
 */
export async function verifyCardSignatures(
  card: unknown,
  options: VerifyCardSignaturesOptions,
): Promise<CardSignatureStatus> {
  if (typeof card !== "object" || card === null || Array.isArray(card)) {
    throw cardError("The Agent Card is not a JSON object");
  }
  const signatures = (card as Record<string, unknown>).signatures;
  if (signatures === undefined || (Array.isArray(signatures) && signatures.length === 0)) {
    return { status: "none" };
  }
  if (!Array.isArray(signatures)) {
    throw refusal("its signatures field is not a list");
  }
  const payloads = signingPayloads(card as Record<string, unknown>);
  const keySets = new Map<string, Promise<unknown>>();
  const reasons: string[] = [];
  for (const [index, entry] of signatures.entries()) {
    try {
      const keyId = await verifyEntry(entry, payloads, options, keySets);
      return { status: "verified", keyId };
    } catch (err) {
      reasons.push(`signature ${index + 1}: ${errorMessage(err)}`);
    }
  }
  throw refusal(reasons.join("; "));
}

function refusal(reason: string): ObservalError {
  return cardError(`The Agent Card is signed, but no signature could be verified (${reason})`, {
    remediation:
      "Ask the agent's owner to re-sign the card and publish the signing key, or trust the key explicitly",
  });
}

/**
 * The base64url payloads a signature may cover: plain JCS first, then the a2a-js form.
 * The a2a-js form drops fields the v1.0 schema does not know, so it is accepted only when
 * the card has no such field with a value: a verified card must not carry anything its
 * signature does not cover.
 */
function signingPayloads(card: Record<string, unknown>): string[] {
  const { signatures: _, ...unsigned } = card;
  const forms = [canonicalJson(unsigned)];
  try {
    const a2aJs = canonicalizeAgentCard(
      card as unknown as Parameters<typeof canonicalizeAgentCard>[0],
    );
    const covered = new Set(Object.keys(JSON.parse(a2aJs)));
    const uncovered = Object.entries(unsigned).filter(([k, v]) => !covered.has(k) && !isEmpty(v));
    if (uncovered.length === 0) forms.push(a2aJs);
  } catch {
    // A card the proto types cannot read simply has no a2a-js form.
  }
  return [...new Set(forms)].map((text) => jose.base64url.encode(new TextEncoder().encode(text)));
}

/** Empty in the a2a-js sense: dropped by its canonical form without changing meaning. */
function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === "" || value === false || value === 0) {
    return true;
  }
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value as object).length === 0;
  return false;
}

async function verifyEntry(
  entry: unknown,
  payloads: string[],
  options: VerifyCardSignaturesOptions,
  keySets: Map<string, Promise<unknown>>,
): Promise<string> {
  const jws = asEntry(entry);
  let header: jose.ProtectedHeaderParameters;
  try {
    header = jose.decodeProtectedHeader(jws);
  } catch {
    throw new Error("the protected header is not base64url JSON");
  }
  const { alg, kid, jku } = header;
  if (typeof kid !== "string" || kid === "") throw new Error("the protected header has no kid");
  if (typeof alg !== "string" || !(CARD_SIGNATURE_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new Error(`algorithm ${JSON.stringify(alg ?? null)} is not accepted`);
  }
  const jwk = await findKey(kid, jku, options, keySets);
  let key: Awaited<ReturnType<typeof jose.importJWK>>;
  try {
    key = await jose.importJWK(jwk, alg);
  } catch (err) {
    throw new Error(`key "${kid}" cannot be used with ${alg} (${(err as Error).message})`);
  }
  for (const payload of payloads) {
    try {
      await jose.flattenedVerify({ ...jws, payload }, key, { algorithms: [alg] });
      return kid;
    } catch (err) {
      if (!(err instanceof jose.errors.JWSSignatureVerificationFailed)) {
        throw new Error(`the JWS is malformed (${(err as Error).message})`);
      }
    }
  }
  throw new Error(`the signature by key "${kid}" does not match the card`);
}

function asEntry(entry: unknown): SignatureEntry {
  if (typeof entry !== "object" || entry === null) throw new Error("it is not an object");
  const { protected: prot, signature, header } = entry as Record<string, unknown>;
  if (typeof prot !== "string" || typeof signature !== "string") {
    throw new Error("protected and signature must be strings");
  }
  const out: SignatureEntry = { protected: prot, signature };
  if (typeof header === "object" && header !== null && !Array.isArray(header)) {
    out.header = header as jose.JWSHeaderParameters;
  }
  return out;
}

async function findKey(
  kid: string,
  jku: string | undefined,
  options: VerifyCardSignaturesOptions,
  keySets: Map<string, Promise<unknown>>,
): Promise<jose.JWK> {
  const trusted = options.trustedKeys?.find((key) => key.kid === kid);
  if (trusted) return trusted;
  if (typeof jku !== "string" || jku === "") {
    throw new Error(`key "${kid}" is not trusted and the header names no jku`);
  }
  if (!keySets.has(jku)) keySets.set(jku, options.fetchJwks(jku));
  let set: unknown;
  try {
    set = await keySets.get(jku);
  } catch (err) {
    throw new Error(`the key set at ${jku} could not be fetched (${(err as Error).message})`);
  }
  const keys = typeof set === "object" && set !== null ? (set as { keys?: unknown }).keys : null;
  if (!Array.isArray(keys)) throw new Error(`${jku} is not a JWK Set`);
  const found = keys.find((key) =>
    typeof key === "object" && key !== null && (key as jose.JWK).kid === kid
  );
  if (!found) throw new Error(`key "${kid}" is not in the key set at ${jku}`);
  return found as jose.JWK;
}
