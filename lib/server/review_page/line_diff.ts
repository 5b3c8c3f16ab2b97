/**
 * A line diff of two documents in canonical JSON (keys sorted, two-space indent), for the
 * review page's "changed since the last approval".
 * @module
 */

/** One line of a diff: kept (` `), added (`+`) or removed (`-`). */
export interface DiffLine {
  op: " " | "+" | "-";
  text: string;
}

/** Lines beyond which no diff is computed (its table grows with their product). */
const MAX_CELLS = 4_000_000;

/** `value` as JSON with every object's keys sorted, two spaces an indent. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) out[key] = sort((v as Record<string, unknown>)[key]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value), null, 2) ?? "null";
}

/**
 * The lines of `after` against `before` (a longest common subsequence), or undefined when
 * the two are too long to compare.
 */
export function lineDiff(before: string, after: string): DiffLine[] | undefined {
  const a = before.split("\n");
  const b = after.split("\n");
  // Common head and tail are kept as they are; only the middle is compared.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if ((x.length + 1) * (y.length + 1) > MAX_CELLS) return undefined;
  const width = y.length + 1;
  const lcs = new Uint32Array((x.length + 1) * width);
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i * width + j] = x[i] === y[j]
        ? lcs[(i + 1) * width + j + 1] + 1
        : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: " ", text }));
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      out.push({ op: " ", text: x[i] });
      i++;
      j++;
    } else if (
      i < x.length && (j === y.length || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])
    ) {
      // Removals before additions, as diff and git show them.
      out.push({ op: "-", text: x[i++] });
    } else {
      out.push({ op: "+", text: y[j++] });
    }
  }
  for (const text of a.slice(a.length - tail)) out.push({ op: " ", text });
  return out;
}
