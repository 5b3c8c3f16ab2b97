/**
 * The one place that knows whether we run under Deno, Node or a compiled binary.
 * Everything else is written against `node:` built-ins.
 * @module
 */
import process from "node:process";

// deno-lint-ignore no-explicit-any
const deno = (globalThis as any).Deno as
  | { version: { deno: string }; execPath(): string; mainModule?: string; build?: unknown }
  | undefined;

/** The runtime and its version, for `--version` and diagnostics. */
export function runtimeName(): string {
  return deno ? `deno ${deno.version.deno}` : `node ${process.versions.node}`;
}
