/**
 * Reading a secret a flag names (a bearer token, a signing key): the file must be private
 * to the user, since a secret others can read is no secret.
 * @module
 */
import { ObservalError } from "./errors.ts";
import { hostPlatform, readText, statPath } from "./host.ts";

/**
 * The text of `file`, given as `--<flag>`, once it is known to be readable by its owner
 * only (on systems with permission bits).
 *
 * @throws {ObservalError} `INVALID_ARGUMENT` when it cannot be read, or others can read it
 */
export function readPrivateFile(file: string, flag: string, holds: string): string {
  const stat = statPath(file);
  let text: string | undefined;
  let why = "it is not a file";
  if (stat?.isFile) {
    try {
      text = readText(file);
    } catch (err) {
      why = String(err);
    }
  }
  if (text === undefined) {
    throw new ObservalError("INVALID_ARGUMENT", `Cannot read --${flag} ${file}: ${why}`, {
      remediation: `Pass the file that holds ${holds}`,
    });
  }
  if (hostPlatform() !== "win32" && stat!.mode !== null && (stat!.mode & 0o077) !== 0) {
    throw new ObservalError("INVALID_ARGUMENT", `--${flag} ${file} can be read by others`, {
      remediation: `Make it private: chmod 600 ${file}`,
    });
  }
  return text;
}
