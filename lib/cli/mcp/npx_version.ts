/**
 * Whether `npx -y observal@<version>` can start: only a version published to npm can, and
 * this observal knows its own version is published only when it was installed from there.
 * A source checkout or a compiled binary may carry a version npm never had.
 * @module
 */
import { realpathSync } from "node:fs";
import process from "node:process";

/** Whether this observal runs from an npm install of the `observal` package. */
export function installedFromNpm(argv1: string | undefined = process.argv[1]): boolean {
  if (!argv1) return false;
  let path = argv1;
  try {
    path = realpathSync(argv1);
  } catch { /* keep the path as given */ }
  return /[\\/]node_modules[\\/]observal[\\/]/.test(path);
}

/**
 * The warning an `--launcher npx` install prints, or undefined when the version is one
 * npm has (this observal came from npm).
 *
 * @param version the version the entry pins
 * @param published whether this observal was installed from npm
 */
export function npxVersionWarning(version: string, published: boolean): string | undefined {
  if (published) return undefined;
  return `warning: this observal was not installed from npm, so observal@${version} may not ` +
    `exist there and the entry will not start until it does; use --launcher self on this ` +
    `machine, or install observal from npm and run this again`;
}
