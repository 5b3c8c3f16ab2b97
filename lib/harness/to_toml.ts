/**
 * A small TOML emitter for the shapes harness configs need: top-level keys, one table per
 * entry of a map of maps (`[mcp_servers.<name>]`), and dotted keys for maps inside a
 * table (`env.TOKEN = "…"`, as Codex writes them).
 * @module
 */

type Table = Record<string, unknown>;

function isTable(value: unknown): value is Table {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : tomlString(key);
}

/**
 * A TOML basic string. Written by hand rather than with JSON.stringify because TOML
 * cannot express a lone surrogate at all; those become U+FFFD.
 */
function tomlString(text: string): string {
  let out = '"';
  for (const ch of text.toWellFormed()) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + '"';
}

function tomlValue(value: unknown): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`Cannot write ${value} as a TOML number`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  if (isTable(value)) {
    const parts = Object.entries(value)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
    return parts.length ? `{ ${parts.join(", ")} }` : "{}";
  }
  throw new TypeError(`Cannot write a value of type ${typeof value} as TOML`);
}

function dotted(prefix: string[], value: unknown, out: string[]): void {
  if (value === undefined || value === null) return;
  if (isTable(value)) {
    // An empty map writes no line at all, as Codex's own writer does.
    for (const [k, v] of Object.entries(value)) dotted([...prefix, k], v, out);
    return;
  }
  out.push(`${prefix.map(tomlKey).join(".")} = ${tomlValue(value)}`);
}

function emit(path: string[], table: Table, out: string[]): void {
  const entries = Object.entries(table).filter(([, v]) => v !== undefined && v !== null);
  const leaves = entries.filter(([, v]) => !isTable(v));
  const maps = entries.filter(([, v]) => isTable(v));
  const root = path.length === 0;
  if (!root && leaves.length === 0) {
    // A map of maps (e.g. `mcp_servers`) has no header of its own: each entry is a table.
    for (const [k, v] of maps) emit([...path, k], v as Table, out);
    return;
  }
  if (!root) {
    if (out.length) out.push("");
    out.push(`[${path.map(tomlKey).join(".")}]`);
  }
  for (const [k, v] of leaves) out.push(`${tomlKey(k)} = ${tomlValue(v)}`);
  for (const [k, v] of maps) {
    if (root) emit([k], v as Table, out);
    else dotted([k], v, out);
  }
}

/**
 * Serialises a plain object as TOML. Top-level scalars come first; each map of maps
 * becomes one `[a.b]` table per entry; maps inside a table become dotted keys; `null`
 * and `undefined` are skipped (TOML has no null).
 *
 * @param doc the document
 * @returns TOML text ending in a newline
 *
 * @example
 * ```ts
 * toToml({ mcp_servers: { git: { command: "npx", args: ["-y", "git-mcp"] } } });
 * // [mcp_servers.git]
 * // command = "npx"
 * // args = ["-y", "git-mcp"]
 * ```
 */
export function toToml(doc: Record<string, unknown>): string {
  const out: string[] = [];
  emit([], doc, out);
  return out.length ? `${out.join("\n")}\n` : "";
}
