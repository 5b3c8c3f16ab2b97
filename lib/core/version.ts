/**
 * The toolkit's version and how `observal --version` reports it.
 * @module
 */
import { runtimeName } from "./runtime.ts";

/** The toolkit's version; scripts/build_npm.ts checks it matches package.json. */
export const VERSION = "0.1.0";

/** Whether argv asks for the version (`--version`, `-V` or `version` first). */
export function isVersionRequest(argv: readonly string[]): boolean {
  return argv[0] === "--version" || argv[0] === "-V" || argv[0] === "version";
}

/**
 * What `observal --version` prints: the version and the runtime, or both as one JSON object
 * under `--json`.
 *
 * @param json whether `--json` was given
 * @returns one line, without its newline
 *
 * @example
 * ```ts
 * versionText(false); // "observal 0.1.0 (deno 2.9.6)"
 * ```
 */
export function versionText(json: boolean): string {
  return json
    ? JSON.stringify({ version: VERSION, runtime: runtimeName() })
    : `observal ${VERSION} (${runtimeName()})`;
}
