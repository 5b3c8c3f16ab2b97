import assert from "node:assert/strict";
import { generateAgentCardSignature } from "@a2a-js/sdk";
import * as jose from "jose";
import { ObservalError } from "../../lib/core/mod.ts";
import { canonicalJson, verifyCardSignatures } from "../../lib/a2a/mod.ts";
import { startJwksServer, startV1Agent } from "../support/a2a_agents.ts";

const CARD = {
  name: "Signed Agent",
  description: "Signs its card.",
  version: "1.0.0",
  supportedInterfaces: [
    { url: "https://signed.example.com/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
  ],
  capabilities: { streaming: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "s", name: "S", description: "Does s", tags: ["t"] }],
};

async function keyPair(kid: string, alg = "ES256") {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await jose.exportJWK(publicKey)), kid, alg };
  return { privateKey, jwk };
}

async function signA2aJs(
  card: object,
  privateKey: jose.CryptoKey,
  header: jose.JWSHeaderParameters,
) {
  const sign = generateAgentCardSignature(privateKey, { typ: "JOSE", ...header });
  // deno-lint-ignore no-explicit-any
  return await sign(card as any) as unknown as Record<string, unknown>;
}

const noFetch = () => Promise.reject(new Error("no key set should be fetched"));

async function refused(promise: Promise<unknown>, pattern: RegExp) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ObservalError);
    assert.equal(err.code, "INVALID_AGENT_CARD");
    assert.equal(err.httpStatus, 422);
    assert.match(err.message, pattern);
    return true;
  });
}

Deno.test("verifyCardSignatures() reports none for an unsigned card", async () => {
  assert.deepEqual(await verifyCardSignatures(CARD, { fetchJwks: noFetch }), { status: "none" });
  assert.deepEqual(
    await verifyCardSignatures({ ...CARD, signatures: [] }, { fetchJwks: noFetch }),
    { status: "none" },
  );
});

Deno.test("verifyCardSignatures() verifies a card signed by @a2a-js/sdk 1.3.0", async () => {
  const { privateKey, jwk } = await keyPair("key-1");
  const signed = await signA2aJs(CARD, privateKey, { alg: "ES256", kid: "key-1" });
  const result = await verifyCardSignatures(signed, { fetchJwks: noFetch, trustedKeys: [jwk] });
  assert.deepEqual(result, { status: "verified", keyId: "key-1" });
});

Deno.test("verifyCardSignatures() verifies the a2a-js form when the card has empty fields", async () => {
  // a2a-js drops empty values before signing; the plain form would differ.
  const card = { ...CARD, description: "", documentationUrl: "", name: "Café" };
  const { privateKey, jwk } = await keyPair("key-1");
  const signed = await signA2aJs(card, privateKey, { alg: "ES256", kid: "key-1" });
  const result = await verifyCardSignatures(signed, { fetchJwks: noFetch, trustedKeys: [jwk] });
  assert.deepEqual(result, { status: "verified", keyId: "key-1" });
});

Deno.test("verifyCardSignatures() refuses a field the a2a-js signature does not cover", async () => {
  // a2a-js also drops unknown fields, so such a field would ride along unsigned.
  const { privateKey, jwk } = await keyPair("key-1");
  const signed = await signA2aJs(CARD, privateKey, { alg: "ES256", kid: "key-1" });
  for (const extra of [{ "x-extra": { a: 1 } }, { url: "https://evil.example.com/a2a" }]) {
    await refused(
      verifyCardSignatures({ ...signed, ...extra }, { fetchJwks: noFetch, trustedKeys: [jwk] }),
      /does not match/,
    );
  }
});

Deno.test("verifyCardSignatures() verifies a signature over the plain RFC 8785 form", async () => {
  const card = { ...CARD, description: "", "x-extra": { a: 1 } };
  const { privateKey, jwk } = await keyPair("plain", "EdDSA");
  const jws = await new jose.FlattenedSign(new TextEncoder().encode(canonicalJson(card)))
    .setProtectedHeader({ alg: "EdDSA", kid: "plain", typ: "JOSE" })
    .sign(privateKey);
  const signed = { ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] };
  const result = await verifyCardSignatures(signed, { fetchJwks: noFetch, trustedKeys: [jwk] });
  assert.deepEqual(result, { status: "verified", keyId: "plain" });
  // Under the plain form the extra field is covered too.
  await refused(
    verifyCardSignatures({ ...signed, "x-extra": { a: 2 } }, {
      fetchJwks: noFetch,
      trustedKeys: [jwk],
    }),
    /does not match/,
  );
});

Deno.test("verifyCardSignatures() refuses a tampered card", async () => {
  const { privateKey, jwk } = await keyPair("key-1");
  const signed = await signA2aJs(CARD, privateKey, { alg: "ES256", kid: "key-1" });
  const tampered = { ...signed, name: "Evil Agent" };
  await refused(
    verifyCardSignatures(tampered, { fetchJwks: noFetch, trustedKeys: [jwk] }),
    /no signature could be verified.*does not match the card/,
  );
  const movedEndpoint = {
    ...signed,
    supportedInterfaces: [{ ...CARD.supportedInterfaces[0], url: "https://evil.example.com" }],
  };
  await refused(
    verifyCardSignatures(movedEndpoint, { fetchJwks: noFetch, trustedKeys: [jwk] }),
    /does not match/,
  );
});

Deno.test("verifyCardSignatures() refuses a key id that is neither trusted nor in a jku", async () => {
  const { privateKey } = await keyPair("key-1");
  const other = await keyPair("other");
  const signed = await signA2aJs(CARD, privateKey, { alg: "ES256", kid: "key-1" });
  await refused(
    verifyCardSignatures(signed, { fetchJwks: noFetch, trustedKeys: [other.jwk] }),
    /key "key-1" is not trusted and the header names no jku/,
  );
});

Deno.test("verifyCardSignatures() refuses a signature made with a different key of the same id", async () => {
  const { privateKey } = await keyPair("key-1");
  const impostor = await keyPair("key-1");
  const signed = await signA2aJs(CARD, privateKey, { alg: "ES256", kid: "key-1" });
  await refused(
    verifyCardSignatures(signed, { fetchJwks: noFetch, trustedKeys: [impostor.jwk] }),
    /does not match/,
  );
});

Deno.test("verifyCardSignatures() fetches the jku key set once through the injected function", async () => {
  const { privateKey, jwk } = await keyPair("key-1");
  const jku = "https://signed.example.com/jwks.json";
  const header = { alg: "ES256", kid: "key-1", jku };
  const once = await signA2aJs(CARD, privateKey, header);
  const twice = await signA2aJs(once, privateKey, header);
  // Break the first signature so both entries are tried.
  const sigs = twice.signatures as { signature: string }[];
  sigs[0] = { ...sigs[0], signature: sigs[1].signature.split("").reverse().join("") };
  const calls: string[] = [];
  const result = await verifyCardSignatures(twice, {
    fetchJwks: (url) => {
      calls.push(url);
      return Promise.resolve({ keys: [{ kid: "unrelated", kty: "oct", k: "AA" }, jwk] });
    },
  });
  assert.deepEqual(result, { status: "verified", keyId: "key-1" });
  assert.deepEqual(calls, [jku]);
});

Deno.test("verifyCardSignatures() prefers a trusted key to the jku", async () => {
  const { privateKey, jwk } = await keyPair("key-1");
  const signed = await signA2aJs(CARD, privateKey, {
    alg: "ES256",
    kid: "key-1",
    jku: "https://x.example.com/jwks.json",
  });
  const result = await verifyCardSignatures(signed, { fetchJwks: noFetch, trustedKeys: [jwk] });
  assert.deepEqual(result, { status: "verified", keyId: "key-1" });
});

Deno.test("verifyCardSignatures() refuses when the jku cannot be fetched or is not a key set", async () => {
  const { privateKey } = await keyPair("key-1");
  const signed = await signA2aJs(CARD, privateKey, {
    alg: "ES256",
    kid: "key-1",
    jku: "https://x.example.com/jwks.json",
  });
  await refused(
    verifyCardSignatures(signed, { fetchJwks: () => Promise.reject(new Error("HTTP 404")) }),
    /could not be fetched \(HTTP 404\)/,
  );
  await refused(
    verifyCardSignatures(signed, { fetchJwks: () => Promise.resolve({ nope: true }) }),
    /is not a JWK Set/,
  );
  await refused(
    verifyCardSignatures(signed, { fetchJwks: () => Promise.resolve({ keys: [] }) }),
    /not in the key set/,
  );
});

Deno.test("verifyCardSignatures() refuses symmetric and unknown algorithms", async () => {
  const secret = new TextEncoder().encode("a".repeat(32));
  const jws = await new jose.FlattenedSign(new TextEncoder().encode(canonicalJson(CARD)))
    .setProtectedHeader({ alg: "HS256", kid: "hmac", typ: "JOSE" })
    .sign(secret);
  const signed = { ...CARD, signatures: [{ protected: jws.protected, signature: jws.signature }] };
  const trustedKeys = [{ kty: "oct", k: jose.base64url.encode(secret), kid: "hmac" }];
  await refused(verifyCardSignatures(signed, { fetchJwks: noFetch, trustedKeys }), /"HS256"/);
  const none = jose.base64url.encode(JSON.stringify({ alg: "none", kid: "k" }));
  await refused(
    verifyCardSignatures({ ...CARD, signatures: [{ protected: none, signature: "" }] }, {
      fetchJwks: noFetch,
    }),
    /"none" is not accepted/,
  );
});

Deno.test("verifyCardSignatures() refuses malformed signature entries", async () => {
  const opts = { fetchJwks: noFetch };
  await refused(verifyCardSignatures({ ...CARD, signatures: {} }, opts), /not a list/);
  await refused(verifyCardSignatures({ ...CARD, signatures: ["x"] }, opts), /not an object/);
  await refused(
    verifyCardSignatures({ ...CARD, signatures: [{ protected: "!!", signature: "x" }] }, opts),
    /protected header/,
  );
  const noKid = jose.base64url.encode(JSON.stringify({ alg: "ES256" }));
  await refused(
    verifyCardSignatures({ ...CARD, signatures: [{ protected: noKid, signature: "x" }] }, opts),
    /no kid/,
  );
});

Deno.test("verifyCardSignatures() verifies the card a signing test agent serves via its jku", async () => {
  const { privateKey, jwk } = await keyPair("agent-key");
  const jwks = await startJwksServer({ keys: [jwk] });
  const agent = await startV1Agent({
    signWith: { privateKey, kid: "agent-key", jku: jwks.url },
  });
  try {
    const card = await (await fetch(agent.cardUrl)).json();
    const fetchJwks = async (url: string) => (await fetch(url)).json();
    assert.deepEqual(await verifyCardSignatures(card, { fetchJwks }), {
      status: "verified",
      keyId: "agent-key",
    });
    assert.equal(jwks.requests.length, 1);
    agent.setCardOverride((c) => ({ ...c, description: "Changed after signing" }));
    const changed = await (await fetch(agent.cardUrl)).json();
    await refused(verifyCardSignatures(changed, { fetchJwks }), /does not match/);
  } finally {
    await agent.close();
    await jwks.close();
  }
});
