/**
 * The review page's view of what changed since the approved version: a line diff of the
 * canonical JSON, with a few lines of context around each change.
 * @module
 */
import { Html, html } from "./html.ts";
import { canonicalJson, type DiffLine, lineDiff } from "./line_diff.ts";

/** The changes since the approved version, or why they are not shown line by line. */
export function diffView(before: unknown, after: unknown, label: string): Html {
  if (before === undefined) {
    return html`
      <h2>Changes</h2>
      <p>No version of this entry was approved before: all of it is new.</p>
    `;
  }
  const lines = lineDiff(canonicalJson(before), canonicalJson(after));
  if (!lines) {
    return html`
      <h2>Changes since ${label}</h2>
      <p>Too large to compare line by line.</p>
    `;
  }
  if (lines.every((l) => l.op === " ")) {
    return html`
      <h2>Changes since ${label}</h2>
      <p>None: it is what was approved.</p>
    `;
  }
  return html`
    <h2>Changes since ${label}</h2>
    <pre class="diff"
      aria-label="Lines removed start with a minus, lines added with a plus">${withContext(lines)
        .map((l) =>
          typeof l === "number"
            ? html`<span class="same">  … ${l} unchanged lines</span>`
            : html`<span class="${
              l.op === "+" ? "add" : l.op === "-" ? "del" : "same"
            }">${l.op} ${l.text}</span>`
        )}</pre>
  `;
}

/** Lines kept around each change. */
const CONTEXT = 3;

/** The changed lines with a few around each; a longer unchanged run becomes its length. */
function withContext(lines: DiffLine[]): Array<DiffLine | number> {
  const near = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.op === " ") return;
    for (let k = Math.max(0, i - CONTEXT); k <= Math.min(lines.length - 1, i + CONTEXT); k++) {
      near[k] = true;
    }
  });
  const out: Array<DiffLine | number> = [];
  let hidden = 0;
  lines.forEach((l, i) => {
    if (near[i]) {
      if (hidden) out.push(hidden);
      hidden = 0;
      out.push(l);
    } else hidden++;
  });
  if (hidden) out.push(hidden);
  return out;
}
