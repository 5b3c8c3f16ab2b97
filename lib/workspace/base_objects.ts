/**
 * The objects a three-way apply of a task's patch needs that only its copy had: the
 * preimages of files the caller had changed but not committed when the task began. They
 * are packed next to the patch when it is written (the copy is removed after), and added
 * to the caller's repository only when an apply with `--3way` asks for them.
 * @module
 */
import { ObservalError } from "../core/mod.ts";
import { gitInCopy } from "./_copy.ts";
import { GIT_TIMEOUT_MS, gitEnv, runGit } from "./_git.ts";
import type { GitWorkspace } from "./types.ts";

/** The pack's file name, next to the task's `changes.patch`. */
export const BASE_PACK_FILE = "changes.base.pack";

/** Largest pack kept; past it `--3way` is not offered for such files. */
export const MAX_BASE_PACK_BYTES = 64 * 1024 * 1024;

/** A pack with no object: its header and checksum. */
const EMPTY_PACK_BYTES = 32;

/** The preimage object ids a patch names (its `index` lines), without the null id. */
export function preimageIds(patch: string): string[] {
  const ids = new Set<string>();
  for (const m of patch.matchAll(/^index ([0-9a-f]{40,64})\.\.[0-9a-f]+/gm)) {
    if (!/^0+$/.test(m[1])) ids.add(m[1]);
  }
  return [...ids];
}

/**
 * A pack of the preimages of `patch` (what `workspaceChanges()` gave for `ws`) that
 * exist only in the copy (objects the copy borrows from the caller's repository are left
 * out), or undefined when there are none, or when they pass
 * {@linkcode MAX_BASE_PACK_BYTES}.
 */
export async function baseObjects(
  ws: GitWorkspace,
  patch: string,
  signal?: AbortSignal,
): Promise<Uint8Array | undefined> {
  // The preimages are base-tree blobs outside the setup paths, so the start tree's; when
  // that is HEAD's tree, the caller has them all.
  if (ws.headTree !== undefined && ws.startTree === ws.headTree) return undefined;
  const ids = preimageIds(patch);
  if (ids.length === 0) return undefined;
  try {
    const packed = await gitInCopy(ws, ["pack-objects", "--stdout", "--local", "-q"], {
      input: ids.map((id) => `${id}\n`).join(""),
      maxOutputBytes: MAX_BASE_PACK_BYTES,
      signal,
    });
    return packed.stdout.byteLength > EMPTY_PACK_BYTES ? packed.stdout : undefined;
  } catch (err) {
    // Only `--3way` needs them; a patch without them is still whole.
    if (err instanceof ObservalError) return undefined;
    throw err;
  }
}

/** Adds the objects of `pack` to the repository at `top` (for a three-way apply). */
export async function addBaseObjects(
  top: string,
  pack: Uint8Array,
  options: { env: Readonly<Record<string, string | undefined>> },
): Promise<void> {
  await runGit(["unpack-objects", "-q"], {
    cwd: top,
    settings: { env: gitEnv(options.env), timeoutMs: GIT_TIMEOUT_MS },
    config: ["transfer.fsckObjects=true", "unpack.fsckObjects=true"],
    input: pack,
  });
}
