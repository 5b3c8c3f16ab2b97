/**
 * `observal a2a serve --signing-key`: each form of the served card (v1.0, and the hybrid
 * v0.3 one) carries its own signature that the import side's verifier accepts with the key
 * set the server publishes; a registry importing the card reports it verified; a changed
 * card fails; bad key files are refused before anything is served.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as jose from "jose";
import { ObservalError } from "../../lib/core/mod.ts";
import { verifyCardSignatures } from "../../lib/a2a/signature.ts";
import { cli } from "../support/cli.ts";
import { type Served, withServed } from "../support/served_agent.ts";

const CARD = "/.well-known/agent-card.json";

const ec256 = () => generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
const JWKS = "/.well-known/jwks.json";

/** A folder for key files, removed with `using`. */
function keyFolder() {
  const dir = mkdtempSync(join(tmpdir(), "observal-keys-"));
  return {
    /** Writes `text` to `name` with `mode` and returns its path. */
    write(name: string, text: string, mode = 0o600): string {
      const path = join(dir, name);
      writeFileSync(path, text);
      chmodSync(path, mode);
      return path;
    },
    [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  assert.equal(res.status, 200, url);
  return await res.json();
}

/** The served card in both forms, as a v1.0 client and a v0.3 client fetch it. */
async function cards(served: Served) {
  return {
    v1: await getJson(`${served.url}${CARD}`, { "A2A-Version": "1.0" }),
    v03: await getJson(`${served.url}${CARD}`),
  };
}

/** Verifies with the key set fetched from wherever the signature's jku says. */
function verify(card: unknown) {
  return verifyCardSignatures(card, { fetchJwks: (jku) => getJson(jku) });
}

Deno.test("a2a serve --signing-key: both card forms carry their own signature, verified with the served key set", async () => {
  using keys = keyFolder();
  const { privateKey, publicKey } = await jose.generateKeyPair("ES256", { extractable: true });
  const pem = keys.write("card.pem", await jose.exportPKCS8(privateKey));
  const thumbprint = await jose.calculateJwkThumbprint(await jose.exportJWK(publicKey));
  await withServed(undefined, async (_pg, served) => {
    const { v1, v03 } = await cards(served);
    for (const card of [v1, v03]) {
      assert.equal(card.signatures.length, 1);
      assert.deepEqual(jose.decodeProtectedHeader(card.signatures[0]), {
        alg: "ES256",
        kid: thumbprint,
        jku: `${served.url}${JWKS}`,
        typ: "JOSE",
      });
      assert.deepEqual(await verify(card), { status: "verified", keyId: thumbprint });
    }
    assert.equal(v03.protocolVersion, "0.3.0");
    assert.equal(v1.protocolVersion, undefined);

    // Each signature covers its own form only.
    await assert.rejects(verify({ ...v03, signatures: v1.signatures }), ObservalError);
    await assert.rejects(verify({ ...v1, signatures: v03.signatures }), ObservalError);

    // Fetched again, the card is the same bytes: a registry pins the whole card's digest.
    assert.deepEqual(await cards(served), { v1, v03 });

    const jwks = await getJson(`${served.url}${JWKS}`);
    assert.equal(jwks.keys.length, 1);
    const [key] = jwks.keys;
    assert.deepEqual(Object.keys(key).sort(), ["alg", "crv", "kid", "kty", "use", "x", "y"]);
    assert.equal(key.d, undefined);
    assert.deepEqual(
      { ...key, kid: undefined, alg: undefined, use: undefined },
      { ...await jose.exportJWK(publicKey), kid: undefined, alg: undefined, use: undefined },
    );
  }, ["--signing-key", pem]);
});

Deno.test("a2a serve --signing-key: a card with one field changed is refused by the verifier", async () => {
  using keys = keyFolder();
  const { privateKey } = await jose.generateKeyPair("EdDSA", { extractable: true });
  const jwk = { ...await jose.exportJWK(privateKey), kid: "serve-ed" };
  const file = keys.write("card.jwk", JSON.stringify(jwk));
  await withServed(undefined, async (_pg, served) => {
    const { v1, v03 } = await cards(served);
    assert.equal(jose.decodeProtectedHeader(v1.signatures[0]).alg, "EdDSA");
    for (const card of [v1, v03]) {
      assert.deepEqual(await verify(card), { status: "verified", keyId: "serve-ed" });
      const changed = { ...card, description: `${card.description} (and more)` };
      await assert.rejects(verify(changed), (err: ObservalError) => {
        assert.equal(err.code, "INVALID_AGENT_CARD");
        assert.match(err.message, /signature by key "serve-ed" does not match the card/);
        return true;
      });
    }
  }, ["--signing-key", file]);
});

Deno.test("a2a serve --signing-key: a registry importing the served card reports the signature verified with the key id", async () => {
  using keys = keyFolder();
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: "serve-rsa", alg: "PS256" };
  const file = keys.write("rsa.jwk", JSON.stringify(jwk));
  await withServed(undefined, async (_pg, served) => {
    const home = mkdtempSync(join(tmpdir(), "observal-caller-"));
    try {
      const env = { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" };
      const set = await cli(
        ["registry", "settings", "set", "discovery.a2a_private_hosts", "127.0.0.1"],
        { env, cwd: home },
      );
      assert.equal(set.code, 0, set.stderr);
      const submit = await cli(
        ["registry", "a2a", "submit", `${served.url}${CARD}`, "--json"],
        { env, cwd: home },
      );
      assert.equal(submit.code, 0, submit.stderr);
      const doc = JSON.parse(submit.stdout);
      assert.deepEqual(doc["obs:signature"], { status: "verified", keyId: "serve-rsa" });
      // Submitted again, the card has the same digest: its signature is not made anew.
      const again = await cli(
        ["registry", "a2a", "submit", `${served.url}${CARD}`, "--json"],
        { env, cwd: home },
      );
      assert.equal(again.code, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout)["obs:artifactDigest"], doc["obs:artifactDigest"]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    const { v03 } = await cards(served);
    assert.equal(jose.decodeProtectedHeader(v03.signatures[0]).alg, "PS256");
  }, ["--signing-key", file]);
});

Deno.test("a2a serve --signing-key: key files others can read, public keys, garbage and unusable keys are refused", async () => {
  using keys = keyFolder();
  const ec = await jose.generateKeyPair("ES256", { extractable: true });
  const pkcs8 = await jose.exportPKCS8(ec.privateKey);
  const k1 = generateKeyPairSync("ec", { namedCurve: "secp256k1" }).privateKey;
  const rsa1024 = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey;
  const cases: Array<[string, string, RegExp, RegExp]> = [
    [
      keys.write("shared.pem", pkcs8, 0o644),
      "world-readable",
      /can be read by others/,
      /chmod 600/,
    ],
    [
      keys.write("public.jwk", JSON.stringify(await jose.exportJWK(ec.publicKey))),
      "a public JWK",
      /holds a public key only/,
      /private key/,
    ],
    [
      keys.write("public.pem", await jose.exportSPKI(ec.publicKey)),
      "a public PEM",
      /holds a public key only/,
      /private key/,
    ],
    [
      keys.write(
        "encrypted.pem",
        ec256().export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "pw" })
          .toString(),
      ),
      "an encrypted PEM",
      /is encrypted with a passphrase/,
      /openssl pkey/,
    ],
    [keys.write("garbage", "not a key\n"), "garbage", /neither a private JWK/, /openssl genpkey/],
    [
      keys.write("broken.jwk", '{"kty":"EC","crv":"P-256","d":"xx"'),
      "broken JSON",
      /neither a private JWK/,
      /openssl genpkey/,
    ],
    [
      keys.write("hmac.jwk", JSON.stringify({ kty: "oct", k: "c2VjcmV0c2VjcmV0c2VjcmV0" })),
      "an HMAC secret",
      /a shared secret \(HMAC\), which a card signature may not use/,
      /openssl genpkey/,
    ],
    [
      keys.write("k1.pem", k1.export({ type: "pkcs8", format: "pem" }) as string),
      "secp256k1",
      /an EC key on curve secp256k1, which a card signature may not use/,
      /openssl genpkey/,
    ],
    [
      keys.write("small.pem", rsa1024.export({ type: "pkcs8", format: "pem" }) as string),
      "RSA-1024",
      /an RSA key of 1024 bits/,
      /RSA of 2048\+ bits/,
    ],
    [
      keys.write(
        "wrong-alg.jwk",
        JSON.stringify({ ...await jose.exportJWK(ec.privateKey), alg: "RS256" }),
      ),
      "an EC JWK naming RS256",
      /a key of type ec for algorithm "RS256"/,
      /openssl genpkey/,
    ],
    [
      join(keys.write("x", ""), "..", "missing.pem"),
      "a missing file",
      /Cannot read/,
      /Pass the file/,
    ],
  ];
  const home = mkdtempSync(join(tmpdir(), "observal-signing-"));
  try {
    const env = { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" };
    for (const [file, what, message, remediation] of cases) {
      const r = await cli(["a2a", "serve", "--agent", "fixer", "--signing-key", file], { env });
      assert.equal(r.code, 2, `${what}: ${r.stderr}`);
      assert.match(r.stderr, message, what);
      assert.match(r.stderr, remediation, what);
      assert.ok(r.stderr.includes(file), what);
      assert.equal(r.stdout, "", what);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
