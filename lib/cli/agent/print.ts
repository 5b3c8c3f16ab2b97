/** Display helpers shared by the commands that show install files and setup commands. */
import { relative, sep } from "node:path";

/** An argv as one line a person could paste into a POSIX shell. */
export function commandLine(argv: readonly string[]): string {
  return argv.map((a) => /^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)
    .join(" ");
}

/** A path as people read it: relative to the target, `~/...` in the home, else absolute. */
export function shownPath(
  file: { path: string; relative?: string },
  home: string | undefined,
): string {
  if (file.relative !== undefined) return file.relative;
  if (home) {
    const rel = relative(home, file.path);
    if (rel && !rel.startsWith("..") && !rel.startsWith(sep)) {
      return `~/${rel.split(sep).join("/")}`;
    }
  }
  return file.path;
}
