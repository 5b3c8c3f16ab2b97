import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { utf8Length } from "../../lib/core/mod.ts";

Deno.test("utf8Length() counts UTF-8 bytes as Buffer.byteLength does, lone surrogates included", () => {
  const samples = ["", "plain ascii", "é", "日本語", "😀", "a😀b", "\ud800", "\udc00x", "x\ud83d"];
  // Random strings over every kind of UTF-16 unit: ASCII, 2- and 3-byte, surrogates.
  const units = [
    0x41,
    0x7f,
    0x80,
    0x7ff,
    0x800,
    0xd7ff,
    0xd83d,
    0xde00,
    0xdbff,
    0xdfff,
    0xe000,
    0xffff,
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % units.length;
  for (let i = 0; i < 500; i++) {
    samples.push(String.fromCharCode(...Array.from({ length: i % 17 }, () => units[next()])));
  }
  for (const s of samples) {
    assert.equal(utf8Length(s), Buffer.byteLength(s), JSON.stringify(s));
  }
});
