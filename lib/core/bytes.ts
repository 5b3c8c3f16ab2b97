/**
 * Joining bytes read in chunks, and counting a text's bytes.
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

const ASCII_ONLY = /^\p{ASCII}*$/u;

/**
 * How many bytes `text` takes as UTF-8, as `Buffer.byteLength` counts them (a lone
 * surrogate becomes U+FFFD, three bytes), without encoding it.
 */
export function utf8Length(text: string): number {
  if (ASCII_ONLY.test(text)) return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
