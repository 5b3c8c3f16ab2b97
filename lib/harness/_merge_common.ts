/**
 * What every config merge shares: the rule for which section is merged and the refusal
 * raised when an existing file cannot be merged safely.
 * @module
 */
import { ObservalError } from "../core/mod.ts";

/** A parsed config document or section. */
export type Doc = Record<string, unknown>;

/** True for a plain key/value object (not an array, not null, not a date). */
export function isPlainObject(value: unknown): value is Doc {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The section that is merged key by key: the first top-level key whose value is an object
 * (`mcpServers`, `servers`, `mcp`, `mcp_servers`, `extensions`). Keys before it, such as
 * Cursor's `"version": 1`, are not sections.
 */
export function rootKey(incoming: Doc): string | undefined {
  return Object.keys(incoming).find((k) => isPlainObject(incoming[k]));
}

/** Sets an own property, even one named `__proto__`. */
export function setOwn(target: Doc, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * The merge rule on plain data: the root section is updated entry by entry (an incoming
 * entry replaces the one with the same name, the others stay); every other incoming
 * top-level key replaces the existing one; everything else in the file stays, in order.
 */
export function mergeData(existing: Doc, incoming: Doc, file: string): Doc {
  const root = rootKey(incoming);
  const out: Doc = {};
  for (const [k, v] of Object.entries(existing)) setOwn(out, k, v);
  for (const [k, v] of Object.entries(incoming)) {
    if (k === root) {
      const section = existing[k];
      if (section !== undefined && !isPlainObject(section)) {
        throw mergeRefused(file, `its "${k}" entry is not an object`);
      }
      const merged: Doc = {};
      for (const [name, entry] of Object.entries(section ?? {})) setOwn(merged, name, entry);
      for (const [name, entry] of Object.entries(v as Doc)) setOwn(merged, name, entry);
      setOwn(out, k, merged);
    } else {
      setOwn(out, k, v);
    }
  }
  return out;
}

/** The refusal for an existing file we cannot merge into; the file is left untouched. */
export function mergeRefused(file: string, why: string): ObservalError {
  return new ObservalError(
    "FAILED_PRECONDITION",
    `Cannot merge the agent's settings into ${file}: ${why}`,
    {
      remediation:
        `Nothing was written. Fix ${file} by hand (or move it aside) and run the install again`,
      resource: file,
    },
  );
}
