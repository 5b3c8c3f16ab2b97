import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { canonicalJson, cardDigest } from "../../lib/a2a/mod.ts";

Deno.test("canonicalJson() sorts keys recursively and drops whitespace", () => {
  const text = canonicalJson({ b: [3, { z: 1, a: null }], a: "x", c: { y: true, x: false } });
  assert.equal(text, '{"a":"x","b":[3,{"a":null,"z":1}],"c":{"x":false,"y":true}}');
});

Deno.test("canonicalJson() keeps non-ASCII raw and escapes as JSON.stringify does", () => {
  assert.equal(canonicalJson({ name: 'Café \u2028 "q" \n' }), '{"name":"Café \u2028 \\"q\\" \\n"}');
});

Deno.test("canonicalJson() orders keys by UTF-16 code units (RFC 8785)", () => {
  // The RFC 8785 §3.2.3 sorting example; an emoji (surrogate pair) sorts before U+FB33.
  const keys = ["\u20ac", "\r", "\ud83d\ude00", "1", "\u0080", "\u00f6", "\ufb33"];
  const obj = Object.fromEntries(keys.map((k) => [k, 0]));
  const sorted = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"];
  assert.equal(canonicalJson(obj), `{${sorted.map((k) => `${JSON.stringify(k)}:0`).join(",")}}`);
});

Deno.test("canonicalJson() writes numbers as ECMAScript does", () => {
  assert.equal(
    canonicalJson([1e21, 0.000001, 1e-7, -0, 10.5, 333333333.33333329]),
    "[1e+21,0.000001,1e-7,0,10.5,333333333.3333333]",
  );
});

Deno.test("canonicalJson() refuses values JSON cannot carry", () => {
  assert.throws(() => canonicalJson(Number.NaN), TypeError);
  assert.throws(() => canonicalJson({ f: () => 1 }), TypeError);
  assert.throws(() => canonicalJson(1n), TypeError);
});

Deno.test("cardDigest() does not depend on key order or formatting", () => {
  const a = JSON.parse('{"name":"A","skills":[{"id":"x","tags":["t"]}],"version":"1"}');
  const b = JSON.parse(
    '{ "version": "1",\n "skills": [ { "tags": ["t"], "id": "x" } ], "name": "A" }',
  );
  assert.equal(cardDigest(a), cardDigest(b));
  assert.match(cardDigest(a), /^sha256:[0-9a-f]{64}$/);
});

Deno.test("cardDigest() changes when any value changes", () => {
  const card = { name: "A", skills: [{ id: "x" }], version: "1" };
  const base = cardDigest(card);
  assert.notEqual(cardDigest({ ...card, version: "2" }), base);
  assert.notEqual(cardDigest({ ...card, skills: [{ id: "y" }] }), base);
  assert.notEqual(cardDigest({ ...card, extra: null }), base);
});

Deno.test("cardDigest() is the sha256 of the canonical UTF-8 text", () => {
  const card = { name: "Café" };
  const expected = createHash("sha256").update('{"name":"Café"}', "utf8").digest("hex");
  assert.equal(cardDigest(card), `sha256:${expected}`);
});
