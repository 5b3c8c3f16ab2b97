/**
 * Output for people and for programs: aligned tables and colour on a terminal, plain
 * text in a pipe, one JSON document under `--json`.
 *
 * This is the only module of the CLI that writes to `ctx.io` (a test holds every other
 * file to that), and everything it writes for people passes through
 * {@linkcode escapeControls}: text from agents, cards and registries can never move the
 * cursor, clear the screen, retitle the window or hide text. Colour comes only from
 * {@linkcode paint}, whose codes are added after the text is escaped.
 * @module
 */
import type { Context } from "../core/mod.ts";

const CODES = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const;
export type Color = keyof typeof CODES;

/** Text to show in a colour (when the terminal allows colour). */
export class Styled {
  readonly color: Color;
  readonly text: string;

  constructor(color: Color, text: string) {
    this.color = color;
    this.text = text;
  }

  /** The plain text: styled text put into a string by mistake loses its colour, not safety. */
  toString(): string {
    return this.text;
  }
}

/** A piece of a line: plain text, or text in a colour. Both are escaped when written. */
export type Piece = string | Styled;

/** Text in a colour; the colour is dropped where colour is not allowed. */
export function paint(color: Color, text: string): Styled {
  return new Styled(color, text);
}

// C0 controls except tab and newline, DEL, C1 controls, and the bidirectional overrides
// and isolates that can make text read differently from what it is.
// deno-lint-ignore no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes text safe to print on a terminal: control characters other than newline and tab
 * are shown as escapes (`\x1b`, `\x9b`, `\u202e`), so they are seen rather than obeyed.
 * A CRLF line ending becomes a plain newline.
 *
 * @param text anything an agent, a card or a registry may have written
 * @returns the text with every control character but newline and tab escaped
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeControls } from "./output.ts";
 *
 * assert.equal(escapeControls("a\x1b[2Jb\r\nc\td"), "a\\x1b[2Jb\nc\td");
 * ```
 */
export function escapeControls(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

function render(ctx: Context, pieces: readonly Piece[]): string {
  return pieces.map((p) => {
    if (typeof p === "string") return escapeControls(p);
    const text = escapeControls(p.text);
    return ctx.io.color ? `\x1b[${CODES[p.color]}m${text}\x1b[0m` : text;
  }).join("");
}

/** Prints one line on stdout, made of pieces. */
export function say(ctx: Context, ...pieces: Piece[]): void {
  ctx.io.stdout.write(`${render(ctx, pieces)}\n`);
}

/**
 * One line as {@linkcode say} would print it (escaped, coloured where allowed), for output
 * that goes elsewhere than `ctx.io` (a pager).
 */
export function renderLine(ctx: Context, ...pieces: Piece[]): string {
  return `${render(ctx, pieces)}\n`;
}

/**
 * Prints text meant for another program (a patch piped into `git apply`) as it is. On a
 * terminal it is escaped like everything else: unescaped text is only for pipes and files.
 */
export function printVerbatim(ctx: Context, text: string): void {
  ctx.io.stdout.write(ctx.io.isTTY ? escapeControls(text) : text);
}

/** Prints a line on stderr (errors, progress notes, hints), keeping stdout for results. */
export function note(ctx: Context, ...pieces: Piece[]): void {
  ctx.io.stderr.write(`${render(ctx, pieces)}\n`);
}

/** Prints a prompt on stderr, the cursor left after it (what is typed goes on that line). */
export function prompt(ctx: Context, ...pieces: Piece[]): void {
  ctx.io.stderr.write(render(ctx, pieces));
}

/** Prints a block of text (help, a file) on stdout, ending it with a newline if needed. */
export function printBlock(ctx: Context, text: string): void {
  const safe = escapeControls(text);
  ctx.io.stdout.write(safe.endsWith("\n") ? safe : `${safe}\n`);
}

/**
 * JSON that is safe on a terminal: JSON escapes C0 controls itself; DEL, C1 controls, the
 * bidirectional controls and the line separators are escaped here too (`\u009b`). They can
 * only occur inside strings, so parsing gives the same data.
 */
function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Prints a value as pretty JSON on stdout, whole. */
export function printJson(ctx: Context, value: unknown): void {
  ctx.io.stdout.write(`${safeJson(value, 2)}\n`);
}

/**
 * Prints a list under `--json` in the one envelope every list command uses:
 * `{ "items": [...], "total": N }`, plus `nextPageToken` when there is a next page.
 * Its shape is {@linkcode ListEnvelopeSchema} in `list_envelope.ts`.
 */
export function printList(
  ctx: Context,
  items: readonly unknown[],
  total: number,
  nextPageToken?: string,
): void {
  printJson(ctx, nextPageToken ? { items, total, nextPageToken } : { items, total });
}

/** Prints a value as one line of JSON on stderr (errors under `--json`). */
export function printJsonError(ctx: Context, value: unknown): void {
  ctx.io.stderr.write(`${safeJson(value)}\n`);
}

/** Prints rows under headers, columns padded to the widest cell (as shown, escapes included). */
export function printTable(ctx: Context, headers: string[], rows: Piece[][]): void {
  const all: Piece[][] = [headers, ...rows];
  const shown = all.map((row) => row.map((p) => escapeControls(String(p)).length));
  const width = headers.map((_, i) => Math.max(...shown.map((r) => r[i] ?? 0)));
  all.forEach((row, r) => {
    const pieces: Piece[] = [];
    row.forEach((piece, i) => {
      pieces.push(piece);
      if (i < row.length - 1) pieces.push(" ".repeat(width[i] - shown[r][i] + 2));
    });
    ctx.io.stdout.write(`${render(ctx, pieces).trimEnd()}\n`);
  });
}

/**
 * A live progress line on stderr: redrawn in place on a terminal, never written elsewhere.
 * The returned `clear` removes it before the result is printed.
 */
export function progressLine(ctx: Context): { draw(...pieces: Piece[]): void; clear(): void } {
  let shown = false;
  return {
    draw(...pieces) {
      if (!ctx.io.isTTY) return;
      ctx.io.stderr.write(`\r\x1b[2K${render(ctx, pieces).replace(/\n/g, " ")}`);
      shown = true;
    },
    clear() {
      if (shown) ctx.io.stderr.write("\r\x1b[2K");
      shown = false;
    },
  };
}
