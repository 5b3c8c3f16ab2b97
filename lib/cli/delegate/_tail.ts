/** The end of a log file, read backwards in chunks: a huge log is never loaded whole. */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { Buffer } from "node:buffer";

/** Most bytes read from the end of one log, whatever `lines` asks for. */
export const MAX_TAIL_BYTES = 256 * 1024;
const CHUNK_BYTES = 64 * 1024;

/** The end of a file. */
export interface Tail {
  /** Up to `lines` last lines, without the final newline. */
  text: string;
  /** How many lines `text` holds. */
  lines: number;
  /** The file's size in bytes. */
  bytes: number;
  /** True when `text` starts at the start of the file. */
  whole: boolean;
  /** True when the byte cap cut the first line shown (it starts with `…`). */
  cut: boolean;
}

/**
 * The last `lines` lines of a file, reading at most {@linkcode MAX_TAIL_BYTES} from its end.
 *
 * @param path the file
 * @param lines how many lines at most
 * @returns the lines, and whether they are the whole file
 */
export function readTail(path: string, lines: number): Tail {
  const fd = openSync(path, "r");
  try {
    const bytes = fstatSync(fd).size;
    const chunks: Buffer[] = [];
    let start = bytes;
    let newlines = 0;
    // A trailing newline ends the last line; it does not start another one.
    let trailing = 0;
    while (start > 0 && bytes - start < MAX_TAIL_BYTES) {
      const size = Math.min(CHUNK_BYTES, start, MAX_TAIL_BYTES - (bytes - start));
      const chunk = Buffer.alloc(size);
      readSync(fd, chunk, 0, size, start - size);
      start -= size;
      chunks.unshift(chunk);
      if (start + size === bytes && chunk[size - 1] === 0x0a) trailing = 1;
      for (const b of chunk) if (b === 0x0a) newlines++;
      if (newlines - trailing >= lines) break;
    }
    let text = Buffer.concat(chunks).toString("utf8");
    if (trailing) text = text.slice(0, -1);
    const all = text === "" ? [] : text.split("\n");
    const kept = all.slice(-lines);
    const whole = start === 0 && kept.length === all.length;
    // Read up to the cap without reaching a line's start: that line is shown cut.
    const cut = !whole && kept.length === all.length;
    // (A cut may split a character: its stray bytes decode as U+FFFD, and go.)
    if (cut && kept.length > 0) kept[0] = `…${kept[0].replace(/^\ufffd+/, "")}`;
    return { text: kept.join("\n"), lines: kept.length, bytes, whole, cut };
  } finally {
    closeSync(fd);
  }
}
