/**
 * Import puts every URL a card will be called at (its JSON-RPC interface, the other
 * interfaces, the signing-key set) through the card-URL rules: https unless allowlisted,
 * no user info, no metadata host, no private IP literal. Cards are served by a real HTTP
 * server on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { startRegistry, type TestRegistry } from "../support/registry.ts";
import { startCardHost } from "./_card_host.ts";

function v1Card(endpoint: string, extra: Record<string, unknown> = {}) {
  return {
    name: "Gate Test",
    version: "1.0.0",
    supportedInterfaces: [{ url: endpoint, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    ...extra,
  };
}

async function submit(reg: TestRegistry, key: string, cardUrl: string) {
  const res = await fetch(`${reg.url}/api/v1/ard/imports/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ cardUrl }),
  });
  return { status: res.status, body: await res.json() };
}

const refusedEndpoints: Array<[endpoint: string, named: string, why: RegExp]> = [
  ["https://10.0.0.5/a2a", "https://10.0.0.5/a2a", /private, loopback or reserved address/],
  ["https://169.254.169.254/latest", "https://169.254.169.254/latest", /cloud metadata/],
  ["https://[::1]/a2a", "https://[::1]/a2a", /private, loopback or reserved address/],
  ["https://user:pw@x.example/a2a", "https://x.example/a2a", /user name or password/],
  ["https://metadata.google.internal/", "https://metadata.google.internal/", /cloud metadata/],
  ["http://localhost/a2a", "http://localhost/a2a", /local-only host name/],
  ["http://agents.example.com/a2a", "http://agents.example.com/a2a", /plain http/],
];

Deno.test("import refuses with 422 a card whose interface URL fails the card-URL rules", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const host = await startCardHost();
  try {
    const key = reg.user("gail").key;
    for (const [i, [endpoint, named, why]] of refusedEndpoints.entries()) {
      host.route(`/card-${i}.json`, v1Card(endpoint));
      const { status, body } = await submit(reg, key, `${host.origin}/card-${i}.json`);
      assert.equal(status, 422, `${endpoint}: ${JSON.stringify(body)}`);
      assert.equal(body.errorCode, "INVALID_AGENT_CARD", endpoint);
      assert.ok(body.message.includes(named), `${endpoint}: ${body.message}`);
      assert.match(body.message, /JSONRPC interface/, endpoint);
      assert.match(body.message, why, endpoint);
      assert.ok(!JSON.stringify(body).includes("pw@"), "credentials are not echoed");
    }
    const count = reg.state.db.prepare("SELECT COUNT(*) AS n FROM entries").get() as { n: number };
    assert.equal(count.n, 0, "no refused card was stored");
  } finally {
    await host.close();
    await reg.close();
  }
});

Deno.test("import refuses a loopback endpoint when only the card's host is allowlisted", async () => {
  // The card is fetched from `localhost` (allowlisted); its endpoint names 127.0.0.1,
  // which is not, even though both reach this machine.
  const reg = await startRegistry({ privateHosts: ["localhost"] });
  const host = await startCardHost();
  try {
    const key = reg.user("lou").key;
    const endpoint = `${host.origin}/a2a/jsonrpc`;
    host.route("/card.json", v1Card(endpoint));
    const { status, body } = await submit(reg, key, `http://localhost:${host.port}/card.json`);
    assert.equal(host.requests.length, 1, "the card itself was fetched from the allowlisted host");
    assert.equal(status, 422, JSON.stringify(body));
    assert.equal(body.errorCode, "INVALID_AGENT_CARD");
    assert.ok(body.message.includes(endpoint), body.message);
    assert.match(body.remediation, /discovery\.a2a_private_hosts/);

    // Allowlisting the endpoint's host too lets the same card in.
    reg.setting("discovery.a2a_private_hosts", "localhost,127.0.0.1");
    const again = await submit(reg, key, `http://localhost:${host.port}/card.json`);
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal(again.body["obs:a2aInterface"].url, endpoint);
  } finally {
    await host.close();
    await reg.close();
  }
});

Deno.test("import checks every interface of a card, not only the pinned one", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const host = await startCardHost();
  try {
    const key = reg.user("ike").key;
    host.route("/v03.json", {
      name: "Gate Test Legacy",
      url: "https://agents.example.com/a2a",
      additionalInterfaces: [{ url: "https://192.168.1.20/grpc", transport: "GRPC" }],
    });
    const { status, body } = await submit(reg, key, `${host.origin}/v03.json`);
    assert.equal(status, 422, JSON.stringify(body));
    assert.ok(body.message.includes("https://192.168.1.20/grpc"), body.message);
    assert.match(body.message, /GRPC interface/);
  } finally {
    await host.close();
    await reg.close();
  }
});

Deno.test("import refuses a signed card whose jku names a private address, without fetching it", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const host = await startCardHost();
  try {
    const key = reg.user("joy").key;
    const header = { alg: "ES256", kid: "k1", jku: "https://10.0.0.5/keys.json" };
    const signature = {
      protected: Buffer.from(JSON.stringify(header)).toString("base64url"),
      signature: "AAAA",
    };
    host.route(
      "/signed.json",
      v1Card("https://agents.example.com/a2a", { signatures: [signature] }),
    );
    const { status, body } = await submit(reg, key, `${host.origin}/signed.json`);
    assert.equal(status, 422, JSON.stringify(body));
    assert.equal(body.errorCode, "INVALID_AGENT_CARD");
    assert.ok(body.message.includes("https://10.0.0.5/keys.json"), body.message);
    assert.match(body.message, /private, loopback or reserved address/);
  } finally {
    await host.close();
    await reg.close();
  }
});

Deno.test("import accepts a card whose endpoint is a public https URL, unresolved", async () => {
  const resolved: string[] = [];
  const reg = await startRegistry({
    privateHosts: ["127.0.0.1"],
    resolve: (name) => {
      resolved.push(name);
      return Promise.resolve(["93.184.216.34"]);
    },
  });
  const host = await startCardHost();
  try {
    const key = reg.user("pia").key;
    host.route("/card.json", v1Card("https://agents.example.com/a2a"));
    const { status, body } = await submit(reg, key, `${host.origin}/card.json`);
    assert.equal(status, 201, JSON.stringify(body));
    assert.equal(body["obs:a2aInterface"].url, "https://agents.example.com/a2a");
    assert.deepEqual(resolved, [], "endpoint names are resolved by the caller, not at import");
  } finally {
    await host.close();
    await reg.close();
  }
});

Deno.test("an entry says whether its endpoint's host is allowlisted as private, as the setting is now", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const host = await startCardHost();
  try {
    const { key } = reg.user("pia");
    host.route("/card.json", v1Card(`${host.origin}/a2a`));
    const { status, body } = await submit(reg, key, `${host.origin}/card.json`);
    assert.equal(status, 201, JSON.stringify(body));
    const entry = async () => {
      const res = await fetch(
        `${reg.url}/api/v1/ard/entries/${encodeURIComponent(body.identifier)}`,
        {
          headers: { authorization: `Bearer ${key}` },
        },
      );
      return await res.json();
    };
    // A plain user may not read the settings: the entry carries the decision for its host.
    assert.equal((await entry())["obs:a2aPrivateHost"], true);
    reg.setting("discovery.a2a_private_hosts", "");
    assert.equal((await entry())["obs:a2aPrivateHost"], false);
  } finally {
    await host.close();
    await reg.close();
  }
});
