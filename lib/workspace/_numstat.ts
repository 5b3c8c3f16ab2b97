/**
 * Reading the diffstat ahead of the patch in one `diff-tree -z --numstat -p` output, and
 * summing it. Private to lib/workspace.
 * @module
 */
import { concatBytes, ObservalError } from "../core/mod.ts";
import { formatBytes } from "./_git.ts";
import type { ChangeStat } from "./types.ts";

/**
 * Splits `diff-tree -z --numstat -p` output as it comes: git prints one NUL-ended record
 * per file (`added\tdeleted\tpath`), then a lone NUL, then the patch, which goes on to
 * `onPatch` chunk by chunk. A record is never empty, so the first empty one is the
 * separator; with no file to show, git prints nothing at all.
 */
export class NumstatThenPatch {
  /** The numstat records read so far. */
  readonly records: string[] = [];
  readonly #onPatch: (chunk: Uint8Array) => void;
  readonly #cap: number;
  #pending: Uint8Array[] = [];
  #bytes = 0;
  #inPatch = false;

  /** `cap` bounds the records' bytes: past it, {@linkcode push} throws. */
  constructor(onPatch: (chunk: Uint8Array) => void, cap: number) {
    this.#onPatch = onPatch;
    this.#cap = cap;
  }

  /** Takes the next chunk of git's output. */
  push(chunk: Uint8Array): void {
    if (this.#inPatch) return this.#onPatch(chunk);
    let at = 0;
    while (at < chunk.length) {
      const nul = chunk.indexOf(0, at);
      this.#keep(chunk.subarray(at, nul < 0 ? chunk.length : nul));
      if (nul < 0) return;
      at = nul + 1;
      const record = concatBytes(this.#pending);
      this.#pending = [];
      if (record.length === 0) {
        this.#inPatch = true;
        if (at < chunk.length) this.#onPatch(chunk.subarray(at));
        return;
      }
      this.records.push(new TextDecoder().decode(record));
    }
  }

  /**
   * Ends the input.
   * @throws {ObservalError} `INTERNAL` when records came without the patch they announce.
   */
  finish(): void {
    if (!this.#inPatch && (this.records.length > 0 || this.#pending.length > 0)) {
      throw new ObservalError("INTERNAL", "git diff-tree printed a diffstat but no patch");
    }
  }

  #keep(part: Uint8Array): void {
    this.#bytes += part.length;
    if (this.#bytes > this.#cap) {
      throw new ObservalError(
        "RESOURCE_EXHAUSTED",
        `git diff-tree printed a diffstat of more than the ${formatBytes(this.#cap)} cap`,
      );
    }
    if (part.length > 0) this.#pending.push(part);
  }
}

/**
 * Sums `--numstat -z` records ("added\tdeleted\tpath"; `-` for binary files), skipping
 * the paths in `skip`.
 */
export function sumNumstat(records: readonly string[], skip: ReadonlySet<string>): ChangeStat {
  const stat = { files: 0, insertions: 0, deletions: 0 };
  for (const record of records) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(record);
    if (!m || skip.has(m[3])) continue;
    stat.files++;
    if (m[1] !== "-") stat.insertions += Number(m[1]);
    if (m[2] !== "-") stat.deletions += Number(m[2]);
  }
  return stat;
}
