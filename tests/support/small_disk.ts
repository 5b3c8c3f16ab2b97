/**
 * A small disk for tests of a full one: a tmpfs of a few MB mounted on a folder (root only,
 * Linux).
 * @module
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";

/** Whether this process may mount one. */
export const canMountDisks = Deno.build.os === "linux" && Deno.uid?.() === 0;

/**
 * Mounts a tmpfs with `options` (such as `size=4m`) on `dir`, made first.
 * @returns what unmounts it
 */
export function mountSmallDisk(dir: string, options: string): () => void {
  mkdirSync(dir, { recursive: true });
  const out = new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", options, "tmpfs", dir] })
    .outputSync();
  assert.equal(out.code, 0, `mount: ${new TextDecoder().decode(out.stderr)}`);
  return () => void new Deno.Command("umount", { args: ["-l", dir] }).outputSync();
}
