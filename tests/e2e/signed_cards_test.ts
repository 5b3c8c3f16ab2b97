/**
 * Signed Agent Cards through the registry import: a card signed by @a2a-js/sdk 1.3.0
 * verifies with the key from its jku (on the card's host) or an admin-trusted key; a bad
 * signature is refused with 422 and nothing is stored.
 */
import assert from "node:assert/strict";
import * as jose from "jose";
import { startJwksServer, startV1Agent } from "../support/a2a_agents.ts";
import { startRegistry } from "../support/registry.ts";

async function keyPair(kid: string) {
  const { privateKey, publicKey } = await jose.generateKeyPair("ES256", { extractable: true });
  return { privateKey, jwk: { ...(await jose.exportJWK(publicKey)), kid, alg: "ES256" } };
}

Deno.test("signed card: verified with its jku key, shown with the key id", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const { privateKey, jwk } = await keyPair("release-key");
  const jwks = await startJwksServer({ keys: [jwk] });
  const agent = await startV1Agent({ signWith: { privateKey, kid: "release-key", jku: jwks.url } });
  try {
    const doc = await reg.embedded().submitCard({ cardUrl: agent.cardUrl });
    assert.deepEqual(doc["obs:signature"], { status: "verified", keyId: "release-key" });
    assert.equal(jwks.requests.length, 1);
  } finally {
    await agent.close();
    await jwks.close();
    await reg.close();
  }
});

Deno.test("signed card: a tampered card or a key from the wrong place is refused with 422", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1", "localhost"] });
  const { privateKey, jwk } = await keyPair("k1");
  const other = await keyPair("k1");
  const jwks = await startJwksServer({ keys: [jwk] });
  const wrongKeys = await startJwksServer({ keys: [other.jwk] });
  const tampered = await startV1Agent({
    signWith: { privateKey, kid: "k1", jku: jwks.url },
    cardOverride: (card) => ({ ...card, name: "Someone Else" }),
  });
  const wrongKey = await startV1Agent({ signWith: { privateKey, kid: "k1", jku: wrongKeys.url } });
  // The key set sits on another host name than the card, so it proves nothing.
  const offHost = await startV1Agent({
    signWith: { privateKey, kid: "k1", jku: jwks.url.replace("127.0.0.1", "localhost") },
  });
  try {
    for (const agent of [tampered, wrongKey, offHost]) {
      const res = await fetch(`${reg.url}/api/v1/ard/imports/a2a`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${reg.user(`u${crypto.randomUUID().slice(0, 8)}`).key}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ cardUrl: agent.cardUrl }),
      });
      assert.equal(res.status, 422);
      const body = await res.json();
      assert.equal(body.errorCode, "INVALID_AGENT_CARD");
      assert.ok(body.message);
    }
    assert.equal(jwks.requests.filter((r) => r.headers.host?.startsWith("localhost")).length, 0);
    const count = reg.state.db.prepare("SELECT COUNT(*) AS n FROM entries").get() as { n: number };
    assert.equal(count.n, 0, "nothing stored for refused cards");
  } finally {
    for (const a of [tampered, wrongKey, offHost]) await a.close();
    await jwks.close();
    await wrongKeys.close();
    await reg.close();
  }
});

Deno.test("signed card: an admin-trusted key verifies without fetching any jku", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const { privateKey, jwk } = await keyPair("pinned");
  const agent = await startV1Agent({ signWith: { privateKey, kid: "pinned" } });
  try {
    reg.setting("signing.trusted_keys", JSON.stringify([jwk]));
    const doc = await reg.embedded().submitCard({ cardUrl: agent.cardUrl });
    assert.deepEqual(doc["obs:signature"], { status: "verified", keyId: "pinned" });
    const unsigned = await startV1Agent();
    try {
      const plain = await reg.embedded().submitCard({ cardUrl: unsigned.cardUrl });
      assert.deepEqual(plain["obs:signature"], { status: "none" });
    } finally {
      await unsigned.close();
    }
  } finally {
    await agent.close();
    await reg.close();
  }
});
