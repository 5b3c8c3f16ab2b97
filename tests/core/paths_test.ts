/** lib/core/paths.ts answers as node:path does, for every path a random walk can build. */
import assert from "node:assert/strict";
import { posix } from "node:path";
import { dirname, isAbsolute, join, resolve } from "../../lib/core/paths.ts";

const PIECES = ["", ".", "..", "...", "a", "b.c", "/", "//", "a/", "/a", "./", "../", ".a"];

/** A path of up to five random pieces, from a seeded generator so failures repeat. */
function paths(count: number, seed = 1): string[] {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: count }, () => {
    let path = "";
    for (let n = Math.floor(next() * 6); n > 0; n--) {
      path += PIECES[Math.floor(next() * PIECES.length)];
    }
    return path;
  });
}

Deno.test("dirname() matches node:path on every generated path", () => {
  for (const path of [...paths(5000), "/", "//", "///a", "a//b", "a/b//", "//a//"]) {
    assert.equal(dirname(path), posix.dirname(path), JSON.stringify(path));
  }
});

Deno.test("isAbsolute() matches node:path on every generated path", () => {
  for (const path of [...paths(5000, 3), "/", "", ".", "a/b", "\\a"]) {
    assert.equal(isAbsolute(path), posix.isAbsolute(path), JSON.stringify(path));
  }
});

const JOINERS = [
  ["join", join, posix.join, 7],
  ["resolve", resolve, posix.resolve, 11],
] as const;

for (const [name, ours, theirs, seed] of JOINERS) {
  Deno.test(`${name}() matches node:path on every generated list of parts`, () => {
    const all = paths(6000, seed);
    for (let i = 0; i + 3 <= all.length; i += 3) {
      for (const parts of [all.slice(i, i + 1), all.slice(i, i + 2), all.slice(i, i + 3)]) {
        assert.equal(ours(...parts), theirs(...parts), JSON.stringify(parts));
      }
    }
    assert.equal(ours(), theirs());
  });
}
