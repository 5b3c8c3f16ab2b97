/**
 * Signing the card a served Agent publishes (A2A v1.0 §8.4), with a key from a file: a
 * private JWK or a PEM private key. Each entry of `signatures` is a JWS in flattened JSON
 * form with a detached payload, the canonical JSON (RFC 8785) of the card as served
 * without `signatures`, which is what `verifyCardSignatures` checks. The v1.0 card and the
 * v0.3 "hybrid" card differ, so each is signed over its own bytes.
 * @module
 */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import * as jose from "jose";
import { CARD_SIGNATURE_ALGORITHMS } from "../a2a/card_signature_algorithms.ts";
import { canonicalJson } from "../a2a/digest.ts";
import { ObservalError, readPrivateFile } from "../core/mod.ts";

/** Where the server publishes the public key set its signatures name as `jku`. */
export const JWKS_PATH = "/.well-known/jwks.json";

type Algorithm = typeof CARD_SIGNATURE_ALGORITHMS[number];

/** A private key ready to sign cards, with its public half. */
export interface CardSigningKey {
  alg: Algorithm;
  /** The JWK's own `kid`, or else its RFC 7638 SHA-256 thumbprint. */
  kid: string;
  /** The public half: key members, `kid`, `alg` and `use`, never a private member. */
  publicJwk: Record<string, string>;
  privateKey: CryptoKey;
}

/** Signs cards as served and publishes the key that verifies them. */
export interface CardSigner {
  /** The card with `signatures` over exactly its other fields (the same card, same answer). */
  sign(card: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Where the signatures say the key set is: the server's URL + {@linkcode JWKS_PATH}. */
  jku: string;
  /** The JWK Set to serve there: public members only. */
  jwks: { keys: Record<string, string>[] };
}

/** The algorithms each key type may sign with; the first is used when the JWK names none. */
const ALGORITHMS_BY_KEY: Record<string, readonly Algorithm[]> = {
  "ec:prime256v1": ["ES256"],
  "ec:secp384r1": ["ES384"],
  "ec:secp521r1": ["ES512"],
  ed25519: ["EdDSA", "Ed25519"],
  rsa: ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"],
  "rsa-pss": ["PS256", "PS384", "PS512"],
};

/** Smallest RSA modulus taken, as jose and RFC 7518 §3.3 require. */
const MIN_RSA_BITS = 2048;

/** How to make a key this module takes. */
const MAKE_A_KEY = "Make one with `openssl genpkey -algorithm EC -pkeyopt " +
  "ec_paramgen_curve:P-256 -out FILE && chmod 600 FILE` (or Ed25519, or RSA of 2048+ bits)";

/**
 * Reads the card signing key in `file`: private to the user, a private JWK (JSON) or a PEM
 * private key (PKCS#8, or SEC1/PKCS#1), of a type a card signature may use.
 *
 * @param file the key file, as given to `--signing-key`
 * @returns the key, its algorithm and its key id
 * @throws {ObservalError} `INVALID_ARGUMENT` when the file cannot be read, others can
 * read it, or it holds no usable private key
 */
export async function readCardSigningKey(file: string): Promise<CardSigningKey> {
  const text = readPrivateFile(file, "signing-key", "the key");
  const { key, jwk } = parseKey(text, file);
  const alg = algorithmFor(key, jwk?.alg, file);
  // The public key's own export holds no private member, whatever the file held besides.
  const members = createPublicKey(key).export({ format: "jwk" }) as Record<string, string>;
  const kid = typeof jwk?.kid === "string" && jwk.kid !== ""
    ? jwk.kid
    : await jose.calculateJwkThumbprint(members as jose.JWK, "sha256");
  const privateKey = await jose.importJWK(key.export({ format: "jwk" }) as jose.JWK, alg);
  return {
    alg,
    kid,
    publicJwk: { ...members, kid, alg, use: "sig" },
    privateKey: privateKey as CryptoKey,
  };
}

/** The private key in `text`, and the JWK it was written as (if it was). */
function parseKey(
  text: string,
  file: string,
): { key: KeyObject; jwk?: Record<string, unknown> } {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    let jwk: unknown;
    try {
      jwk = JSON.parse(trimmed);
    } catch {
      throw garbled(file);
    }
    if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) throw garbled(file);
    const fields = jwk as Record<string, unknown>;
    if (fields.kty === "oct") throw unsupported(file, "a shared secret (HMAC)");
    if (fields.d === undefined) throw publicOnly(file);
    try {
      return { key: createPrivateKey({ key: fields as never, format: "jwk" }), jwk: fields };
    } catch {
      throw garbled(file);
    }
  }
  const label = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(trimmed)?.[1];
  if (label === undefined) throw garbled(file);
  if (/PUBLIC KEY|CERTIFICATE/.test(label)) throw publicOnly(file);
  if (label.includes("ENCRYPTED")) {
    throw refusal(
      `--signing-key ${file} is encrypted with a passphrase`,
      "Write it unencrypted to a private file: " +
        `\`openssl pkey -in ${file} -out NEW && chmod 600 NEW\``,
    );
  }
  try {
    return { key: createPrivateKey(trimmed) };
  } catch {
    throw garbled(file);
  }
}

/** The algorithm `key` signs with: the JWK's `alg` when it names one, else the key's own. */
function algorithmFor(key: KeyObject, named: unknown, file: string): Algorithm {
  const type = key.asymmetricKeyType ?? "unknown";
  const details = key.asymmetricKeyDetails ?? {};
  const algorithms = ALGORITHMS_BY_KEY[type === "ec" ? `ec:${details.namedCurve}` : type];
  if (!algorithms) {
    const what = type === "ec"
      ? `an EC key on curve ${details.namedCurve}`
      : `a key of type ${type}`;
    throw unsupported(file, what);
  }
  if ((details.modulusLength ?? MIN_RSA_BITS) < MIN_RSA_BITS) {
    throw unsupported(file, `an RSA key of ${details.modulusLength} bits`);
  }
  if (named === undefined) return algorithms[0];
  const alg = algorithms.find((a) => a === named);
  if (!alg) throw unsupported(file, `a key of type ${type} for algorithm ${JSON.stringify(named)}`);
  return alg;
}

/**
 * Signs `card` with `key`: the card with one `signatures` entry whose protected header
 * names `alg`, `kid` and `jku`, over the canonical JSON of the card without `signatures`.
 *
 * @param card the card exactly as it will be served
 * @param key the signing key
 * @param jku where the public key set is served
 * @returns a new card; `card` is not changed
 */
export async function signCard(
  card: Record<string, unknown>,
  key: CardSigningKey,
  jku: string,
): Promise<Record<string, unknown>> {
  const { signatures: _, ...unsigned } = card;
  const payload = new TextEncoder().encode(canonicalJson(unsigned));
  const jws = await new jose.FlattenedSign(payload)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, jku, typ: "JOSE" })
    .sign(key.privateKey);
  return { ...unsigned, signatures: [{ protected: jws.protected, signature: jws.signature }] };
}

/**
 * Reads the key in `file` (see {@linkcode readCardSigningKey}) before the server's URL is
 * known, and makes the server's signer once it is.
 *
 * @param file the key file, as given to `--signing-key`
 * @returns a function of the server's root URL giving its signer
 * @throws {ObservalError} `INVALID_ARGUMENT` when the key is refused
 */
export async function fileCardSigner(file: string): Promise<(serverUrl: string) => CardSigner> {
  const key = await readCardSigningKey(file);
  return (serverUrl) => cardSigner(key, serverUrl);
}

/** Most distinct cards one signer keeps signed (a server serves two forms of its card). */
const MAX_SIGNED_FORMS = 8;

/**
 * A signer for one server: it signs each distinct card once, so a card fetched again is
 * byte for byte the same (a registry approves the digest of the whole card, signatures
 * included, and ECDSA signatures differ at each signing).
 *
 * @param key the signing key
 * @param serverUrl the server's root URL; the key set goes at {@linkcode JWKS_PATH} under it
 * @returns the signer and the key set to publish
 */
export function cardSigner(key: CardSigningKey, serverUrl: string): CardSigner {
  const jku = new URL(JWKS_PATH, serverUrl).href;
  const signed = new Map<string, Promise<Record<string, unknown>>>();
  return {
    sign(card) {
      const { signatures: _, ...unsigned } = card;
      const text = canonicalJson(unsigned);
      let done = signed.get(text);
      if (!done) {
        if (signed.size >= MAX_SIGNED_FORMS) signed.delete(signed.keys().next().value!);
        done = signCard(unsigned, key, jku);
        signed.set(text, done);
        // A failed signing is tried again at the next request, not kept.
        done.catch(() => signed.delete(text));
      }
      return done;
    },
    jku,
    jwks: { keys: [key.publicJwk] },
  };
}

function refusal(message: string, remediation: string): ObservalError {
  return new ObservalError("INVALID_ARGUMENT", message, { remediation });
}

function garbled(file: string): ObservalError {
  return refusal(
    `--signing-key ${file} holds neither a private JWK (JSON) nor a PEM private key`,
    MAKE_A_KEY,
  );
}

function publicOnly(file: string): ObservalError {
  return refusal(
    `--signing-key ${file} holds a public key only; signing needs the private key`,
    "Pass the private key file (a JWK with its `d` member, or a PEM PRIVATE KEY); " +
      "the server publishes the public half itself",
  );
}

function unsupported(file: string, what: string): ObservalError {
  return refusal(
    `--signing-key ${file} holds ${what}, which a card signature may not use ` +
      `(allowed: ${CARD_SIGNATURE_ALGORITHMS.join(", ")})`,
    MAKE_A_KEY,
  );
}
