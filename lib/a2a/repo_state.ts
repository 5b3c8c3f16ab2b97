/**
 * The repository-state extension of A2A: a caller sends its repository (a git bundle of
 * HEAD and its uncommitted work as a patch) with the brief, so a served Agent works on
 * exactly the caller's tree and its `changes.patch` applies there.
 *
 * An agent declares it in its card (`capabilities.extensions`, with the params below); a
 * caller activates it with the `A2A-Extensions` header (v0.3: `X-A2A-Extensions`), lists
 * it in the message's `extensions`, and sends: the bundle as a file part of media type
 * `application/x-git-bundle`, the changes as one of `text/x-diff`, and under the URI in
 * the message's metadata the HEAD the bundle holds and the caller's folder.
 * @module
 */
import { z } from "zod";
import type { Part } from "./task.ts";

/** The extension's URI. */
export const REPO_STATE_EXTENSION = "https://observal.io/ns/a2a/repo-state/v1";
/** Media type of the bundle part. */
export const BUNDLE_MEDIA_TYPE = "application/x-git-bundle";
/** Media type of the changes part. */
export const CHANGES_MEDIA_TYPE = "text/x-diff";
/** Largest state (bundle and changes together) a served Agent takes, unless it says less. */
export const MAX_REPO_STATE_BYTES = 32 * 1024 * 1024;

/** What the card declares with the extension. */
export const RepoStateParams = z.object({
  /** Most bytes of bundle and changes together the agent takes. */
  maxBytes: z.number().int().positive(),
  /**
   * The agent has a repository of its own (a clone of the caller's remote), so a bundle
   * may leave out what the caller's remote-tracking branches hold.
   */
  repository: z.boolean(),
});
export type RepoStateParams = z.infer<typeof RepoStateParams>;

/** What the message's metadata holds under the URI. */
export const RepoStateMeta = z.strictObject({
  /** The caller's HEAD (the bundle's one ref); absent on a branch with no commit. */
  head: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/).optional(),
  /** The caller's folder relative to its repository's top, `/`-separated. */
  path: z.string().max(4096),
});

/** A repository state in the shape both sides use (lib/workspace's RepoState). */
export interface WireRepoState {
  head?: string;
  bundle?: Uint8Array;
  changes?: Uint8Array;
  path: string;
}

/** The extension's params when `card` declares it (and declares them well), else undefined. */
export function declaredRepoState(card: unknown): RepoStateParams | undefined {
  const extensions = (card as { capabilities?: { extensions?: unknown } })?.capabilities
    ?.extensions;
  if (!Array.isArray(extensions)) return undefined;
  const declared = extensions.find((e) => e?.uri === REPO_STATE_EXTENSION);
  const params = RepoStateParams.safeParse(declared?.params);
  return params.success ? params.data : undefined;
}

/** The parts and metadata that carry `state` (added to the brief's text part). */
export function repoStateMessage(
  state: WireRepoState,
): { parts: Part[]; metadata: Record<string, unknown> } {
  const parts: Part[] = [];
  const file = (bytes: Uint8Array, mediaType: string, filename: string) =>
    parts.push({ raw: base64(bytes), mediaType, filename });
  if (state.bundle) file(state.bundle, BUNDLE_MEDIA_TYPE, "head.bundle");
  if (state.changes) file(state.changes, CHANGES_MEDIA_TYPE, "uncommitted.patch");
  const meta: z.infer<typeof RepoStateMeta> = { path: state.path };
  if (state.head) meta.head = state.head;
  return { parts, metadata: { [REPO_STATE_EXTENSION]: meta } };
}

/** A received message's file part: its bytes, media type and name. */
export interface ReceivedFile {
  bytes: Uint8Array;
  mediaType?: string;
  filename?: string;
}

/**
 * The state a message carries, undefined when it carries none, or the reason it is
 * refused (two bundles, a file part of another kind, metadata that does not parse).
 */
export function receivedRepoState(
  metadata: Record<string, unknown> | undefined,
  files: readonly ReceivedFile[],
): WireRepoState | { refused: string } | undefined {
  const raw = metadata?.[REPO_STATE_EXTENSION];
  if (raw === undefined) {
    return files.length > 0
      ? { refused: "file parts are taken only as the repository state (see the card)" }
      : undefined;
  }
  const meta = RepoStateMeta.safeParse(raw);
  if (!meta.success) {
    return { refused: `metadata["${REPO_STATE_EXTENSION}"] is not {head?, path}` };
  }
  const state: WireRepoState = { path: meta.data.path };
  if (meta.data.head) state.head = meta.data.head;
  for (const f of files) {
    const slot = f.mediaType === BUNDLE_MEDIA_TYPE
      ? "bundle"
      : f.mediaType === CHANGES_MEDIA_TYPE
      ? "changes"
      : undefined;
    if (!slot) return { refused: `a file part of type ${f.mediaType ?? "(none)"}` };
    if (state[slot]) return { refused: `two ${slot} parts` };
    state[slot] = f.bytes;
  }
  return state;
}

/** Base64 without node:buffer (the remote worker runs without Deno's Node layer). */
function base64(bytes: Uint8Array): string {
  // Chunks of a multiple of 3 bytes encode to pieces that join into one encoding.
  const CHUNK = 3 * 0x4000;
  const pieces: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) {
    pieces.push(btoa(String.fromCharCode(...bytes.subarray(i, i + CHUNK))));
  }
  return pieces.join("");
}
