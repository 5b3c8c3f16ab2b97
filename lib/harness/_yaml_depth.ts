/**
 * How deeply a YAML text nests on one line, measured before it is parsed: the parser
 * recurses once a level, and `[[[[...` or `- - - ...` a few thousand levels deep overflows
 * the stack. Nesting by indentation is left out: the size limit keeps it to a few hundred
 * levels, which parse.
 * @module
 */

// A block scalar's header (`key: |`, `- >-2`): the lines below it are text, not structure.
const BLOCK_SCALAR = /(?:^|[\s:])[|>][-+0-9]*\s*(?:#.*)?$/;

/**
 * The deepest nesting of flow collections (`[`, `{`) and compact block entries (`- - x`,
 * `? ? x`) in `text`. Quoted scalars, comments and block scalars' text are skipped, so
 * brackets in a prompt do not count. An approximation that errs towards counting more
 * only for unusual text, such as unbalanced brackets in a plain scalar.
 *
 * @param text the YAML source
 * @returns the deepest level reached
 */
export function flowDepth(text: string): number {
  // Open flow collections, which span lines.
  let flow = 0;
  let deepest = 0;
  let quote: string | undefined;
  // The indentation of the line that opened a block scalar, while inside it.
  let scalarIndent: number | undefined;
  for (const line of text.split("\n")) {
    const indent = line.length - line.trimStart().length;
    if (scalarIndent !== undefined) {
      if (!line.trim() || indent > scalarIndent) continue;
      scalarIndent = undefined;
    }
    // Where a scalar may start: at the line's start, or after an indicator.
    let atStart = true;
    // Compact entries on this line, which end with it.
    let compact = 0;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quote) {
        if (c === "\\" && quote === '"') i++;
        else if (c === quote) quote = undefined;
        continue;
      }
      if (c === " " || c === "\t") continue;
      if (c === "#" && (i === 0 || line[i - 1] === " " || line[i - 1] === "\t")) break;
      if (atStart && (c === '"' || c === "'")) {
        quote = c;
        atStart = false;
        continue;
      }
      const next = line[i + 1];
      const spaced = next === undefined || next === " " || next === "\t";
      if (c === "[" || c === "{") {
        flow++;
        atStart = true;
      } else if (c === "]" || c === "}") {
        flow = Math.max(0, flow - 1);
        atStart = false;
      } else if (flow === 0 && atStart && (c === "-" || c === "?") && spaced) {
        // A compact entry nested in the one before it on the same line.
        compact++;
      } else if (c === "," || (c === ":" && spaced)) {
        atStart = true;
      } else {
        atStart = false;
      }
      deepest = Math.max(deepest, flow + compact);
    }
    if (!quote && flow === 0 && BLOCK_SCALAR.test(line)) scalarIndent = indent;
  }
  return deepest;
}
