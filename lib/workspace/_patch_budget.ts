/**
 * Reading a patch as git writes it, file by file, so that files too large for the patch
 * cap can be left out instead of losing the whole patch. Private to lib/workspace.
 * @module
 */
import { Buffer } from "node:buffer";

// Every file section of `diff-tree -p` starts a line with this. It cannot occur inside a
// section: text lines start with " ", "+", "-", "@" or "\", and binary lines are base85,
// which has no space.
const MARK = Buffer.from("\ndiff --git ");
// Enough of a section's start to read its header and `index` line.
const HEAD_KEEP = 64 * 1024;

/** One file of the patch: its path, how much of the patch it takes, and its blob. */
export interface PatchFile {
  /** The path, relative to the copy's top, `/`-separated. */
  path: string;
  /** Bytes of the patch this file takes. */
  patchBytes: number;
  /** The blob of the file after the change (before it, for a deletion), when the patch names one. */
  blob?: string;
}

/** What {@linkcode PatchBudget.finish} found. */
export interface PatchRead {
  /** The whole patch, or undefined when it passed the cap. */
  bytes: Uint8Array | undefined;
  /** Every file in the patch, in patch order. */
  files: PatchFile[];
}

interface Section {
  head: Buffer[];
  headBytes: number;
  bytes: number;
}

/**
 * Receives a patch chunk by chunk: keeps it whole while it fits `cap`, and measures each
 * file's share either way, so the caller can choose which files to leave out.
 */
export class PatchBudget {
  readonly #cap: number;
  #carry: Buffer = Buffer.alloc(0);
  #kept: Buffer[] = [];
  #total = 0;
  #sections: Section[] = [];

  constructor(cap: number) {
    this.#cap = cap;
  }

  /** Takes the next chunk of git's output. */
  push(chunk: Uint8Array): void {
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const buf = this.#carry.length > 0 ? Buffer.concat([this.#carry, data]) : data;
    let pos = 0;
    for (let i = buf.indexOf(MARK, pos); i >= 0; i = buf.indexOf(MARK, pos)) {
      this.#append(buf.subarray(pos, i + 1)); // the newline ends the previous file
      this.#sections.push({ head: [], headBytes: 0, bytes: 0 });
      pos = i + 1;
    }
    // The tail could be the start of a mark split across chunks: hold it back.
    const keep = Math.max(pos, buf.length - (MARK.length - 1));
    this.#append(buf.subarray(pos, keep));
    this.#carry = Buffer.from(buf.subarray(keep));
  }

  /** Ends the input: the patch when it fit, and the files it holds. */
  finish(): PatchRead {
    this.#append(this.#carry);
    this.#carry = Buffer.alloc(0);
    const files: PatchFile[] = [];
    for (const section of this.#sections) {
      const head = Buffer.concat(section.head).toString("latin1");
      const path = headerPath(head.split("\n", 1)[0]);
      const blob = changedBlob(head);
      const last = files[files.length - 1];
      // A type change (file to link) is two sections for one path: one file here.
      if (last && last.path === path) {
        last.patchBytes += section.bytes;
        last.blob = blob ?? last.blob;
      } else files.push({ path, patchBytes: section.bytes, ...(blob ? { blob } : {}) });
    }
    if (this.#total > this.#cap) return { bytes: undefined, files };
    const bytes = new Uint8Array(this.#total);
    let at = 0;
    for (const part of this.#kept) {
      bytes.set(part, at);
      at += part.length;
    }
    return { bytes, files };
  }

  #append(data: Buffer): void {
    if (data.length === 0) return;
    if (this.#sections.length === 0) this.#sections.push({ head: [], headBytes: 0, bytes: 0 });
    const section = this.#sections[this.#sections.length - 1];
    section.bytes += data.length;
    if (section.headBytes < HEAD_KEEP) {
      const part = Buffer.from(data.subarray(0, HEAD_KEEP - section.headBytes));
      section.head.push(part);
      section.headBytes += part.length;
    }
    this.#total += data.length;
    if (this.#total <= this.#cap) this.#kept.push(data);
    else this.#kept = []; // past the cap: only the measurements matter now
  }
}

/**
 * The files to leave out so the rest fits `cap`: the largest go first, so that as many
 * files as possible stay in the patch.
 */
export function filesToLeaveOut(files: readonly PatchFile[], cap: number): PatchFile[] {
  const bySize = [...files].sort((a, b) => a.patchBytes - b.patchBytes);
  let used = 0;
  const out: PatchFile[] = [];
  for (const file of bySize) {
    if (used + file.patchBytes <= cap) used += file.patchBytes;
    else out.push(file);
  }
  return out.sort((a, b) => files.indexOf(a) - files.indexOf(b));
}

/**
 * The path in `diff --git a/<path> b/<path>`. Without renames both sides name the same
 * path, so an unquoted header splits in the middle; a quoted one (`core.quotePath`) is
 * read up to its closing quote.
 */
export function headerPath(line: string): string {
  const rest = line.slice("diff --git ".length);
  if (rest.startsWith('"')) {
    let end = 1;
    while (end < rest.length && rest[end] !== '"') end += rest[end] === "\\" ? 2 : 1;
    return unquote(rest.slice(1, end)).replace(/^a\//, "");
  }
  const n = (rest.length - 5) / 2;
  return rest.slice(2, 2 + n);
}

/** Reads git's C-style quoting (`\n`, `\"`, `\\`, `\303\251`) back into the name. */
export function unquote(quoted: string): string {
  const simple: Record<string, number> = {
    a: 7,
    b: 8,
    t: 9,
    n: 10,
    v: 11,
    f: 12,
    r: 13,
    '"': 34,
    "\\": 92,
  };
  const bytes: number[] = [];
  for (let i = 0; i < quoted.length; i++) {
    const c = quoted[i];
    if (c !== "\\") {
      bytes.push(c.charCodeAt(0));
      continue;
    }
    const next = quoted[i + 1] ?? "";
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(quoted.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** The blob after the change in a section's `index` line, or before it for a deletion. */
function changedBlob(head: string): string | undefined {
  const m = /^index ([0-9a-f]+)\.\.([0-9a-f]+)/m.exec(head);
  if (!m) return undefined;
  const [, before, after] = m;
  return /^0+$/.test(after) ? before : after;
}
