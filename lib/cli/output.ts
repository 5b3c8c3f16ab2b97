/**
 * Output for people and for programs: aligned tables and colour on a terminal, plain
 * text in a pipe, one JSON document under `--json`.
 * @module
 */
import type { Context } from "../core/mod.ts";

const CODES = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;
export type Color = keyof typeof CODES;

/** Colours text when the Context allows colour. */
export function paint(ctx: Context, color: Color, text: string): string {
  return ctx.io.color ? `\x1b[${CODES[color]}m${text}\x1b[0m` : text;
}

/** Prints a value as pretty JSON on stdout. */
export function printJson(ctx: Context, value: unknown): void {
  ctx.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints a line on stdout. */
export function say(ctx: Context, text = ""): void {
  ctx.io.stdout.write(`${text}\n`);
}

/** Prints a note on stderr (progress, hints), keeping stdout for results. */
export function note(ctx: Context, text: string): void {
  ctx.io.stderr.write(`${text}\n`);
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/** Renders rows under headers with columns padded to the widest cell. */
export function renderTable(headers: string[], rows: string[][]): string {
  const width = headers.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => (r[i] ?? "").replace(ANSI, "").length))
  );
  const line = (cells: string[]) =>
    cells.map((c, i) =>
      i === cells.length - 1 ? c : c + " ".repeat(width[i] - c.replace(ANSI, "").length)
    ).join("  ").trimEnd();
  return [line(headers), ...rows.map(line)].join("\n") + "\n";
}
