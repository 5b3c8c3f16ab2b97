/**
 * POST /api/v1/ard/imports/a2a: a card URL that answers with something that cannot be a
 * card is the card's fault (422 INVALID_AGENT_CARD); a host that cannot be reached keeps
 * its network code (502). Cards are served by a real HTTP server on 127.0.0.1, which is
 * allowlisted.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startRegistry } from "../support/registry.ts";
import { startCardHost } from "./_card_host.ts";

const CARD = { name: "Fetch Test", url: "https://agents.example.com/a2a" };
const big = (bytes: number) => JSON.stringify({ ...CARD, description: "x".repeat(bytes) });

async function importStatus(url: string, key: string, cardUrl: string) {
  const res = await fetch(`${url}/api/v1/ard/imports/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ cardUrl }),
  });
  return { status: res.status, body: await res.json() };
}

Deno.test("import answers 422 INVALID_AGENT_CARD when the card URL serves no usable card", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const host = await startCardHost();
  try {
    const key = reg.user("ivy").key;
    host.route("/ok.json", CARD);
    host.route("/moved.json", { status: 302, headers: { location: "/ok.json" } });
    const declared = big(300_000);
    host.route("/big.json", {
      headers: { "content-type": "application/json", "content-length": String(declared.length) },
      body: declared,
    });
    host.route("/trickled.json", {
      headers: { "content-type": "application/json" },
      chunks: Array.from({ length: 40 }, () => new TextEncoder().encode(" ".repeat(8192))),
    });
    host.route("/page.html", { headers: { "content-type": "text/html" }, body: "<html></html>" });
    host.route("/latin1.json", { body: new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x7d]) });
    host.route("/list.json", { body: "[1, 2, 3]" });
    host.route("/gone.json", { status: 404, body: "no" });

    const cases: Array<[path: string, message: RegExp]> = [
      ["/moved.json", /redirects \(HTTP 302\)/],
      ["/big.json", /larger than 256 KiB/],
      ["/trickled.json", /larger than 256 KiB/],
      ["/page.html", /not valid JSON/],
      ["/latin1.json", /not valid UTF-8/],
      ["/list.json", /not a JSON object/],
      ["/gone.json", /HTTP 404/],
    ];
    for (const [path, message] of cases) {
      const { status, body } = await importStatus(reg.url, key, `${host.origin}${path}`);
      assert.equal(status, 422, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.errorCode, "INVALID_AGENT_CARD", path);
      assert.match(body.message, message, path);
    }
    const redirect = await importStatus(reg.url, key, `${host.origin}/moved.json`);
    assert.match(redirect.body.remediation, new RegExp(`${host.origin}/ok\\.json`));
    assert.equal(
      host.requests.filter((p) => p === "/ok.json").length,
      0,
      "the redirect was not followed",
    );
    const count = reg.state.db.prepare("SELECT COUNT(*) AS n FROM entries").get() as { n: number };
    assert.equal(count.n, 0, "nothing was stored");

    // The same host serving a real card imports fine.
    assert.equal((await importStatus(reg.url, key, `${host.origin}/ok.json`)).status, 201);
  } finally {
    await host.close();
    await reg.close();
  }
});

Deno.test("import keeps 502 NETWORK when the card host fails or cannot be reached", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const host = await startCardHost();
  // A port that was free a moment ago: nothing listens there any more.
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  try {
    const key = reg.user("ned").key;
    host.route("/down.json", { status: 503, body: "maintenance" });
    for (
      const cardUrl of [`${host.origin}/down.json`, `http://127.0.0.1:${closedPort}/card.json`]
    ) {
      const { status, body } = await importStatus(reg.url, key, cardUrl);
      assert.equal(status, 502, `${cardUrl}: ${JSON.stringify(body)}`);
      assert.equal(body.errorCode, "NETWORK", cardUrl);
    }
  } finally {
    await host.close();
    await reg.close();
  }
});
