/** Shortening text for a table cell; a module of its own so listing tasks loads no registry. */

/** Shortens long text for a table cell. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
