/**
 * Joining bytes read in chunks.
 * @module
 */

/**
 * The chunks as one array; a single chunk is returned as it is, not copied.
 *
 * @param chunks the pieces, in order
 * @param size their total length, when the caller has counted it already
 */
export function concatBytes(chunks: readonly Uint8Array[], size?: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size ?? chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
