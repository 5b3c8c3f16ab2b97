/**
 * Writing a git folder of ours from another repository's: `objects/info/alternates`,
 * which reads that repository's objects in place, and the files copied as they are.
 * Private to lib/workspace.
 * @module
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Makes `gitDir` read the objects of the repository whose common git folder is `from`. */
export function borrowObjects(gitDir: string, from: string): void {
  const info = join(gitDir, "objects", "info");
  mkdirSync(info, { recursive: true, mode: 0o700 });
  writeFileSync(join(info, "alternates"), `${alternatesLine(`${from}/objects`)}\n`);
}

/** Copies each of `names` (paths inside a git folder) from `from` to `to` that exists. */
export function copyGitFiles(from: string, to: string, names: readonly string[]): void {
  for (const name of names) {
    try {
      copyFileSync(join(from, name), join(to, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
}

/**
 * A path as a line of `objects/info/alternates`: as it is, or C-quoted when it holds a
 * newline or starts with a quote (git reads a line that starts with `"` quoted). The path
 * joins with `/` as git gives it: git for Windows reads that, and writes it the same way.
 */
function alternatesLine(path: string): string {
  if (!/[\n\r]/.test(path) && !path.startsWith('"')) return path;
  const quoted = path.replace(
    /[\\"\n\r\t]/g,
    (c) => ({ "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]!,
  );
  return `"${quoted}"`;
}
