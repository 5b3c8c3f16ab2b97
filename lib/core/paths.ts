/**
 * `join`, `resolve`, `dirname` and `isAbsolute` as node:path has them, for the modules every
 * command loads. Under Deno node:path loads part of the runtime's Node layer (7–10 ms a command);
 * on POSIX systems these rules are short, so they are here. On Windows, with its drive
 * letters and UNC paths, node:path itself is used.
 * @module
 */
import type * as NodePath from "node:path";
import { hostCwd, hostPlatform } from "./host.ts";

/** node:path for Windows, loaded on first use there. */
function win32(): typeof NodePath {
  return globalThis.process.getBuiltinModule("node:path");
}

const WINDOWS = hostPlatform() === "win32";

/** The path's segments with `.` and empty ones dropped and each `..` applied. */
function normalizeSegments(path: string, aboveRoot: boolean): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") out.push(segment);
    else if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (aboveRoot) out.push("..");
  }
  return out.join("/");
}

/** Joins the parts with the separator and normalises the result (`.`, `..`, repeated `/`). */
export function join(...parts: string[]): string {
  if (WINDOWS) return win32().join(...parts);
  const path = parts.filter((p) => p !== "").join("/");
  if (path === "") return ".";
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  const body = normalizeSegments(path, !absolute);
  if (body === "") return absolute ? "/" : trailing ? "./" : ".";
  return `${absolute ? "/" : ""}${body}${trailing ? "/" : ""}`;
}

/** The absolute path the parts lead to, from the last absolute one (else the working folder). */
export function resolve(...parts: string[]): string {
  if (WINDOWS) return win32().resolve(...parts);
  let path = "";
  for (let i = parts.length - 1; i >= -1 && !path.startsWith("/"); i--) {
    const part = i >= 0 ? parts[i] : hostCwd();
    if (part !== "") path = path === "" ? part : `${part}/${path}`;
  }
  const absolute = path.startsWith("/");
  const body = normalizeSegments(path, !absolute);
  return absolute ? `/${body}` : body || ".";
}

/** Whether the path is absolute (on POSIX: starts with `/`). */
export function isAbsolute(path: string): boolean {
  return WINDOWS ? win32().isAbsolute(path) : path.startsWith("/");
}

/** The folder part of a path (`.` when there is none). */
export function dirname(path: string): string {
  if (WINDOWS) return win32().dirname(path);
  if (path === "") return ".";
  // Trailing slashes belong to the last segment; the first character is never cut.
  const trimmed = path.replace(/(?<=.)\/+$/, "");
  const slash = trimmed.lastIndexOf("/");
  if (slash === -1) return ".";
  if (slash === 0) return "/";
  // Only the slash before the last segment goes; node:path keeps a leading `//` whole.
  return slash === 1 && trimmed.startsWith("/") ? "//" : trimmed.slice(0, slash);
}

/**
 * Whether `path` is `dir` or lies below it, comparing the strings as given (POSIX paths,
 * already resolved: no `..`, no links to follow).
 */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}
