/**
 * Writing `objects/info/alternates`, which points a repository at another's objects.
 * Private to lib/workspace.
 * @module
 */

/**
 * A path as a line of `objects/info/alternates`: as it is, or C-quoted when it holds a
 * newline or starts with a quote (git reads a line that starts with `"` quoted). The path
 * joins with `/` as git gives it: git for Windows reads that, and writes it the same way.
 */
export function alternatesLine(path: string): string {
  if (!/[\n\r]/.test(path) && !path.startsWith('"')) return path;
  const quoted = path.replace(
    /[\\"\n\r\t]/g,
    (c) => ({ "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]!,
  );
  return `"${quoted}"`;
}
