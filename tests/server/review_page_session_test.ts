/**
 * The review page's sessions over HTTP, without a browser: the cookie's flags, and the
 * session ending when it expires, when its key is revoked, and on sign-out.
 */
import assert from "node:assert/strict";
import { startRegistry, type TestRegistry } from "../support/registry.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

async function signIn(reg: TestRegistry, key: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${reg.url}/review/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { ...FORM, ...headers },
    body: new URLSearchParams({ key }),
  });
  await res.body?.cancel();
  assert.equal(res.status, 303);
  const setCookie = res.headers.get("set-cookie") ?? "";
  const id = /^observal_review=([^;]+)/.exec(setCookie)?.[1];
  assert.ok(id, setCookie);
  return { id, setCookie };
}

async function page(reg: TestRegistry, id: string): Promise<string> {
  const res = await fetch(`${reg.url}/`, { headers: { cookie: `observal_review=${id}` } });
  return await res.text();
}

Deno.test("review page: the session cookie is HttpOnly, SameSite=Strict, Path=/, Secure over https", async () => {
  const reg = await startRegistry();
  try {
    const key = reg.user("rita", "reviewer").key;
    const plain = await signIn(reg, key);
    assert.match(plain.setCookie, /; HttpOnly/i);
    assert.match(plain.setCookie, /; SameSite=Strict/i);
    assert.match(plain.setCookie, /; Path=\//i);
    assert.doesNotMatch(plain.setCookie, /; Secure/i, "plain http cannot carry a Secure cookie");
    const proxied = await signIn(reg, key, { "x-forwarded-proto": "https" });
    assert.match(proxied.setCookie, /; Secure/i);
    // Only a hash of the session id is stored.
    const rows = reg.state.db.prepare("SELECT id_hash FROM review_sessions").all() as Array<
      { id_hash: string }
    >;
    assert.equal(rows.length, 2);
    for (const row of rows) assert.ok(row.id_hash !== plain.id && row.id_hash !== proxied.id);
  } finally {
    await reg.close();
  }
});

Deno.test("review page: a session ends when it expires, when its key is revoked, and on sign-out", async () => {
  const reg = await startRegistry();
  try {
    const rita = reg.user("rita", "reviewer");
    const expiring = await signIn(reg, rita.key);
    assert.match(await page(reg, expiring.id), /Review queue/);
    reg.state.db.prepare("UPDATE review_sessions SET expires_at = 0").run();
    assert.match(await page(reg, expiring.id), /Sign in to review/, "expired");

    const revoked = await signIn(reg, reg.user("rex", "reviewer").key);
    const leaving = await signIn(reg, rita.key);
    assert.match(await page(reg, revoked.id), /Review queue/);
    reg.state.db.prepare(
      "UPDATE api_keys SET revoked_at = '2026-01-01T00:00:00Z' WHERE user_id = " +
        "(SELECT id FROM users WHERE handle = 'rex')",
    ).run();
    assert.match(await page(reg, revoked.id), /Sign in to review/, "its key revoked");
    assert.match(await page(reg, leaving.id), /Review queue/, "another key's session lives on");

    const html = await page(reg, leaving.id);
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    assert.ok(csrf, "the sign-out form carries the token");
    const out = await fetch(`${reg.url}/review/sign-out`, {
      method: "POST",
      redirect: "manual",
      headers: { ...FORM, cookie: `observal_review=${leaving.id}` },
      body: new URLSearchParams({ csrf }),
    });
    await out.body?.cancel();
    assert.equal(out.status, 303);
    assert.match(out.headers.get("set-cookie") ?? "", /observal_review=;.*Max-Age=0/i);
    assert.match(await page(reg, leaving.id), /Sign in to review/);
  } finally {
    await reg.close();
  }
});
