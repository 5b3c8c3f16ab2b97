/**
 * The layout rules of lib/ that no type checker enforces: a module past 400 lines says why
 * in its first comment, and the host seams are reached through core's doors.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const LIB = fileURLToPath(new URL("../lib/", import.meta.url));

function modules(dir = LIB): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  );
}

Deno.test("a module past 400 lines says why in its first comment", () => {
  const unexplained = modules().flatMap((path) => {
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines <= 400) return [];
    const first = text.slice(0, text.indexOf("*/") + 2);
    return /past 400 lines/.test(first) ? [] : [`${relative(LIB, path)} (${lines} lines)`];
  });
  assert.deepEqual(unexplained, []);
});

Deno.test("outside lib/core, the host seams are imported through core's doors", () => {
  const seam = /from "[./]*core\/(host|paths)\.ts"/;
  const reaching = modules().filter((path) =>
    !relative(LIB, path).startsWith("core/") && seam.test(readFileSync(path, "utf8"))
  ).map((path) => relative(LIB, path));
  assert.deepEqual(reaching, []);
});
