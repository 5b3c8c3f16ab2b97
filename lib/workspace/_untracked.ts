/**
 * Copying the caller's untracked files into the copy, and making folders there without
 * ever following a link out of it. Private to lib/workspace.
 * @module
 */
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { dirname, join } from "node:path";

/** What {@linkcode copyUntracked} did. */
export interface UntrackedCopy {
  /** Regular files and symlinks copied. */
  copied: number;
  /** Regular files left out because the running total would pass the cap. */
  overCap: number;
  /** Untracked nested repositories (`ls-files` lists them as `dir/`), never copied. */
  nested: number;
  /** Entries that vanished, were not files or links, or had no safe place in the copy. */
  skipped: SkippedEntry[];
}

/** An untracked entry left out of the copy, not for the size cap nor as a nested repository. */
export interface SkippedEntry {
  /** As `ls-files` listed it. */
  path: string;
  kind: "link" | "file" | "other";
  /** Why, as a clause: "its folder in the copy is a link or a file". */
  why: string;
}

/**
 * Copies `paths` (relative to `from`, as `ls-files --others` lists them) to the same
 * places under `to`. Symlinks are copied as links, never followed; permission bits are
 * kept; regular files stop being copied once their sizes would pass `maxBytes` in total.
 */
export function copyUntracked(
  from: string,
  to: string,
  paths: readonly string[],
  maxBytes: number,
  signal?: AbortSignal,
): UntrackedCopy {
  const out: UntrackedCopy = { copied: 0, overCap: 0, nested: 0, skipped: [] };
  const skip = (path: string, kind: SkippedEntry["kind"], why: string) =>
    out.skipped.push({ path, kind, why });
  const dirs = new SafeDirs(to);
  let total = 0;
  for (const rel of paths) {
    signal?.throwIfAborted();
    if (rel.endsWith("/")) {
      out.nested++;
      continue;
    }
    let st;
    try {
      st = lstatSync(join(from, rel));
    } catch {
      skip(rel, "other", "it disappeared while the copy was made");
      continue;
    }
    const kind = st.isSymbolicLink() ? "link" : st.isFile() ? "file" : "other";
    if (kind === "other") {
      skip(rel, kind, "it is neither a regular file nor a link");
      continue;
    }
    if (st.isFile() && total + st.size > maxBytes) {
      out.overCap++;
      continue;
    }
    const parent = dirname(rel);
    if (parent !== "." && !dirs.make(parent)) {
      skip(rel, kind, "its folder in the copy is a link or a file, not a folder");
      continue;
    }
    const src = join(from, rel);
    const dst = join(to, rel);
    try {
      // Whatever is there (a file from HEAD, a link) is replaced, never written through.
      rmSync(dst, { recursive: true, force: true });
      if (st.isSymbolicLink()) {
        symlinkSync(readlinkSync(src), dst);
      } else {
        copyFileSync(src, dst);
        chmodSync(dst, st.mode & 0o7777);
        total += st.size;
      }
      out.copied++;
    } catch (err) {
      skip(rel, kind, `it could not be made there (${(err as Error).message})`);
    }
  }
  return out;
}

/**
 * Makes folders under a root, refusing any path whose existing parts are not real
 * folders (a symlink there could lead out of the copy). Remembers what it checked.
 */
export class SafeDirs {
  readonly #root: string;
  readonly #known = new Set<string>();

  constructor(root: string) {
    this.#root = root;
  }

  /** Makes `rel` (`/`- or platform-separated, relative to the root); false if unsafe. */
  make(rel: string): boolean {
    const parts = rel.split(/[\\/]/).filter((p) => p !== "" && p !== ".");
    if (parts.includes("..")) return false;
    let at = "";
    for (const part of parts) {
      at = at ? join(at, part) : part;
      if (this.#known.has(at)) continue;
      const abs = join(this.#root, at);
      try {
        const st = lstatSync(abs);
        if (!st.isDirectory() || st.isSymbolicLink()) return false;
      } catch {
        try {
          mkdirSync(abs);
        } catch {
          return false;
        }
      }
      this.#known.add(at);
    }
    return true;
  }
}

/** How many left-out untracked entries get a note of their own. */
const SKIPPED_NOTES = 10;

/** A note per untracked entry left out (the first few), naming it and saying why. */
export function skippedNotes(skipped: readonly SkippedEntry[]): string[] {
  const what = { link: "link", file: "file", other: "entry" } as const;
  const notes = skipped.slice(0, SKIPPED_NOTES).map((s) =>
    `The untracked ${what[s.kind]} ${JSON.stringify(s.path)} was left out of the copy: ${s.why}`
  );
  const more = skipped.length - SKIPPED_NOTES;
  if (more > 0) {
    notes.push(`${more} more untracked entr${more === 1 ? "y was" : "ies were"} left out too`);
  }
  return notes;
}
