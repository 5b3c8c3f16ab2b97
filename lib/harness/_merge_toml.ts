/**
 * TOML config files (Codex `config.toml`): edited as text, so a hand-kept file keeps every
 * byte outside the tables we replace. Only `[mcp_servers.<name>]` tables (and their
 * sub-tables) we bring are replaced in place; new ones are appended; the result must parse
 * back to exactly the planned data or nothing is written.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { parse } from "smol-toml";
import { type Doc, isPlainObject, mergeRefused, rootKey } from "./_merge_common.ts";
import { toToml } from "./to_toml.ts";

/** TOML text for a new file. */
export function tomlText(content: Doc): string {
  return toToml(content);
}

/** One statement of a TOML document, by character offsets (`end` is past its newline). */
interface Statement {
  kind: "header" | "pair" | "trivia";
  /** The decoded key path of a header or a key/value pair. */
  path: string[];
  start: number;
  end: number;
}

/** A table: its header (or the document start for the root) up to its last pair. */
interface Block {
  path: string[];
  start: number;
  /** Past the newline of its last header or pair; trailing blank and comment lines stay out. */
  coreEnd: number;
  pairs: Statement[];
}

const BARE = /[A-Za-z0-9_-]/;

function endOfLine(text: string, i: number): number {
  const nl = text.indexOf("\n", i);
  return nl === -1 ? text.length : nl + 1;
}

function skipSpace(text: string, i: number): number {
  while (text[i] === " " || text[i] === "\t") i++;
  return i;
}

const ESCAPES: Record<string, string> = {
  b: "\b",
  t: "\t",
  n: "\n",
  f: "\f",
  r: "\r",
  e: "\x1b",
  '"': '"',
  "\\": "\\",
};

/** Reads a basic string starting at the opening quote; returns its value and the end. */
function basicString(text: string, i: number): [string, number] {
  let out = "";
  i++;
  while (i < text.length && text[i] !== '"') {
    if (text[i] === "\\") {
      const c = text[i + 1];
      const width = c === "u" ? 4 : c === "U" ? 8 : c === "x" ? 2 : 0;
      if (width) {
        out += String.fromCodePoint(parseInt(text.slice(i + 2, i + 2 + width), 16));
        i += 2 + width;
      } else {
        out += ESCAPES[c] ?? c;
        i += 2;
      }
    } else out += text[i++];
  }
  return [out, i + 1];
}

/** Reads a dotted key (`a."b.c".'d'`) and returns its parts and the offset after it. */
function keyPath(text: string, i: number): [string[], number] {
  const parts: string[] = [];
  for (;;) {
    i = skipSpace(text, i);
    if (text[i] === '"') {
      const [value, next] = basicString(text, i);
      parts.push(value);
      i = next;
    } else if (text[i] === "'") {
      const close = text.indexOf("'", i + 1);
      parts.push(text.slice(i + 1, close));
      i = close + 1;
    } else {
      const start = i;
      while (i < text.length && BARE.test(text[i])) i++;
      parts.push(text.slice(start, i));
    }
    i = skipSpace(text, i);
    if (text[i] !== ".") return [parts, i];
    i++;
  }
}

/** Skips a value (strings, nested arrays and inline tables may span lines). */
function skipValue(text: string, i: number): number {
  let depth = 0;
  while (i < text.length) {
    const c = text[i];
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
      const quote = text.slice(i, i + 3);
      i += 3;
      while (i < text.length && !text.startsWith(quote, i)) {
        i += quote[0] === '"' && text[i] === "\\" ? 2 : 1;
      }
      i += 3;
      // Up to two quotes right before the delimiter belong to the string.
      while (text[i] === quote[0]) i++;
    } else if (c === '"') {
      i = basicString(text, i)[1];
    } else if (c === "'") {
      i = text.indexOf("'", i + 1) + 1;
    } else if (c === "#") {
      const nl = text.indexOf("\n", i);
      i = nl === -1 ? text.length : nl;
    } else if (c === "\n") {
      if (depth === 0) return i;
      i++;
    } else {
      if (c === "[" || c === "{") depth++;
      else if (c === "]" || c === "}") depth--;
      i++;
    }
  }
  return i;
}

/** Splits a document that already parses into statements. */
function statements(text: string): Statement[] {
  const out: Statement[] = [];
  let i = 0;
  while (i < text.length) {
    const start = i;
    i = skipSpace(text, i);
    const c = text[i];
    if (c === undefined || c === "\n" || c === "\r" || c === "#") {
      i = endOfLine(text, i);
      out.push({ kind: "trivia", path: [], start, end: i });
    } else if (c === "[") {
      const [path, next] = keyPath(text, text[i + 1] === "[" ? i + 2 : i + 1);
      out.push({ kind: "header", path, start, end: i = endOfLine(text, next) });
    } else {
      const [path, next] = keyPath(text, i);
      i = endOfLine(text, skipValue(text, next + 1));
      out.push({ kind: "pair", path, start, end: i });
    }
  }
  return out;
}

function blocks(text: string): Block[] {
  const out: Block[] = [{ path: [], start: 0, coreEnd: 0, pairs: [] }];
  for (const s of statements(text)) {
    const current = out[out.length - 1];
    if (s.kind === "header") out.push({ path: s.path, start: s.start, coreEnd: s.end, pairs: [] });
    else if (s.kind === "pair") {
      current.pairs.push(s);
      current.coreEnd = s.end;
    }
  }
  return out;
}

function startsWith(path: string[], prefix: string[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => path[i] === p);
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Deep copy of parsed TOML data (dates are immutable and kept as they are). */
function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (isPlainObject(value)) {
    const out: Doc = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, {
        value: clone(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

function parseToml(text: string, file: string, what: string): Doc {
  try {
    return parse(text) as Doc;
  } catch (err) {
    throw mergeRefused(file, `${what} (${(err as Error).message.split("\n")[0]})`);
  }
}

/**
 * Merges `incoming` into the TOML text of an existing file: each incoming table under the
 * root section replaces the same-named one where it stands, new ones are appended, other
 * top-level keys are replaced or added, and every other byte is kept.
 *
 * @returns the new text, or `existing` itself when the data would not change
 * @throws {ObservalError} FAILED_PRECONDITION when the file is not valid TOML, writes the
 *   tables we replace inline, or the edit would not read back as planned
 */
export function mergeToml(existing: string, incoming: Doc, file: string): string {
  const data = parseToml(existing, file, "it is not valid TOML");
  const root = rootKey(incoming);
  const all = blocks(existing);
  const rootPairs = all[0].pairs;
  // Lines we write follow the file's line endings; the user's lines are never touched.
  const eol = (text: string) => existing.includes("\r\n") ? text.replace(/\n/g, "\r\n") : text;
  const nl = eol("\n");
  const expected = clone(data) as Doc;
  const edits: Edit[] = [];
  const appended: string[] = [];

  /** Replaces every table at or under `path` with `text`, or appends it when none exists. */
  const replaceTables = (path: string[], text: string) => {
    // A key/value line above the table's own header (`git = {...}` under [mcp_servers], or
    // `mcp_servers = {...}` at the top) defines it inline: no table edit can replace that.
    const inline = all.some((b) =>
      b.path.length < path.length && b.pairs.some((p) => {
        const full = [...b.path, ...p.path];
        return startsWith(full, path) || startsWith(path, full);
      })
    );
    if (inline) {
      throw mergeRefused(
        file,
        `[${path.join(".")}] is written inline, so it cannot be replaced safely; write it as a [${
          path.join(".")
        }] table`,
      );
    }
    const matching = all.slice(1).filter((b) => startsWith(b.path, path));
    if (matching.length === 0) {
      if (text) appended.push(eol(text));
      return;
    }
    matching.forEach((b, n) => {
      const old = existing.slice(b.start, b.coreEnd);
      const body = old.endsWith("\n") ? text : text.replace(/\n$/, "");
      edits.push({ start: b.start, end: b.coreEnd, text: n === 0 ? eol(body) : "" });
    });
  };

  for (const [key, value] of Object.entries(incoming)) {
    if (value === null || value === undefined) continue;
    if (key === root) {
      if (Object.keys(value as Doc).length === 0) continue;
      if (key in data && !isPlainObject(data[key])) {
        throw mergeRefused(file, `its "${key}" entry is not a table`);
      }
      const section = (isPlainObject(expected[key]) ? expected[key] : {}) as Doc;
      const written = (parse(toToml({ [key]: value })) as Doc)[key] as Doc | undefined;
      for (const [name, entry] of Object.entries(value as Doc)) {
        replaceTables([key, name], toToml({ [key]: { [name]: entry } }));
        if (written && name in written) section[name] = written[name];
        else delete section[name];
      }
      expected[key] = section;
    } else if (isPlainObject(value)) {
      replaceTables([key], toToml({ [key]: value }));
      const written = (parse(toToml({ [key]: value })) as Doc)[key];
      if (written === undefined) delete expected[key];
      else expected[key] = written;
    } else {
      const line = toToml({ [key]: value });
      const pair = rootPairs.find((p) => p.path.length === 1 && p.path[0] === key);
      if (pair) edits.push({ start: pair.start, end: pair.end, text: eol(line) });
      else {
        const at = rootPairs.length ? rootPairs[rootPairs.length - 1].end : 0;
        const gap = at > 0 && existing[at - 1] !== "\n" ? nl : "";
        edits.push({ start: at, end: at, text: gap + eol(line) });
      }
      expected[key] = (parse(line) as Doc)[key];
    }
  }
  if (isDeepStrictEqual(clone(expected), clone(data))) return existing;

  let text = existing;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  }
  if (appended.length) {
    if (text !== "" && !text.endsWith("\n")) text += nl;
    if (text.trim() !== "") text += nl;
    text += appended.join(nl);
  }
  const reread = parseToml(text, file, "the edited file would not be valid TOML");
  // smol-toml builds prototype-less tables; compare data, not prototypes.
  if (!isDeepStrictEqual(clone(reread), clone(expected))) {
    throw mergeRefused(file, "the edit would not read back as planned");
  }
  return text;
}
