import { concatBytes } from "../../core/bytes.ts";

/** Thrown when one event (or one line of it) grows past the byte limit. */
export class SseTooLarge extends Error {
  constructor() {
    super("A server-sent event is larger than the limit");
    this.name = "SseTooLarge";
  }
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * The `data` of each server-sent event in `body`, multi-line data joined with `\n`.
 * Comments and the `event`, `id` and `retry` fields are ignored: A2A puts everything in
 * `data`.
 *
 * Bytes are scanned once each and kept only for the line and event being read, so a line
 * that never ends costs no more than `maxBytes` of memory and linear time: as soon as the
 * current line, or the data of the current event, passes `maxBytes`, {@linkcode SseTooLarge}
 * is thrown. Stopping early (or throwing) ends the body's iteration, which closes the
 * connection.
 */
export async function* readSseData(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let line: Uint8Array[] = [];
  let lineBytes = 0;
  let data: string[] = [];
  let dataBytes = 0;
  // A "\r" ending the previous chunk may be half of "\r\n".
  let skipLf = false;

  const endLine = (): string | undefined => {
    const text = decoder.decode(concatBytes(line, lineBytes));
    line = [];
    lineBytes = 0;
    if (text === "") {
      const event = data.length ? data.join("\n") : undefined;
      data = [];
      dataBytes = 0;
      return event;
    }
    if (text === "data" || text.startsWith("data:")) {
      const value = text.slice(5);
      const kept = value.startsWith(" ") ? value.slice(1) : value;
      dataBytes += kept.length + 1;
      if (dataBytes > maxBytes) throw new SseTooLarge();
      data.push(kept);
    }
    return undefined;
  };

  for await (const chunk of body) {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte !== LF && byte !== CR) continue;
      if (skipLf && byte === LF && i === start && lineBytes === 0) {
        skipLf = false;
        start = i + 1;
        continue;
      }
      skipLf = byte === CR;
      push(chunk.subarray(start, i));
      start = i + 1;
      const event = endLine();
      if (event !== undefined) yield event;
    }
    if (start < chunk.length) {
      skipLf = false;
      push(chunk.subarray(start));
    }
  }
  if (lineBytes > 0) endLine();
  // Be lenient with a server that closes without the final blank line.
  if (data.length) yield data.join("\n");

  function push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    lineBytes += bytes.length;
    if (lineBytes > maxBytes) throw new SseTooLarge();
    // Chunks are reused by some streams: keep a copy of what the line still needs.
    line.push(bytes.slice());
  }
}
